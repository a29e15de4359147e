import { describe, expect, it } from "vitest";
import { QUANTISATION_SD, estimateRun, usablePairs, type CellInput } from "../../../src/core/stats/estimate.ts";
import { fitVariancePrior, moderate } from "../../../src/core/stats/prior.ts";
import { seededRandom } from "../../../src/core/base/random.ts";
import { MEASURED, simulateRun } from "../../support/noise-sim.ts";

const L = Math.log;
const cell = (...ds: number[]): CellInput => ({ pairs: ds.map((d) => ({ d })) });

describe("estimateRun: one cell (nothing to pool)", () => {
  it("known answer: the estimate is exp(mean ln ratio), the interval a paired t on the log ratios", () => {
    // d = ln 1.1, ln 1.2, ln 1.0: m = 0.0925439, s = 0.0911928, se = 0.0526499, t(0.975, 2) = 4.302653
    const e = estimateRun([cell(L(1.1), L(1.2), L(1.0))]).cells[0];
    expect(e.estimate).toBeCloseTo(Math.exp(0.0925439) * 100, 3); // 109.696, not the median ratio 110
    expect(e.low).toBeCloseTo(87.4599, 3);
    expect(e.high).toBeCloseTo(137.5859, 3);
    expect(e).toMatchObject({ n: 3, df: 2, verdict: "inconclusive" });
  });

  it("fewer than 2 pairs: unknown, the only way to get it", () => {
    expect(estimateRun([cell(L(1.1))]).cells[0]).toMatchObject({
      verdict: "unknown",
      reason: "too-few-pairs",
      low: null,
    });
    expect(estimateRun([cell()]).cells[0]).toMatchObject({ verdict: "unknown", reason: "no-data", estimate: null });
  });

  it("a zero-width interval gives no verdict", () => {
    const e = estimateRun([cell(L(1.02), L(1.02), L(1.02))]).cells[0];
    expect(e).toMatchObject({ verdict: "unknown", reason: "zero-width", low: null, high: null });
  });

  it("latency: histogram quantisation is a floor on the pair sd, so equal ratios still get a width", () => {
    // sysbench 1.0.20 sb_histogram_init: 1024 buckets, so 1023 steps over ln(1e8)
    expect(QUANTISATION_SD).toBeCloseTo(Math.log(1e8) / 1023 / Math.sqrt(6), 12);
    const e = estimateRun([{ ...cell(L(1.1), L(1.1), L(1.1)), floorSd: QUANTISATION_SD }]).cells[0];
    // se = 0.0073437 / sqrt(3), t(2) = 4.302653: half-width 0.018243 around ln 1.1
    expect(e.low).toBeCloseTo(110 * Math.exp(-4.302653 * (QUANTISATION_SD / Math.sqrt(3))), 2);
    expect(e.verdict).toBe("faster-beyond"); // [108.0, 112.0]: above 105
  });
});

describe("estimateRun: the variance pooled over cells", () => {
  it("known answer: cells that agree in spread: d0 = ∞ from the moments, capped at the other cell's 2 df", () => {
    // Both cells have s² = 0.0083160; their log moments leave no spread beyond sampling, so limma's fitFDist gives
    // d0 = ∞ and s0² = exp(mean(ln s² − ψ(1) + ln 1)) = 0.0083160 · e^γ = 0.0148114. moderateRobust caps d0 at the
    // other cell's df (2); at d0 = 2 the prior variance is exp(e + ψ(1) − ln 1) = 0.0083160 itself, so s̃² = s² and
    // df = 2 + 2 = 4.
    const r = estimateRun([cell(L(1.1), L(1.2), L(1.0)), cell(L(1.1) - 0.1, L(1.2) - 0.1, L(1.0) - 0.1)]);
    expect(r.prior.d0).toBe(Infinity);
    expect(r.prior.s02).toBeCloseTo(0.0083160267 * Math.exp(0.5772156649), 8);
    const e = r.cells[0];
    expect(e.df).toBe(4);
    expect(e.s2Moderated).toBeCloseTo(0.0083160267, 8);
    // half = t(0.975, 4) · sqrt(0.0083160 / 3) = 2.776445 · 0.0526499 = 0.146179 (t from scipy.stats.t.ppf)
    expect(e.low).toBeCloseTo(Math.exp(0.0925439 - 0.146179) * 100, 2);
    expect(e.high).toBeCloseTo(Math.exp(0.0925439 + 0.146179) * 100, 2);
  });

  it("a cell noisier than the prior keeps its own variance and df: 1.5% beside 15% cells", () => {
    const quiet = (k: number) => cell(...[0.985, 1.015, 1.0, 0.99].map((x) => L(x * (1 + k * 0.001))));
    const noisy = cell(L(1.15), L(0.85), L(1.1), L(0.9));
    const r = estimateRun([quiet(0), quiet(1), quiet(2), quiet(3), quiet(4), noisy]);
    const n = r.cells[5];
    expect(n.df).toBe(3);
    expect(n.s2Moderated).toBeCloseTo(n.s2!, 12);
    // its own paired t interval: t(0.975, 3) = 3.182446 (scipy.stats.t.ppf(0.975, 3))
    const ds = [1.15, 0.85, 1.1, 0.9].map(L);
    const m = ds.reduce((a, x) => a + x, 0) / 4;
    const sd = Math.sqrt(ds.reduce((a, x) => a + (x - m) ** 2, 0) / 3);
    expect(n.high!).toBeCloseTo(Math.exp(m + 3.182446 * (sd / 2)) * 100, 3);
    // the quiet cells borrow df from each other, never a variance below their own
    for (const c of r.cells.slice(0, 5)) {
      expect(c.df!).toBeGreaterThan(3);
      expect(c.s2Moderated!).toBeGreaterThanOrEqual(c.s2! - 1e-15);
    }
  });

  it("moderation lies between the cell's own variance and the prior, with d0 + d df capped at the pooled df", () => {
    const prior = { d0: 4, s02: 0.01, dfPooled: 20, cells: 10 };
    expect(moderate({ s2: 0.04, df: 2 }, prior)).toEqual({ s2: (4 * 0.01 + 2 * 0.04) / 6, df: 6 });
    expect(moderate({ s2: 0.04, df: 2 }, { ...prior, dfPooled: 5 }).df).toBe(5);
    expect(moderate({ s2: 0.04, df: 2 }, { ...prior, d0: 0 })).toEqual({ s2: 0.04, df: 2 });
  });

  it("unequal variances give a finite d0 and keep the cells apart", () => {
    const p = fitVariancePrior([0.002, 0.004, 0.02, 0.05, 0.1, 0.001].map((s2) => ({ s2, df: 4 })));
    expect(Number.isFinite(p.d0)).toBe(true);
    expect(p.d0).toBeGreaterThan(0);
    expect(p.s02).toBeGreaterThan(0.001);
    expect(p.s02).toBeLessThan(0.1);
  });

  it("cells on 2 instances: the instance is the unit, and the level between instances widens the interval", () => {
    const within = estimateRun([
      { pairs: [0.1, 0.12, -0.02, 0].map((d) => ({ d })) },
      { pairs: [0.05, 0.03, 0.09, 0.11].map((d) => ({ d })) },
    ]);
    const nested = estimateRun([
      { pairs: [0.1, 0.12, -0.02, 0].map((d, i) => ({ d, instance: i < 2 ? 0 : 1 })) },
      { pairs: [0.05, 0.03, 0.09, 0.11].map((d, i) => ({ d, instance: i < 2 ? 0 : 1 })) },
    ]);
    expect(nested.cells[0].instances).toBe(2);
    expect(nested.cells[0].estimate).toBeCloseTo(within.cells[0].estimate!, 10);
    // one df between instances per cell; cell 0 is the noisier (instance means 0.11, −0.01): it keeps its own df 1,
    // cell 1 (0.04, 0.10) borrows cell 0's df: 2
    expect(nested.cells[0].df).toBe(1);
    expect(nested.cells[1].df).toBe(2);
    expect(nested.cells[0].high! - nested.cells[0].low!).toBeGreaterThan(within.cells[0].high! - within.cells[0].low!);
    // τ² from the one-way random-effects moments: the instance means differ by 0.12 and 0.06, pairs by 0.02.
    expect(nested.instanceLevel.cells).toBe(2);
    expect(nested.instanceLevel.tau2!).toBeGreaterThan(0);
  });
});

/**
 * Reference figures from scipy 1.17.1, not from this code: a paired t on log ratios, and limma's squeezeVar
 * (fitFDist: method of moments on log s², Smyth 2004, Stat. Appl. Genet. Mol. Biol. 3(1) §6.2) written again with
 * scipy's digamma, polygamma, brentq and t.ppf, with twinbench's two guards (moderateRobust): d0 capped at the other
 * cells' df (with the prior variance that capped d0 implies), and a cell noisier than the prior keeping its own
 * variance and df. The same snippet gives report.test.ts's interval.
 *
 *   import numpy as np
 *   from scipy import optimize, special, stats
 *   def robust(cells, conf=0.95):
 *       d = [np.log(np.array(c)) for c in cells]
 *       s2 = np.array([x.var(ddof=1) for x in d]); df = np.array([len(x) - 1.0 for x in d])
 *       e = np.log(s2) - special.digamma(df / 2) + np.log(df / 2)
 *       evar = e.var(ddof=1) - special.polygamma(1, df / 2).mean()
 *       d0 = 2 * optimize.brentq(lambda x: special.polygamma(1, x) - evar, 1e-8, 1e8) if evar > 0 else np.inf
 *       s02 = np.exp(e.mean() + special.digamma(d0 / 2) - np.log(d0 / 2)) if np.isfinite(d0) else np.exp(e.mean())
 *       out = []
 *       for x, s, f in zip(d, s2, df):
 *           d0c = min(d0, df.sum() - f)                      # capped at the other cells' df
 *           s0c = s02 if d0c == d0 else np.exp(e.mean() + special.digamma(d0c / 2) - np.log(d0c / 2))
 *           post = (d0c * s0c + f * s) / (d0c + f); dft = d0c + f
 *           if s > post: post, dft = s, f                    # noisier than the prior: its own variance and df
 *           h = stats.t.ppf(1 - (1 - conf) / 2, dft) * np.sqrt(post / len(x))
 *           out.append((np.exp(x.mean()) * 100, np.exp(x.mean() - h) * 100, np.exp(x.mean() + h) * 100, dft, post))
 *       return d0, s02, s2, out
 *   robust([[1.1, 1.2, 1.0], [0.95, 1.0, 1.02], [1.05, 1.07, 1.04]])
 *   r = stats.ttest_1samp(np.log([1.1, 1.2, 1.0]), 0); r.confidence_interval(0.95), r.pvalue   # one cell alone
 */
const rel = (x: number | null, ref: number) => Math.abs(x! - ref) / Math.abs(ref);

describe("docs/stats.md worked example, against scipy", () => {
  it("three cells of 3 pairs: the prior; cells 1 and 2 are noisier than it and keep their own t interval", () => {
    const r = estimateRun(
      [
        [1.1, 1.2, 1.0],
        [0.95, 1.0, 1.02],
        [1.05, 1.07, 1.04],
      ].map((rs) => cell(...rs.map(L))),
    );
    expect(rel(r.prior.d0, 1.9218828592210992)).toBeLessThan(1e-8);
    expect(rel(r.prior.s02, 0.0012939238209153734)).toBeLessThan(1e-8);
    const [c1, c2, c3] = r.cells;
    expect(rel(c1.s2, 0.008316026695289237)).toBeLessThan(1e-8);
    // limma alone would give cell 1 (1.92 · 0.001294 + 2 · 0.008316) / 3.92 = 0.004875 with 3.92 df: below its own
    // variance, so it keeps s² and its own 2 df (the plain paired t interval). Cell 2 likewise (0.001346 > 0.001331).
    expect(rel(c1.s2Moderated, 0.008316026695289237)).toBeLessThan(1e-8);
    expect(c1.df).toBe(2);
    expect(c2.df).toBe(2);
    expect(rel(c3.s2Moderated, 0.0007408533612166269)).toBeLessThan(1e-8);
    expect(rel(c3.df, 3.9218828592210992)).toBeLessThan(1e-8);
    const scipy = [
      [109.69613104865236, 87.45986371595586, 137.58586688545014],
      [98.95580110479442, 90.33505105451388, 108.39923659734656],
      [105.32597110678941, 100.79454146524691, 110.06112065516169],
    ];
    r.cells.forEach((c, i) =>
      [c.estimate, c.low, c.high].forEach((x, j) =>
        expect(rel(x, scipy[i][j]), `cell ${i + 1} [${j}]`).toBeLessThan(1e-8),
      ),
    );
    // Cell 1 includes 100 and reaches past 105; cell 2's low 90.34 is below 95; cell 3 excludes 100.
    expect([c1.verdict, c2.verdict, c3.verdict]).toEqual(["inconclusive", "inconclusive", "faster"]);
  });

  it("one cell alone is scipy's paired t on log ratios (ttest_1samp): interval and p-value", () => {
    const c = estimateRun([cell(L(1.1), L(1.2), L(1.0))]).cells[0];
    expect(c.df).toBe(2);
    expect(rel(c.low, 87.45986371595586)).toBeLessThan(1e-8);
    expect(rel(c.high, 137.58586688545014)).toBeLessThan(1e-8);
    expect(rel(c.p, 0.2208715318186792)).toBeLessThan(1e-8);
  });
});

describe("estimateRun: coverage by simulation at the measured noise", () => {
  it("95% intervals cover 94-96% (5000 runs of 6 cells, 4 pairs on 2 instances, AR drift, unequal cells, shifts)", () => {
    // test/support/noise-sim.ts: pair sd about 11%, an instance effect as large (11%), per-second AR(1)
    // with lag-1 autocorrelation 0.6 plus a slow drift, cell sds from 3% to 6% a side, 2% of server-cells shifted by
    // N(0, 20%), and true differences that vary by cell. With one instance the level between instances cannot be
    // estimated: the simulation uses the default of 2.
    const truth = [0, 0.05, -0.1, 0.2, 0, -0.03];
    const model = { ...MEASURED, truth: (c: number) => truth[c] };
    const rand = seededRandom(14);
    let covered = 0;
    let total = 0;
    for (let i = 0; i < 5000; i++) {
      const run = estimateRun(simulateRun(model, rand));
      run.cells.forEach((e, c) => {
        if (e.low === null || e.high === null) return;
        total++;
        const t = Math.exp(truth[c]) * 100;
        if (e.low <= t && t <= e.high) covered++;
      });
    }
    expect(total).toBe(30000);
    const coverage = covered / total;
    expect(coverage).toBeGreaterThanOrEqual(0.94);
    expect(coverage).toBeLessThanOrEqual(0.96);
  }, 120_000); // CPU only (about 2 s idle); the long limit is for a machine shared with other work
});

describe("estimateRun, sequential: cells stopped other than on precision use all their units", () => {
  const cell = (ds: number[]) => ({ pairs: ds.map((d, j) => ({ d, instance: j })) });
  const ds = [
    [0.1, -0.05, 0.02, 0.2, -0.1, 0.04],
    [0.03, 0.0, -0.02, 0.05, 0.01, -0.04],
    [0.3, -0.2, 0.1, 0.0, -0.1, 0.2],
  ];
  it("precision (or no stop given): the first stage's variance; budget, max or open: all units, more df", () => {
    const held = estimateRun(ds.map(cell), { sequential: true });
    const all = estimateRun(
      ds.map((d) => ({ ...cell(d), stop: "budget" as const })),
      { sequential: true },
    );
    const prec = estimateRun(
      ds.map((d) => ({ ...cell(d), stop: "precision" as const })),
      { sequential: true },
    );
    for (let i = 0; i < ds.length; i++) {
      expect(held.cells[i].split).toBe(true);
      expect(prec.cells[i]).toEqual(held.cells[i]);
      expect(all.cells[i].split).toBe(false);
      expect(all.cells[i].allUnits).toBe(true);
      // Huber's centre at each interval's own scale: within a few thousandths of each other here.
      expect(Math.abs(all.cells[i].meanLog - held.cells[i].meanLog)).toBeLessThan(0.01);
      expect(all.cells[i].df!).toBeGreaterThan(held.cells[i].df!);
      // The stop width still comes from the first stage alone.
      expect(all.cells[i].stopHalfWidthPct).toBeCloseTo(held.cells[i].stopHalfWidthPct!, 10);
    }
  });
  it("a fixed count ignores `stop`", () => {
    const a = estimateRun(ds.map(cell));
    const b = estimateRun(ds.map((d) => ({ ...cell(d), stop: "budget" as const })));
    expect(b.cells).toEqual(a.cells);
  });
});

describe("estimateRun, sequential: Stein's two stages, a robust centre, disturbed pairs left out", () => {
  const cell = (ds: number[], disturbed: number[] = []) => ({
    pairs: ds.map((d, j) => ({ d, instance: j, ...(disturbed.includes(j) ? { disturbed: true } : {}) })),
  });
  const quiet = [
    [0.02, -0.01, 0.0, 0.03, 0.01, -0.02, 0.02],
    [0.05, 0.04, 0.07, 0.03, 0.06, 0.05, 0.04],
    [-0.03, -0.05, -0.01, -0.04, -0.02, -0.03, -0.06],
  ];
  it("the printed half-width is the one the stop rule read, at every count of units", () => {
    for (let n = 4; n <= 7; n++) {
      const run = estimateRun(
        quiet.map((d) => cell(d.slice(0, n))),
        { sequential: true },
      );
      for (const c of run.cells) expect((c.high! / c.estimate! - 1) * 100).toBeCloseTo(c.stopHalfWidthPct!, 9);
    }
  });
  it("later units do not change the variance: the width shrinks as 1/√units", () => {
    const at = (n: number) =>
      estimateRun(
        quiet.map((d) => cell(d.slice(0, n))),
        { sequential: true },
      ).cells[0];
    const w = (c: ReturnType<typeof at>) => Math.log(c.high! / c.estimate!);
    expect(w(at(4)) / w(at(7))).toBeCloseTo(Math.sqrt(7 / 4), 9);
  });
  it("one wild pair after the first stage moves the centre by a bounded amount and leaves the width alone", () => {
    const wild = quiet.map((d, i) => (i === 0 ? [...d.slice(0, 6), Math.log(2.5)] : d));
    const a = estimateRun(
      quiet.map((d) => cell(d)),
      { sequential: true },
    ).cells[0];
    const b = estimateRun(
      wild.map((d) => cell(d)),
      { sequential: true },
    ).cells[0];
    expect(b.high! / b.estimate!).toBeCloseTo(a.high! / a.estimate!, 9);
    // the mean would move by ln(2.5)/7 ≈ 13%; Huber's centre moves by at most k scales / 7
    expect(Math.abs(b.meanLog - a.meanLog)).toBeLessThan(0.02);
    expect(b.low! <= 102 && b.high! >= 98).toBe(true);
  });
  it("a pair disturbed in every attempt is left out, and the first stage still ends at the fourth pair", () => {
    const ds = [0.01, -0.02, Math.log(0.4), 0.02, 0.0, 0.01];
    const left = estimateRun([cell(ds, [2]), cell(quiet[1]), cell(quiet[2])], { sequential: true }).cells[0];
    expect(left.n).toBe(5);
    expect(left.low! <= 100 && left.high! >= 100).toBe(true);
    // kept as if clean (the last attempt winning), it would pull the cell far below 100
    const kept = estimateRun([cell(ds), cell(quiet[1]), cell(quiet[2])], { sequential: true }).cells[0];
    expect(kept.n).toBe(6);
    expect(kept.estimate!).toBeLessThan(left.estimate!);
  });
  it("usablePairs: the clean pairs only, however few", () => {
    const p = (d: number, disturbed = false) => ({ d, ...(disturbed ? { disturbed } : {}) });
    expect(usablePairs([p(0.1, true), p(0.2), p(0.3)]).map((x) => x.d)).toEqual([0.2, 0.3]);
    expect(usablePairs([p(0.1, true), p(0.2, true), p(0.3)]).map((x) => x.d)).toEqual([0.3]);
    expect(estimateRun([{ pairs: [p(0.1, true), p(0.2, true), p(0.3)] }]).cells[0].reason).toBe("too-few-pairs");
  });
});
