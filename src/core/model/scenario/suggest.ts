/** "Did you mean" helpers: Levenshtein distance over names, with `-`, `_` and case ignored for a first exact pass. */

export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
    }
    prev = cur;
  }
  return prev[b.length];
}

const squash = (s: string) => s.toLowerCase().replace(/[-_\s]/g, "");

/** The closest candidate, or undefined when none is close enough (distance ≤ max(2, ⌊len/3⌋)). */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates];
  const w = squash(word);
  const same = list.find((c) => squash(c) === w);
  if (same !== undefined) return same;
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of list) {
    const d = levenshtein(w, squash(c));
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  const limit = Math.max(2, Math.floor(w.length / 3));
  return bestD <= limit ? best : undefined;
}

/** `; did you mean "x"?` or "" */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const c = closest(word, candidates);
  return c === undefined ? "" : `; did you mean "${c}"?`;
}

/** Show a value in a message: strings quoted, other values as compact JSON, long ones cut. */
export function show(v: unknown): string {
  if (v === undefined) return "nothing";
  let s: string;
  try {
    s = typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  } catch {
    s = String(v); // not JSON-able (a cycle, a BigInt): its plain string form
  }
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
