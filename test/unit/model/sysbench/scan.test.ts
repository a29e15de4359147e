import { describe, expect, it } from "vitest";
import { parseIntervalLine } from "../../../../src/core/model/sysbench/scan.ts";

describe("parseIntervalLine (live display)", () => {
  it.each([
    [
      "[ 1s ] thds: 4 tps: 1251.11 qps: 25087.03 (r/w/o: 17573.38/4370.42/3143.23) lat (ms,99%): 5.47 err/s: 1.00 reconn/s: 0.00",
      {
        t: 1,
        threads: 4,
        tps: 1251.11,
        qps: 25087.03,
        readsPerSec: 17573.38,
        writesPerSec: 4370.42,
        otherPerSec: 3143.23,
        latencyPercentile: 99,
        latencyMs: 5.47,
        errorsPerSec: 1,
        reconnectsPerSec: 0,
      },
    ],
    ["Threads started!", null],
    ["[ 1s ] thds: 4 tps: 12", null],
    ["[ 1s ] queue length: 5, concurrency: 0", null],
  ])("%s", (line, want) => {
    expect(parseIntervalLine(line)).toEqual(want);
  });
});
