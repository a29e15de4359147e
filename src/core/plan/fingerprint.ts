/**
 * A fingerprint of everything that must be identical for two runs (or a run and its resume) to be comparable:
 * the resolved scenario and the neutral config text. Pure: a stable JSON serialisation hashed with FNV-1a 64.
 */
export function stableStringify(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .filter((k) => o[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${stableStringify(o[k])}`)
    .join(",")}}`;
}

export function fnv1a64(text: string): string {
  let h = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  for (const b of new TextEncoder().encode(text)) {
    h ^= BigInt(b);
    h = (h * prime) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, "0");
}

export function scenarioFingerprint(scenario: unknown, neutralCnf: string, pins: unknown = null): string {
  return fnv1a64(stableStringify({ scenario, neutralCnf, pins }));
}
