/**
 * A small seeded pseudo-random generator (mulberry32) for what must be reproducible from a recorded seed: the
 * `order: randomized` plan and the statistics simulations. Not for anything secret. The normal and gamma draws are
 * @stdlib's, fed by it.
 */
import stdlibGamma from "@stdlib/random-base-gamma";
import stdlibNormal from "@stdlib/random-base-normal";

/** Uniform [0, 1) numbers from a 32-bit seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Standard normal numbers from a uniform generator: @stdlib's normal (improved ziggurat) driven by `rand`, so the
 * stream is fixed by the seed of `rand`.
 */
export function normalFrom(rand: () => number): () => number {
  const draw = stdlibNormal.factory(0, 1, { prng: rand });
  return () => draw();
}

/** Gamma(shape, rate 1) numbers from a uniform generator (@stdlib's gamma, Marsaglia–Tsang), fixed by its seed. */
export function gammaFrom(rand: () => number): (shape: number) => number {
  const draw = stdlibGamma.factory({ prng: rand });
  return (shape) => draw(shape, 1);
}

/** Fisher–Yates shuffle of a copy. */
export function shuffled<T>(xs: readonly T[], rand: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** A 32-bit seed from a string (FNV-1a), for a default seed that is stable for a given scenario. */
export function seedFromString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
