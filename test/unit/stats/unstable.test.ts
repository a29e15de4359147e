/** Why a cell is unstable: stalled seconds, disturbed repeats, errors and reconnects, an unsteady write cell. */
import { describe, expect, it } from "vitest";
import type { CellRecord } from "../../../src/core/model/results.ts";
import { outlierNote, stalledSeconds, unstableNotes, unsteadyNote } from "../../../src/core/stats/unstable.ts";
import { cellRecord, sysbench } from "../../support/record.ts";

const series = (qps: number[]) => qps.map((q, i) => ({ t: i + 1, qps: q, tps: q / 20 }));
const flat = Array.from({ length: 10 }, () => 1000);
const falling = Array.from({ length: 10 }, (_, t) => 1000 - 30 * t);
const rec = (qps: number[], over: Partial<CellRecord> = {}) =>
  cellRecord({ test: "oltp_update_non_index", metrics: sysbench({ qps: 1000, intervals: series(qps) }), ...over });

describe("unsteadyNote", () => {
  it("names a falling q/s with its slope, interval and threshold; a flat one has no note", () => {
    expect(unsteadyNote(rec(falling))).toMatch(
      /^not steady: q\/s slope -\d+\.\d% per 10 s \[-\d+\.\d, -\d+\.\d\] \(threshold ±3%\)$/,
    );
    expect(unsteadyNote(rec(flat))).toBeNull();
  });
  it("reads only the seconds after the trimmed lead-in (here 4 left: too few for a slope)", () => {
    expect(unsteadyNote(rec(falling, { trimmed: { seconds: 5, samples: 5, qps: 900, tps: 45 } }))).not.toBeNull();
    expect(unsteadyNote(rec(falling, { trimmed: { seconds: 6, samples: 4, qps: 900, tps: 45 } }))).toBeNull();
  });
});

describe("stalledSeconds", () => {
  it("counts the seconds with neither queries nor transactions", () => {
    expect(stalledSeconds(rec([5, 0, 0, 7]))).toBe(2);
    expect(stalledSeconds(cellRecord())).toBe(0);
  });
});

describe("unstableNotes", () => {
  it("one note per stalled, disturbed, erroring or unsteady repeat, named by side and repeat", () => {
    const notes = unstableNotes("oltp_update_non_index", [
      [
        "mariadb",
        [
          rec([5, 0, 7, 8, 9]),
          rec(flat, {
            repeat: 2,
            interference: { disturbed: true, reasons: ["other work used 1.5 cores"] } as CellRecord["interference"],
          }),
        ],
      ],
      [
        "mysql",
        [
          cellRecord({
            repeat: 3,
            metrics: sysbench({ qps: 1, ignoredErrors: 12, ignoredErrorsPerSec: 1.2, reconnects: 0 }),
          }),
          rec(falling, { repeat: 4 }),
        ],
      ],
    ]);
    expect(notes.slice(0, 3)).toEqual([
      "mariadb repeat 1 stalled: 1 second with no throughput",
      "mariadb repeat 2 disturbed, left out: other work used 1.5 cores",
      "mysql repeat 3 had ignored errors 1.20/s (12)",
    ]);
    expect(notes[3]).toMatch(/^mysql repeat 4 not steady: q\/s slope -/);
    expect(notes).toHaveLength(4);
  });
  it("a read-only cell is not checked for a steady state, and failed repeats carry no notes", () => {
    const ro = rec(falling, { test: "oltp_read_only" });
    expect(unstableNotes("oltp_read_only", [["a", [ro]]])).toEqual([]);
    expect(unstableNotes("oltp_update_non_index", [["a", [rec([0, 0, 0], { status: "failed" })]]])).toEqual([]);
  });
});

describe("outlierNote", () => {
  it("names the repeat and the pair's ratio", () => {
    expect(outlierNote(3, Math.log(1.25))).toBe("repeat 3 is an outlier pair (ratio 125.0)");
  });
});
