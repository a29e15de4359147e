/**
 * Adaptive repeats (pure): which cells of an adaptive run need another round, from the records so far.
 *
 * A round is every open cell (test × threads) once per server (adaptiveRoundCells in order.ts lays it out: round-
 * robin in scenario order, the pair order alternating by round; with more than two servers the rows of a balanced
 * Latin square). A cell stays open for at least `min` rounds; after that it is done when its stop width is at most
 * `precision` for every pair with the base (the report's own estimator, pooled over the run's cells: estimateRun's
 * sequential stages, whose stop width is the printed width; src/core/stats/stop.ts), or when it has had `max` rounds. The rule is precision, never significance: a
 * cell does not stop because its interval excludes 100. A budget stops every open cell before a round that would
 * not fit. A new server instance starts every ceil(min / instances) rounds (instanceOf in cells.ts).
 *
 * The state is rebuilt from the records alone (round r = repeat r), replaying the stop rule round by round, so a
 * resumed run continues where the cancelled one stopped: a round cut short runs again for the cells whose pair at
 * that round is not complete, on a new instance number.
 */
import type { PairReading, RoundCell, RunEvent } from "../model/events.ts";
import { comparisonPairs, type ServerPair } from "../model/scenario/pairs.ts";
import { halfWidthPct } from "../stats/estimate.ts";
import { DEFAULT_MARGIN_PCT } from "../model/scenario/schema.ts";
import { verdictOf } from "../model/verdict.ts";
import { cellVerdictText } from "../model/vocabulary.ts";
import type { AdaptiveSettings, CellRecord } from "../model/results.ts";
import { ratioTableFromSides } from "../stats/ratio.ts";
import {
  adaptiveRepeats,
  parseDuration,
  parsePercent,
  plannedInstances,
  type Scenario,
} from "../model/scenario/schema.ts";
import { adaptiveRoundCells, type CellId } from "./order.ts";
import { instanceOf } from "./cells.ts";
import type { Cell } from "../model/results.ts";

/** The adaptive settings of a scenario (undefined for fixed repeats); `budget` overrides workload.budget. */
export function adaptiveSettings(s: Pick<Scenario, "workload">): AdaptiveSettings | undefined {
  const a = adaptiveRepeats(s.workload);
  if (!a) return undefined;
  const instances = plannedInstances(s.workload);
  const budget = s.workload.budget === undefined ? undefined : parseDuration(s.workload.budget);
  return {
    min: a.min,
    max: a.max,
    precisionPct: parsePercent(a.precision)!,
    instances,
    roundsPerInstance: Math.ceil(a.min / instances),
    ...(budget !== undefined ? { budgetSeconds: budget } : {}),
  };
}

import {
  applyStopRule,
  openAdaptiveCell,
  printedWiderThanTarget,
  type AdaptiveCell,
  type StopEstimate,
} from "../stats/stop.ts";

/** One pair's estimate of every cell, with the report's estimator (pooled over the run's cells of that pair). */
function pairEstimates(s: Scenario, records: readonly CellRecord[], pair: ServerPair): Map<string, PairReading> {
  const out = new Map<string, PairReading>();
  const side = (id: string) => ({ id, label: id, records: records.filter((r) => r.server === id) });
  const t = ratioTableFromSides(side(pair.numerator), side(pair.denominator), s.workload.tests, s.workload.threads, {
    pairing: "paired",
    sequential: true,
  });
  for (const row of t.rows)
    for (const c of row.cells)
      out.set(`${row.test}\u0000${c.threads}`, {
        ...pair,
        n: c.n,
        estimate: c.estimate,
        low: c.low,
        high: c.high,
        halfWidthPct: halfWidthPct(c),
        stopHalfWidthPct: c.stopHalfWidthPct ?? null,
      });
  return out;
}

/**
 * The pair the stop rule waits for: the one with the widest stop width, a pair without one first (the widest
 * possible). The cell stops on precision only when this pair, and so every pair, is within the target.
 */
export function widestPair(readings: readonly PairReading[]): PairReading | undefined {
  let widest: PairReading | undefined;
  for (const r of readings) {
    if (!widest) widest = r;
    else if (widest.stopHalfWidthPct === null) continue;
    else if (r.stopHalfWidthPct === null || r.stopHalfWidthPct > widest.stopHalfWidthPct) widest = r;
  }
  return widest;
}

/**
 * Every cell's estimate from the records, one per compared pair (comparisonPairs). One pair: that pair's estimate,
 * as before the ladder. A ladder: the widest pair's figures (widestPair), so that the one stop rule stops a cell
 * only when every pair with the base has reached the target, and every pair's reading in `pairs`.
 */
function estimates(s: Scenario, records: readonly CellRecord[]): Map<string, StopEstimate> {
  const out = new Map<string, StopEstimate>();
  const pairs = comparisonPairs(s);
  if (!pairs.length) return out;
  const per = pairs.map((p) => pairEstimates(s, records, p));
  for (const key of per[0].keys()) {
    const readings = per.map((m) => m.get(key)!);
    const { numerator: _n, denominator: _d, ...w } = widestPair(readings)!;
    out.set(key, pairs.length === 1 ? w : { ...w, pairs: readings });
  }
  return out;
}

const idOf = (c: CellId) => `${c.test}\u0000${c.threads}`;

/**
 * The state of every cell after rounds 1..`through` (default: every recorded round): the stop rule replayed round
 * by round over the records, so a cell that stopped keeps its reason even when later pooling would widen it again.
 */
export function adaptiveState(s: Scenario, recorded: readonly CellRecord[], through?: number): AdaptiveCell[] {
  const a = adaptiveSettings(s)!;
  const measured = recorded.filter((r) => r.phase === "measure" && r.repeat >= 1);
  const last = through ?? Math.max(0, ...measured.map((r) => r.repeat));
  const cells: AdaptiveCell[] = s.workload.tests.flatMap((test) =>
    s.workload.threads.map((threads) => openAdaptiveCell(test, threads)),
  );
  for (let r = 1; r <= last; r++) {
    const upTo = measured.filter((x) => x.repeat <= r);
    const est = estimates(s, upTo);
    for (const c of cells) {
      if (c.done) continue;
      applyStopRule(
        c,
        est.get(idOf(c)),
        upTo.some((x) => x.repeat === r && x.test === c.test && x.threads === c.threads),
        a,
      );
    }
  }
  return cells;
}

/** What the scheduler does next. */
export interface AdaptiveStep {
  /** The round the cells belong to (their repeat number); 0 when the run is done. */
  round: number;
  cells: Cell[];
  /** The cells' state before this round (the last finished round's). */
  state: AdaptiveCell[];
  /** The last round the state covers (0 before the first). */
  finished: number;
}

/** Does a pair of this cell at round r have an ok record on every server? */
function completeAt(s: Scenario, recorded: readonly CellRecord[], c: CellId, r: number): boolean {
  return s.servers.every((srv) =>
    recorded.some(
      (x) =>
        x.phase === "measure" &&
        x.server === srv.id &&
        x.test === c.test &&
        x.threads === c.threads &&
        x.repeat === r &&
        x.status === "ok",
    ),
  );
}

/**
 * The next round from the records. `issued` is the last round this process ran (undefined on its first call: then
 * a round cut short by a cancel runs again for its incomplete cells). `instanceOffset` shifts the instance numbers
 * (see {@link resumeInstanceOffset}).
 */
export function nextAdaptiveRound(
  s: Scenario,
  recorded: readonly CellRecord[],
  issued: number | undefined,
  instanceOffset = 0,
): AdaptiveStep {
  const a = adaptiveSettings(s)!;
  const lastRecorded = Math.max(0, ...recorded.filter((r) => r.phase === "measure").map((r) => r.repeat));
  const shift = (cells: Cell[]) =>
    cells.map((c) => (c.instance === undefined ? c : { ...c, instance: c.instance + instanceOffset }));
  if (issued === undefined && lastRecorded > 0) {
    const before = adaptiveState(s, recorded, lastRecorded - 1);
    const cut = before.filter((c) => !c.done && c.rounds < a.max && !completeAt(s, recorded, c, lastRecorded));
    if (cut.length)
      return {
        round: lastRecorded,
        cells: shift(adaptiveRoundCells(s, lastRecorded, cut, roundIndex(s, lastRecorded))),
        state: before,
        finished: lastRecorded - 1,
      };
  }
  const finished = issued ?? lastRecorded;
  const state = adaptiveState(s, recorded, finished);
  const open = state.filter((c) => !c.done);
  if (!open.length) return { round: 0, cells: [], state, finished };
  return {
    round: finished + 1,
    cells: shift(adaptiveRoundCells(s, finished + 1, open, roundIndex(s, finished + 1))),
    state,
    finished,
  };
}

/**
 * A resumed run's servers are new processes: its instance numbers start above every recorded one. The offset that
 * does this for the first round the resumed run will issue.
 */
export function resumeInstanceOffset(s: Scenario, recorded: readonly CellRecord[], firstRound: number): number {
  const seen = recorded.map((r) => r.instance).filter((i): i is number => i !== undefined);
  const first = instanceOf(s.workload, firstRound);
  if (!seen.length || first === undefined) return 0;
  return Math.max(0, Math.max(...seen) + 1 - first);
}

/** Does a round of `cells` measured cells fit in what is left of the budget? */
export function roundFits(o: {
  budgetLeftSeconds: number;
  cells: number;
  secondsPerCell: number;
  restartSeconds?: number;
}): boolean {
  return o.cells * o.secondsPerCell + (o.restartSeconds ?? 0) <= o.budgetLeftSeconds;
}

/**
 * Seconds until every cell is done when the run has no forecast (no pairs yet after round 1, or not two servers):
 * the widest open cell needs about n·(hw/target)² − n more pairs (the width shrinks as 1/√n), at least the rounds
 * the minimum still asks for, at most max − rounds. Each of those rounds costs one measured cell per server for
 * every open cell, plus `roundExtraSeconds` (the time model's restart and warm-ups of a new instance, spread over
 * its rounds). `minimum` is true when no open cell has a width yet: the figure is then the minimum rounds' time, a
 * lower bound, and is said so. Null without a cost per cell.
 */
export function adaptiveEta(
  state: readonly AdaptiveCell[],
  a: AdaptiveSettings,
  servers: number,
  secondsPerCell: number,
  roundExtraSeconds = 0,
): { seconds: number; minimum: boolean } | null {
  const open = state.filter((c) => !c.done);
  if (!open.length) return { seconds: 0, minimum: false };
  let rounds = 0;
  for (const c of open) {
    const left = a.max - c.rounds;
    const need =
      c.halfWidthPct === null
        ? Math.max(a.min - c.rounds, 1)
        : Math.ceil(c.n * (c.halfWidthPct / a.precisionPct) ** 2 - c.n);
    rounds = Math.max(rounds, Math.min(left, Math.max(need, a.min - c.rounds, 1)));
  }
  if (!(secondsPerCell > 0)) return null;
  return {
    seconds: rounds * (open.length * servers * secondsPerCell + Math.max(0, roundExtraSeconds)),
    minimum: open.every((c) => c.halfWidthPct === null),
  };
}

/**
 * Why a cell stopped, in a few words: "precision", "max", "budget"; a precision stop whose printed half-width is
 * wider than the target (or with an unknown target) is "stopped wider than the target".
 */
export function stopReasonWords(c: Pick<RoundCell, "done" | "halfWidthPct">, precisionPct: number | undefined): string {
  if (c.done === "precision" && (precisionPct === undefined || printedWiderThanTarget(c, precisionPct)))
    return "stopped wider than the target";
  return c.done ?? "open";
}

/** The index of a round's first cell: rounds numbered as if every cell ran in every round, so indexes stay unique. */
function roundIndex(s: Scenario, round: number): number {
  return (round - 1) * s.workload.tests.length * s.workload.threads.length * s.servers.length;
}

/**
 * One line per adaptive round: each cell's estimate ± half-width with its verdict word (vocabulary.ts, at the run's
 * margin; the event carries no q-values, so the word is the cell's own reading, not yet the table's at a 5%
 * false-discovery rate), why it stopped, the ETA and the budget left.
 * A cell that stopped while its printed interval is wider than the target says so, never "precision".
 */
export function roundLine(e: Extract<RunEvent, { type: "round-finished" }>): string {
  const margin = e.marginPct ?? DEFAULT_MARGIN_PCT;
  const reading = (c: Pick<RoundCell, "estimate" | "low" | "high" | "halfWidthPct">) => {
    const estimate = c.estimate === null ? "-" : c.estimate.toFixed(1);
    if (c.halfWidthPct === null) return `${estimate} (no interval yet)`;
    const word = cellVerdictText({ verdict: verdictOf(c.low, c.high, margin) });
    return `${estimate} ±${c.halfWidthPct.toFixed(1)}% ${word}`;
  };
  // A ladder: every pair's reading, numerator named (the base is the same for all).
  const cells = e.cells.map((c) => {
    const figures = c.pairs ? c.pairs.map((p) => `${p.numerator} ${reading(p)}`).join(", ") : reading(c);
    return `${c.test}@${c.threads} ${figures} n=${c.n}${c.done ? ` (${stopReasonWords(c, e.precisionPct)})` : ""}`;
  });
  const open = e.cells.filter((c) => !c.done).length;
  const eta =
    e.etaSeconds === null
      ? ""
      : e.etaMinimum
        ? `, eta at least ${Math.round(e.etaSeconds)} s (the minimum rounds; a forecast once cells have pairs)`
        : `, eta ${Math.round(e.etaSeconds)} s`;
  const budget = e.budgetLeftSeconds === null ? "" : `, budget left ${Math.round(e.budgetLeftSeconds)} s`;
  return `round ${e.round} (instance ${e.instance}): ${open} open${eta}${budget}; ${cells.join("; ")}`;
}
