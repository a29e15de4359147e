/** The CPU speed of a cell from the probe's samples, and the rule that a pair's two cells ran at one speed. */
import { describe, expect, it } from "vitest";
import {
  MIN_SPEED_SAMPLES,
  SPEED_MISMATCH,
  cpuSpeedOver,
  speedMismatch,
  withSpeedCheck,
  type SpeedSample,
} from "../../../src/core/measure/speed.ts";
import type { CpuSpeed, Interference } from "../../../src/core/model/results.ts";

/** Samples of one CPU every 250 ms from `fromMs`, with work times from `us(i)`. */
const series = (cpu: number, fromMs: number, n: number, us: (i: number) => number): SpeedSample[] =>
  Array.from({ length: n }, (_, i) => ({ atMs: fromMs + 250 * i, cpu, workUs: us(i) }));

const speed = (workUs: number): CpuSpeed => ({ workUs, fastestUs: workUs, slowestUs: workUs, samples: 28, cpus: [1] });

const quiet = (cpuSpeed?: CpuSpeed): Interference => ({
  stealPct: 0,
  psiCpuSomePct: 0,
  outsiderCores: 0.01,
  ...(cpuSpeed ? { cpuSpeed } : {}),
  disturbed: false,
  reasons: [],
});

describe("cpuSpeedOver", () => {
  it("a steady CPU: its work time, from the samples inside the window only", () => {
    const s = [...series(1, 0, 4, () => 500), ...series(1, 1000, 28, () => 100), ...series(1, 8000, 4, () => 500)];
    expect(cpuSpeedOver(s, [1], 1000, 7750)).toEqual({
      workUs: 100,
      fastestUs: 100,
      slowestUs: 100,
      samples: 28,
      cpus: [1],
    });
  });

  it("half the window at half speed: the mean speed (0.75 of full), not the mean time", () => {
    const s = series(1, 0, 20, (i) => (i < 10 ? 100 : 200));
    const r = cpuSpeedOver(s, [1], 0, 5000)!;
    // Mean speed (1/100 + 1/200) / 2 = 0.0075 per µs: a work time of 133.33 µs.
    expect(r.workUs).toBeCloseTo(133.33, 2);
    expect([r.fastestUs, r.slowestUs, r.samples]).toEqual([100, 200, 20]);
  });

  it("several CPUs: the mean of their speeds; samples of CPUs not asked for are ignored", () => {
    const s = [...series(0, 0, 8, () => 50), ...series(1, 0, 8, () => 100), ...series(2, 0, 8, () => 300)];
    const r = cpuSpeedOver(s, [1, 2], 0, 2000)!;
    expect(r.workUs).toBeCloseTo(2 / (1 / 100 + 1 / 300), 2);
    expect(r.cpus).toEqual([1, 2]);
    expect(r.samples).toBe(16);
  });

  it(`no speed from fewer than ${MIN_SPEED_SAMPLES} samples of any CPU, nor from no CPU`, () => {
    const s = [...series(1, 0, 8, () => 100), ...series(2, 0, MIN_SPEED_SAMPLES - 1, () => 100)];
    expect(cpuSpeedOver(s, [1, 2], 0, 2000)).toBeNull();
    expect(cpuSpeedOver(s, [1], 0, 2000)).not.toBeNull();
    expect(cpuSpeedOver(s, [], 0, 2000)).toBeNull();
    expect(cpuSpeedOver([], [1], 0, 2000)).toBeNull();
  });
});

describe("speedMismatch", () => {
  it(`differences under ${SPEED_MISMATCH}× are the probe's own spread; from it on, either way, they count`, () => {
    expect(speedMismatch(speed(100), speed(110))).toBeNull();
    expect(speedMismatch(speed(100), speed(91))).toBeNull();
    expect(speedMismatch(speed(100), speed(115))).toBeCloseTo(1.15, 9);
    expect(speedMismatch(speed(115), speed(100))).toBeCloseTo(100 / 115, 9);
    expect(speedMismatch(speed(100), speed(180))).toBe(1.8);
  });

  it("nothing to compare when either cell has no speed", () => {
    expect(speedMismatch(undefined, speed(200))).toBeNull();
    expect(speedMismatch(speed(100), undefined)).toBeNull();
    expect(speedMismatch(speed(0), speed(100))).toBeNull();
  });
});

describe("withSpeedCheck", () => {
  it("a second cell 1.4× slower than its pair's first: disturbed, with the factor and a reason naming the first", () => {
    const r = withSpeedCheck(quiet(speed(140)), quiet(speed(100)), "mysql");
    expect(r.disturbed).toBe(true);
    expect(r.speedMismatch).toBe(1.4);
    expect(r.reasons).toEqual(["the server's CPU ran 1.4× slower than in mysql's cell of this pair (threshold 1.15×)"]);
  });

  it("a faster second cell says faster; reasons already there are kept", () => {
    const second = { ...quiet(speed(100)), disturbed: true, reasons: ["outsiders used 0.50 core (threshold 0.1)"] };
    const r = withSpeedCheck(second, quiet(speed(150)), "mariadb");
    expect(r.reasons).toEqual([
      "outsiders used 0.50 core (threshold 0.1)",
      "the server's CPU ran 1.5× faster than in mariadb's cell of this pair (threshold 1.15×)",
    ]);
  });

  it("one speed, or a speed unknown on either side: the interference as it was", () => {
    const second = quiet(speed(105));
    expect(withSpeedCheck(second, quiet(speed(100)), "a")).toBe(second);
    expect(withSpeedCheck(second, quiet(), "a")).toBe(second);
    expect(withSpeedCheck(second, undefined, "a")).toBe(second);
  });
});
