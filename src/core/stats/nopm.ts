/**
 * The new-orders per minute (NOPM) of the TPC-C-like cells (pure): the paired ratio of each cell's NOPM across
 * repeats, from the shipped engine (ratioTableFromSides with metric `nopm`: the same estimator, interval and verdict
 * as q/s; higher is better, as q/s). Only the tests whose records carry TPC-C-like figures are kept. With several
 * compared pairs (a ladder) their tables are one family under Benjamini–Hochberg, as the ladder's q/s tables are.
 */
import type { CellRecord } from "../model/results.ts";
import { jointFdr } from "./fdr.ts";
import type { RatioTable } from "./ratio-model.ts";

/** The tests with a NOPM figure in some record. */
export function nopmTests(records: readonly CellRecord[]): Set<string> {
  return new Set(records.filter((r) => typeof r.tpcc?.nopm === "number").map((r) => r.test));
}

/**
 * The NOPM tables built by `build` (one per compared pair or server), cut to the TPC-C-like tests of `records`; empty
 * when no record has a NOPM figure. The q-values are over every cell of these tables (the NOPM readings only).
 */
export function nopmTables(build: () => RatioTable[], records: readonly CellRecord[]): RatioTable[] {
  const tests = nopmTests(records);
  if (!tests.size) return [];
  const tables = build();
  const adjusted = tables.length > 1 ? jointFdr(tables) : tables;
  return adjusted.map((t) => ({ ...t, rows: t.rows.filter((r) => tests.has(r.test)) }));
}
