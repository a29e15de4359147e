/** Binary-unit byte counts for people: 2147483648 → "2 GiB", 1572864 → "1.5 MiB". */
export function formatBytes(n: number | undefined): string {
  if (n === undefined) return "?";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Number.isInteger(v) ? v : v.toFixed(1)} ${units[i]}`;
}
