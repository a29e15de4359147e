/**
 * The TPC-C-like workload's checks around a measured cell (a custom test with `checks: tpcc`): the districts' order
 * counter before and after (new-orders per minute), and after the cell the consistency conditions 1–4 on the
 * cell's server. A broken condition fails the cell and names it (core/model/tpcc.ts).
 */
import type { Cell, CellRecord } from "../../core/model/results.ts";
import {
  TPCC_DISTRICT_SQL,
  TPCC_ORDER_COUNTER_SQL,
  TPCC_WAREHOUSE_SQL,
  checkTpccConsistency,
  describeFailures,
  newOrdersPerMinute,
  type DistrictRow,
  type WarehouseRow,
} from "../../core/model/tpcc.ts";
import type { LabServer } from "../lab-server.ts";
import { BENCH_DB } from "../lab-server-init.ts";
import type { RunContext } from "./context.ts";

/** Run `measure` (one measured cell); with `checks: tpcc`, read and check the TPC-C-like figures around it. */
export async function withTpccChecks(
  ctx: RunContext,
  server: LabServer,
  cell: Cell,
  measure: () => Promise<CellRecord>,
): Promise<CellRecord> {
  const query = ctx.probe.queryRows;
  if (ctx.scenario.workload.scripts?.[cell.test]?.checks !== "tpcc" || !query) return measure();
  const ep = server.rootEndpoint();
  const counter = async () => Number((await query(ep, BENCH_DB, TPCC_ORDER_COUNTER_SQL))[0]?.n ?? NaN);
  const before = await counter();
  const rec = await measure();
  if (rec.status !== "ok") return rec;
  const after = await counter();
  const warehouses = (await query(ep, BENCH_DB, TPCC_WAREHOUSE_SQL)) as unknown as WarehouseRow[];
  const districts = (await query(ep, BENCH_DB, TPCC_DISTRICT_SQL)) as unknown as DistrictRow[];
  const failures = checkTpccConsistency(warehouses, districts);
  const seconds = rec.metrics?.totalTime ?? 0;
  const tpcc = {
    ...rec.tpcc,
    nopm: newOrdersPerMinute(before, after, seconds),
    tpm: rec.metrics?.tps != null ? rec.metrics.tps * 60 : null,
    conditions: failures.length ? failures.map((f) => f.condition) : ("pass" as const),
  };
  if (failures.length) return { ...rec, status: "failed", error: describeFailures(failures), tpcc };
  return { ...rec, tpcc };
}
