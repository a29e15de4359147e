/**
 * The budget design's search (pure): the narrowest layout within the budget at each cell length, and what the
 * budget buys on 1, 2 and 4 hosts.
 */
import type { DesignInput, DesignCandidate, Design } from "./types.ts";
import type { SetupCosts } from "../../model/setup-costs.ts";
import { cellsOf, CELL_LENGTHS, warmupFor, ROUNDS_PER_INSTANCE, layoutCost, layoutScenario } from "./layout.ts";
import { MIN_UNITS_FOR_PRECISION_STOP } from "../../stats/estimate.ts";
import { predictHalfWidthPct } from "../../stats/half-width.ts";
import { planRun } from "../plan.ts";

/** The narrowest layout within the budget at each cell length (and the one chosen among them). */
export function search(
  i: DesignInput,
  ctx: {
    tests: string[];
    hosts: number;
    instanceSdPct: number;
    sdAt: (L: number) => number;
    setupCosts: Partial<SetupCosts>;
  },
): DesignCandidate[] {
  const s = i.scenario;
  const cells = cellsOf(s);
  const adaptive = i.precisionPct !== undefined && ctx.hosts === 1;
  const minRounds = adaptive ? MIN_UNITS_FOR_PRECISION_STOP : 2;
  const out: DesignCandidate[] = [];
  for (const L of i.lengths ?? CELL_LENGTHS) {
    const W = warmupFor(L);
    const sd = ctx.sdAt(L);
    let best: DesignCandidate | null = null;
    // An adaptive run lays out a fresh instance every round (its default): k = 1 only.
    for (const k of adaptive ? [1] : ROUNDS_PER_INSTANCE) {
      const c = layoutCost(
        s,
        { cellSeconds: L, warmupSeconds: W, k, tests: ctx.tests, hosts: ctx.hosts },
        ctx.setupCosts,
      );
      if (c.first > i.budgetSeconds || !(c.perInstance > 0)) continue;
      const instances = 1 + Math.floor((i.budgetSeconds - c.first) / c.perInstance);
      const rounds = instances * k;
      if (rounds < minRounds) continue;
      const halfWidthPct = predictHalfWidthPct({
        pairSdPct: sd,
        instanceSdPct: ctx.instanceSdPct,
        pairs: rounds,
        instances,
        cells,
      });
      const cand = {
        cellSeconds: L,
        warmupSeconds: W,
        rounds,
        instances,
        roundsPerInstance: k,
        pairSdPct: sd,
        halfWidthPct,
        seconds: c.first + (instances - 1) * c.perInstance,
      };
      if (!best || cand.halfWidthPct < best.halfWidthPct - 1e-9) best = cand;
    }
    if (best) out.push(best);
  }
  return out;
}

export function hostForecast(
  i: DesignInput,
  ctx: {
    tests: string[];
    hosts: number;
    instanceSdPct: number;
    sdAt: (L: number) => number;
    setupCosts: Partial<SetupCosts>;
  },
  c: DesignCandidate,
): Design["hostsForecast"][number] {
  const seconds = planRun(layoutScenario(i.scenario, { ...c, tests: ctx.tests, hosts: ctx.hosts }), {
    setupCosts: ctx.setupCosts,
  }).estimate.totalSeconds;
  // What the budget buys on this many hosts at the chosen cell length (a fixed count: hosts run no adaptive rounds).
  const here = search(
    { ...i, precisionPct: ctx.hosts === 1 ? i.precisionPct : undefined, lengths: [c.cellSeconds] },
    ctx,
  )[0];
  return {
    hosts: ctx.hosts,
    seconds,
    rounds: here?.rounds ?? 0,
    halfWidthPct: here?.halfWidthPct ?? Number.POSITIVE_INFINITY,
  };
}
