/** The TPC-C-like checks around a measured cell: new-orders per minute, and a broken condition fails the cell. */
import { describe, expect, it } from "vitest";
import { withTpccChecks } from "../../../../src/app/run/tpcc.ts";
import type { LabServer } from "../../../../src/app/lab-server.ts";
import type { Cell, CellRecord } from "../../../../src/core/model/results.ts";
import { cellRecord } from "../../../support/record.ts";
import { scenario } from "../../../support/scenario.ts";
import { stageContext } from "../../../support/run-context.ts";

const cell = { test: "tpcc", threads: 1 } as Cell;
const server = { rootEndpoint: () => ({}) } as unknown as LabServer;
const district = { w_id: 1, d_id: 1, next_o_id: 3001, max_o_id: 3000, max_no_o_id: 3000, min_no_o_id: 2101 };
const good = { ...district, new_orders: 900, ol_cnt_sum: "30000", order_lines: 30000 };

function ctxWith(rows: { districts: object[] }, checks?: string) {
  const sc = scenario();
  const withScripts = {
    ...sc,
    workload: { ...sc.workload, scripts: checks ? { tpcc: { path: "tpcc/", writes: true, checks } } : undefined },
  };
  let n = 0;
  const queryRows = async (_ep: unknown, _db: string, sql: string) => {
    if (/o_id|next/i.test(sql) && !/district/i.test(sql.split("FROM")[1] ?? "")) return [{ n: n++ === 0 ? 100 : 160 }];
    if (/warehouse/i.test(sql)) return [{ w_id: 1, w_ytd: "1.00", d_ytd: "1.00" }];
    return rows.districts;
  };
  return stageContext({ scenario: withScripts as never, deps: { probe: { queryRows } as never } }).ctx;
}

const ok = (): Promise<CellRecord> => Promise.resolve(cellRecord({ status: "ok" }));

describe("withTpccChecks", () => {
  it("a test without checks: the cell as measured, no query", async () => {
    const ctx = ctxWith({ districts: [good] });
    const rec = await withTpccChecks(ctx, server, cell, ok);
    expect(rec.tpcc).toBeUndefined();
  });

  it("a broken condition fails the cell and names it", async () => {
    const ctx = ctxWith({ districts: [{ ...good, next_o_id: 3002 }] }, "tpcc");
    const rec = await withTpccChecks(ctx, server, cell, ok);
    expect(rec.status).toBe("failed");
    expect(rec.error).toMatch(/condition 2/);
  });

  it("a failed cell is returned as it is, with no checks after it", async () => {
    const ctx = ctxWith({ districts: [good] }, "tpcc");
    const rec = await withTpccChecks(ctx, server, cell, () => Promise.resolve(cellRecord({ status: "failed" })));
    expect(rec.status).toBe("failed");
    expect(rec.tpcc).toBeUndefined();
  });
});
