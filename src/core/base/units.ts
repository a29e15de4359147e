/**
 * Binary-unit byte counts for people. "exact" (default): 2147483648 → "2 GiB", 1572864 → "1.5 MiB".
 * "coarse" (disk space, image sizes): GiB with one decimal from 1 GiB up, whole MiB below: "2.0 GiB", "512 MiB".
 */
export function formatBytes(n: number | undefined, style: "exact" | "coarse" = "exact"): string {
  if (n === undefined) return "?";
  if (style === "coarse")
    return n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GiB` : `${(n / 1024 ** 2).toFixed(0)} MiB`;
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Number.isInteger(v) ? v : v.toFixed(1)} ${units[i]}`;
}

/** 312 → "5m 12s". */
export function formatSeconds(total: number): string {
  const t = Math.round(total);
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const sec = t % 60;
  if (h) return `${h}h ${String(m).padStart(2, "0")}m`;
  if (m) return `${m}m ${String(sec).padStart(2, "0")}s`;
  return `${sec}s`;
}

/** A figure rounded to `digits` decimals for a report model (null stays null): 1.23456 → 1.2346. */
export function roundTo(x: number | null, digits = 4): number | null {
  return x === null ? null : Number(x.toFixed(digits));
}

/** A number with `digits` decimals for people, "-" when it is missing: 1.234 → "1.23", null → "-". */
export function fixedOrDash(n: number | null | undefined, digits = 2): string {
  return n === null || n === undefined ? "-" : n.toFixed(digits);
}
