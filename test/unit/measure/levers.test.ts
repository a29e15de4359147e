import { describe, expect, it } from "vitest";
import {
  STEADY_THRESHOLD_PCT_PER_10S,
  notSteady,
  parseAffinityList,
  quiesced,
  steadySlope,
  trimmedRates,
  type BacklogSample,
  figureWindow,
  figureWindowText,
} from "../../../src/core/measure/levers.ts";
import type { IntervalSample } from "../../../src/core/model/sysbench/result.ts";
import { validateScenario } from "../../../src/core/model/scenario/validate.ts";
import { buildRatioTable } from "../../../src/core/stats/ratio.ts";
import { unsteadyNote } from "../../../src/core/stats/unstable.ts";
import type { CellRecord, RunManifest } from "../../../src/core/model/results.ts";
import { normalFrom, seededRandom } from "../../../src/core/base/random.ts";
import { cellRecord, sysbench } from "../../support/record.ts";

const mulberry32Normal = (seed: number) => normalFrom(seededRandom(seed));

const sample = (t: number, qps: number): IntervalSample => ({
  t,
  threads: 1,
  tps: qps / 10,
  qps,
  readsPerSec: qps,
  writesPerSec: 0,
  otherPerSec: 0,
  latencyPercentile: 95,
  latencyMs: 1,
  errorsPerSec: 0,
  reconnectsPerSec: 0,
});

describe("trimmedRates", () => {
  it("leaves out the first seconds and averages the rest", () => {
    const xs = [100, 200, 1000, 1000, 1000].map((q, i) => sample(i + 1, q));
    expect(trimmedRates(xs, 2)).toEqual({ seconds: 2, samples: 3, qps: 1000, tps: 100 });
  });
  it("is null when nothing is left", () => {
    expect(trimmedRates([sample(1, 5), sample(2, 5)], 2)).toBeNull();
    expect(trimmedRates([], 0)).toBeNull();
  });
});

describe("steadySlope", () => {
  it("finds a known linear slope in % of the mean per 10 s", () => {
    // 1000 + 10 t over t = 0..19: mean 1095, slope 10/s → 100 per 10 s → 9.13% of the mean.
    const ys = Array.from({ length: 20 }, (_, t) => 1000 + 10 * t);
    const s = steadySlope(ys)!;
    expect(s.pctPer10s).toBeCloseTo((100 / 1095) * 100, 6);
    expect(s.low).toBeCloseTo(s.pctPer10s, 6); // no residuals: a zero-width interval
    expect(notSteady(s)).toBe(true);
  });
  it("calls a flat noisy series steady and a noisy falling one not steady", () => {
    const rnd = mulberry32Normal(7);
    const flat = Array.from({ length: 30 }, () => 1000 * (1 + 0.05 * rnd()));
    const s = steadySlope(flat)!;
    expect(s.low).toBeLessThan(0);
    expect(s.high).toBeGreaterThan(0);
    expect(notSteady(s)).toBe(false);
    const falling = Array.from({ length: 30 }, (_, t) => 1000 * (1 - 0.01 * t) * (1 + 0.01 * rnd()));
    expect(notSteady(steadySlope(falling))).toBe(true);
  });
  it("a significant slope below the threshold is still steady", () => {
    const ys = Array.from({ length: 60 }, (_, t) => 1000 + 0.5 * t); // ~0.5% per 10 s
    const s = steadySlope(ys)!;
    expect(Math.abs(s.pctPer10s)).toBeLessThan(STEADY_THRESHOLD_PCT_PER_10S);
    expect(notSteady(s)).toBe(false);
  });
  it("autocorrelated residuals widen the interval", () => {
    const rnd = mulberry32Normal(3);
    let e = 0;
    const ar = Array.from({ length: 40 }, () => (e = 0.8 * e + 20 * rnd()) + 1000);
    const s = steadySlope(ar)!;
    expect(s.rho).toBeGreaterThan(0.3);
  });
  it("gives no slope for fewer than 5 samples", () => {
    expect(steadySlope([1, 2, 3, 4])).toBeNull();
    expect(notSteady(null)).toBe(false);
  });
});

describe("quiesced", () => {
  const s = (historyLength: number | null, dirtyPages: number): BacklogSample => ({ historyLength, dirtyPages });
  it("settles at once when both are near zero", () => {
    expect(quiesced([s(3, 0)])).toBe(true);
    expect(quiesced([s(null, 2)])).toBe(true);
  });
  it("waits while either still falls, settles when both stopped falling", () => {
    expect(quiesced([s(900, 500)])).toBe(false);
    expect(quiesced([s(900, 500), s(800, 400), s(700, 400), s(600, 400)])).toBe(false);
    expect(quiesced([s(900, 500), s(600, 400), s(600, 400), s(600, 400), s(600, 400)])).toBe(true);
    expect(quiesced([])).toBe(false);
  });
});

describe("parseAffinityList", () => {
  it("reads taskset -c -p output", () => {
    expect(parseAffinityList("pid 812's current affinity list: 0,1")).toBe("0,1");
    expect(parseAffinityList("pid 1's current affinity list: 0-3\n")).toBe("0-3");
    expect(parseAffinityList("taskset: failed to get pid 9's affinity")).toBeNull();
  });
});

describe("scenario: the noise levers", () => {
  const F = "scenarios/x.yaml";
  const ctx = { lockImages: ["mariadb-11.8"], hostCpus: 2 };
  const doc = (extra: (d: Record<string, any>) => void) => {
    const d: Record<string, any> = {
      name: "x",
      servers: [
        { id: "a", image: "mariadb-11.8" },
        { id: "b", image: "mariadb-11.8" },
      ],
      resources: { server: { cpuset: "1" }, load: { cpuset: "0" } },
      workload: { tests: ["oltp_update_non_index"], threads: [1], duration: "5s" },
    };
    extra(d);
    return validateScenario(d, F, ctx);
  };
  it("defaults keep today's behaviour (absent, read as pause on, confine off, quiesce off, trim 0)", () => {
    const r = doc(() => undefined);
    if (!("scenario" in r)) throw new Error(r.errors.join("\n"));
    expect(r.scenario.resources.pauseIdle).toBeUndefined();
    expect(r.scenario.resources.confineDaemons).toBeUndefined();
    expect(r.scenario.workload.quiesce).toBeUndefined();
    expect(r.scenario.workload.trim).toBeUndefined();
  });
  it("accepts the levers", () => {
    const r = doc((d) => {
      d.resources.pauseIdle = false;
      d.resources.confineDaemons = true;
      d.workload.quiesce = true;
      d.workload.trim = "2s";
    });
    expect("scenario" in r).toBe(true);
  });
  it.each([
    [
      "pauseIdle not a boolean",
      (d: Record<string, any>) => (d.resources.pauseIdle = "no"),
      `${F}: resources.pauseIdle:`,
    ],
    ["bad trim", (d: Record<string, any>) => (d.workload.trim = "2 parsecs"), `${F}: workload.trim:`],
    [
      "confine without a load cpuset",
      (d: Record<string, any>) => {
        d.resources.load = {};
        d.resources.confineDaemons = true;
      },
      `${F}: resources.confineDaemons: needs resources.load.cpuset`,
    ],
    [
      "trim of an events-bounded cell",
      (d: Record<string, any>) => {
        delete d.workload.duration;
        d.workload.events = 100;
        d.workload.trim = "2s";
      },
      `${F}: workload.trim: needs workload.duration`,
    ],
  ])("refuses %s with the file and field", (_n, mut, want) => {
    const r = doc(mut);
    expect("errors" in r ? r.errors.join("\n") : "").toContain(want);
  });
});

describe("report: trimmed rates and the steady-state flag", () => {
  const rec = (server: string, repeat: number, qpsSeries: number[], extra: Partial<CellRecord> = {}): CellRecord =>
    cellRecord({
      server,
      test: "oltp_update_non_index",
      repeat,
      metrics: sysbench({
        qps: qpsSeries.reduce((a, b) => a + b, 0) / qpsSeries.length,
        tps: 1,
        intervals: qpsSeries.map((q, i) => sample(i + 1, q)),
      }),
      startedAt: `2026-01-01T00:00:0${repeat}${server}`,
      ...extra,
    });
  const manifest = {
    servers: [],
    scenario: {
      compare: { numerator: "a", denominator: "b" },
      servers: [{ id: "a" }, { id: "b" }],
      workload: { tests: ["oltp_update_non_index"], threads: [1] },
    },
  } as unknown as RunManifest;
  const flat = Array.from({ length: 10 }, () => 1000);
  const falling = Array.from({ length: 10 }, (_, t) => 1000 - 30 * t);
  it("flags a write cell whose q/s falls, not a flat one", () => {
    expect(unsteadyNote(rec("a", 1, falling))).toMatch(/^not steady: q\/s slope -\d+\.\d% per 10 s \[/);
    expect(unsteadyNote(rec("a", 1, flat))).toBeNull();
    const t = buildRatioTable(manifest, [
      rec("a", 1, falling),
      rec("b", 1, flat),
      rec("a", 2, flat),
      rec("b", 2, flat),
    ])!;
    expect(t.rows[0]!.cells[0]!.unstable.join("\n")).toContain("a repeat 1 not steady");
  });
  it("uses the trimmed q/s when a record has them", () => {
    const trimmed = { seconds: 2, samples: 8, qps: 2000, tps: 1 };
    const t = buildRatioTable(manifest, [
      rec("a", 1, flat, { trimmed }),
      rec("b", 1, flat),
      rec("a", 2, flat, { trimmed }),
      rec("b", 2, flat),
    ])!;
    expect(t.rows[0]!.cells[0]!.ratio).toBe(200);
  });
  it("takes the scenario's report.margin unless the caller gives one (report --margin)", () => {
    const recs = [rec("a", 1, flat), rec("b", 1, flat), rec("a", 2, flat), rec("b", 2, flat)];
    const withMargin = {
      ...manifest,
      scenario: { ...manifest.scenario, report: { margin: "2%" } },
    } as unknown as RunManifest;
    expect(buildRatioTable(manifest, recs)!.marginPct).toBe(5);
    expect(buildRatioTable(withMargin, recs)!.marginPct).toBe(2);
    expect(buildRatioTable(withMargin, recs, { marginPct: 10 })!.marginPct).toBe(10);
  });
});

describe("plan: workload.trim lengthens the measured cells", () => {
  it("adds the trim to each cell's seconds in the estimate", async () => {
    const { planRun } = await import("../../../src/core/plan/plan.ts");
    const d = (trim?: string) => {
      const r = validateScenario(
        {
          name: "x",
          servers: [
            { id: "a", image: "mariadb-11.8" },
            { id: "b", image: "mariadb-11.8" },
          ],
          workload: { tests: ["oltp_point_select"], threads: [1], duration: "5s", ...(trim ? { trim } : {}) },
        },
        "x.yaml",
        { lockImages: ["mariadb-11.8"] },
      );
      if (!("scenario" in r)) throw new Error(r.errors.join("\n"));
      return planRun(r.scenario).estimate.totalSeconds;
    };
    expect(d("2s") - d()).toBeCloseTo(2 * 2, 6); // 2 cells (one a server) × 2 s
  });
});

describe("the seconds a cell's figure used", () => {
  const intervals = [1, 2, 3, 4, 5, 6, 7].map((t) => ({ t, qps: 100, tps: 100 })) as never;
  it("no lead-in: sysbench's total over its run; a lead-in: the per-second samples after it", () => {
    expect(figureWindow({ metrics: { totalTime: 7.02, intervals } })).toEqual({
      from: 1,
      to: 7,
      leadIn: 0,
      samples: null,
      source: "sysbench total",
    });
    const w = figureWindow({
      trimmed: { seconds: 2, samples: 5, qps: 100, tps: 100 },
      metrics: { totalTime: 7.02, intervals },
    })!;
    expect(w).toEqual({ from: 3, to: 7, leadIn: 2, samples: 5, source: "per-second mean" });
    expect(figureWindowText(w)).toBe("seconds 3–7 (per-second mean of 5 s after a 2 s lead-in)");
    expect(figureWindow({ metrics: null })).toBeNull();
  });
});
