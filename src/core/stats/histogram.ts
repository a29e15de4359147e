/**
 * Latency percentiles from the histogram sysbench prints (`--histogram`), read the way sysbench reads its own
 * percentile (sb_histogram.c in sysbench 1.0.20), so that the histogram's 95th percentile is the printed one.
 *
 * sysbench counts every event in one of 1024 buckets spaced evenly in log latency from 0.001 ms to 100 000 ms
 * (bucket i holds the latencies nearest exp(ln 0.001 + i / mult), mult = 1023 / ln(1e8)), and prints each non-empty
 * bucket's value with three decimals and its count. The pth percentile is the value of the first bucket at which the
 * running count reaches round(events · p / 100). So a percentile is always a bucket's value: two of them differ by
 * whole buckets, about 1.8% apart, and no ratio of percentiles is finer than that.
 */

/** The bucket grid of sysbench's latency histogram (sb_histogram_init: 1024 buckets, 0.001 ms to 100 000 ms). */
const BUCKETS = 1024;
const RANGE_DEDUCT = Math.log(0.001);
const RANGE_MULT = (BUCKETS - 1) / (Math.log(100_000) - RANGE_DEDUCT);

/** The distance between two neighbouring buckets in log units (ln(1e8) / 1023 ≈ 0.018: about 1.8%). */
export const BUCKET_LOG_WIDTH = 1 / RANGE_MULT;

/** The bucket sysbench counts a latency (ms) in: the nearest point of the grid, clamped to the grid's ends. */
export function bucketIndex(ms: number): number {
  const i = Math.floor((Math.log(ms) - RANGE_DEDUCT) * RANGE_MULT + 0.5);
  return Math.min(BUCKETS - 1, Math.max(0, i));
}

/** The value (ms) of bucket `i`, as sysbench computes it before printing. */
export function bucketValue(i: number): number {
  return Math.exp(i / RANGE_MULT + RANGE_DEDUCT);
}

/**
 * A printed bucket value (three decimals) put back on the grid: the grid value it was printed from when that prints
 * as the same three decimals, else the value as printed (below about 0.03 ms two buckets can print alike).
 */
export function onGrid(printed: number): number {
  const exact = bucketValue(bucketIndex(printed));
  return Math.abs(exact - printed) <= 0.0005 + 1e-12 ? exact : printed;
}

/**
 * The pth percentile (0 < p ≤ 100) of a printed histogram (rows of [value ms, count] in ascending value), as
 * sysbench reads it; null for an empty histogram or a p outside (0, 100].
 */
export function histogramPercentile(rows: ReadonlyArray<readonly [number, number]>, p: number): number | null {
  if (!(p > 0 && p <= 100)) return null;
  const events = rows.reduce((a, [, n]) => a + n, 0);
  if (!(events > 0)) return null;
  const target = Math.max(1, Math.floor((events * p) / 100 + 0.5));
  let seen = 0;
  for (const [value, n] of rows) {
    seen += n;
    if (seen >= target) return onGrid(value);
  }
  return onGrid(rows[rows.length - 1]![0]);
}

/**
 * Is an interval of a ratio of two percentiles ([low, high], in %) narrower than one bucket? Then the data cannot
 * resolve it: both percentiles moved by whole buckets only, and the interval is read at the histogram's resolution.
 */
export function narrowerThanBucket(low: number | null, high: number | null): boolean {
  if (low === null || high === null || !(low > 0) || !(high >= low)) return false;
  return Math.log(high / low) < BUCKET_LOG_WIDTH;
}
