import { describe, expect, it } from "vitest";
import {
  checkTpccConsistency,
  describeFailures,
  mixPercent,
  newOrdersPerMinute,
  parseTpccMix,
  type DistrictRow,
} from "../../../src/core/model/tpcc.ts";

/** A consistent district after the load: orders 1..3000, 2101..3000 undelivered, 10 lines per order. */
const district = (over: Partial<DistrictRow> = {}): DistrictRow => ({
  w_id: 1,
  d_id: 1,
  next_o_id: 3001,
  max_o_id: 3000,
  max_no_o_id: 3000,
  min_no_o_id: 2101,
  new_orders: 900,
  ol_cnt_sum: "30000",
  order_lines: 30000,
  ...over,
});
const wh = [{ w_id: 1, w_ytd: "300123.45", d_ytd: "300123.45" }];

describe("TPC-C-like consistency conditions 1-4", () => {
  it("a consistent database breaks none (MySQL's DECIMAL and BIGINT strings read as numbers)", () => {
    expect(checkTpccConsistency(wh, [district(), district({ d_id: 2 })])).toEqual([]);
  });

  it("condition 1: W_YTD against the districts' sum, to the cent", () => {
    const f = checkTpccConsistency([{ w_id: 1, w_ytd: "300000.00", d_ytd: "300000.01" }], [district()]);
    expect(f).toEqual([{ condition: 1, detail: "warehouse 1: W_YTD 300000.00 ≠ sum(D_YTD) 300000.01" }]);
    expect(checkTpccConsistency([], [district()])[0]).toMatchObject({ condition: 1 });
  });

  it("condition 2: the order counter against the last order and the last new-order", () => {
    expect(checkTpccConsistency(wh, [district({ next_o_id: 3002 })]).map((f) => f.condition)).toEqual([2]);
    expect(
      checkTpccConsistency(wh, [district({ max_no_o_id: 2999, new_orders: 899 })]).map((f) => f.condition),
    ).toEqual([2]);
    // Every order delivered: an empty NEW-ORDER table is consistent.
    expect(checkTpccConsistency(wh, [district({ max_no_o_id: null, min_no_o_id: null, new_orders: 0 })])).toEqual([]);
  });

  it("condition 3: the new-order range against its row count", () => {
    const f = checkTpccConsistency(wh, [district({ new_orders: 899 })]);
    expect(f).toEqual([
      { condition: 3, detail: "warehouse 1 district 1: max(NO_O_ID) - min(NO_O_ID) + 1 = 900, NEW-ORDER rows 899" },
    ]);
  });

  it("condition 4: the orders' line counts against the order lines", () => {
    expect(checkTpccConsistency(wh, [district({ order_lines: 29999 })])).toEqual([
      { condition: 4, detail: "warehouse 1 district 1: sum(O_OL_CNT) = 30000, ORDER-LINE rows 29999" },
    ]);
  });

  it("says each broken condition once, with its first place and how many more", () => {
    const f = checkTpccConsistency(wh, [
      district({ order_lines: 1 }),
      district({ d_id: 2, order_lines: 2 }),
      district({ d_id: 3, new_orders: 5 }),
    ]);
    expect(describeFailures(f)).toBe(
      "TPC-C-like consistency condition 3 broken (warehouse 1 district 3: max(NO_O_ID) - min(NO_O_ID) + 1 = 900, NEW-ORDER rows 5); " +
        "TPC-C-like consistency condition 4 broken (warehouse 1 district 1: sum(O_OL_CNT) = 30000, ORDER-LINE rows 1; 1 more)",
    );
  });
});

describe("TPC-C-like figures", () => {
  it("new-orders per minute from the order counter", () => {
    expect(newOrdersPerMinute(30010, 30110, 30)).toBe(200);
    expect(newOrdersPerMinute(30010, 30110, 0)).toBeNull();
    expect(newOrdersPerMinute(30110, 30010, 30)).toBeNull();
  });

  it("the mix the Lua threads print, summed over threads and in percent", () => {
    const out = [
      "SQL statistics:",
      "twinbench.tpcc.mix thread=0 new_order=45 payment=43 order_status=4 delivery=4 stock_level=4 rollback=1",
      "twinbench.tpcc.mix thread=1 new_order=90 payment=86 order_status=8 delivery=8 stock_level=8 rollback=0",
    ].join("\n");
    const mix = parseTpccMix(out)!;
    expect(mix).toEqual({ new_order: 135, payment: 129, order_status: 12, delivery: 12, stock_level: 12, rollback: 1 });
    expect(mixPercent(mix)).toEqual({ new_order: 45, payment: 43, order_status: 4, delivery: 4, stock_level: 4 });
    expect(parseTpccMix("no mix here")).toBeNull();
  });
});
