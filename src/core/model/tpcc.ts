/**
 * The TPC-C-like workload's figures and checks (scenarios/tpcc/: Lua scripts written from the TPC-C specification
 * 5.11; not TPC-C, which names audited results only). Pure: the SQL is run by the adapter, the rows come back here.
 *
 * Consistency conditions (clause 3.3.2), per warehouse and district:
 *   1. W_YTD = sum(D_YTD) of its districts
 *   2. D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) of the district
 *   3. max(NO_O_ID) - min(NO_O_ID) + 1 = the number of NEW-ORDER rows of the district
 *   4. sum(O_OL_CNT) = the number of ORDER-LINE rows of the district
 * New-orders per minute (NOPM) come from the districts' order counters (sum of D_NEXT_O_ID) before and after a
 * cell, as HammerDB reads them: committed New-Orders only, rolled-back ones never advance the counter.
 */

/** One row per warehouse: its year-to-date and its districts' sum. */
export const TPCC_WAREHOUSE_SQL =
  "SELECT w.w_id AS w_id, w.w_ytd AS w_ytd, SUM(d.d_ytd) AS d_ytd FROM warehouse w JOIN district d ON d.d_w_id = w.w_id GROUP BY w.w_id, w.w_ytd ORDER BY w.w_id";

/** One row per district: its order counter and the aggregates conditions 2 to 4 compare it with. */
export const TPCC_DISTRICT_SQL =
  "SELECT d.d_w_id AS w_id, d.d_id AS d_id, d.d_next_o_id AS next_o_id, " +
  "(SELECT MAX(o_id) FROM orders WHERE o_w_id = d.d_w_id AND o_d_id = d.d_id) AS max_o_id, " +
  "(SELECT MAX(no_o_id) FROM new_orders WHERE no_w_id = d.d_w_id AND no_d_id = d.d_id) AS max_no_o_id, " +
  "(SELECT MIN(no_o_id) FROM new_orders WHERE no_w_id = d.d_w_id AND no_d_id = d.d_id) AS min_no_o_id, " +
  "(SELECT COUNT(*) FROM new_orders WHERE no_w_id = d.d_w_id AND no_d_id = d.d_id) AS new_orders, " +
  "(SELECT COALESCE(SUM(o_ol_cnt), 0) FROM orders WHERE o_w_id = d.d_w_id AND o_d_id = d.d_id) AS ol_cnt_sum, " +
  "(SELECT COUNT(*) FROM order_line WHERE ol_w_id = d.d_w_id AND ol_d_id = d.d_id) AS order_lines " +
  "FROM district d ORDER BY d.d_w_id, d.d_id";

/** The sum of the districts' order counters: NOPM's reading. */
export const TPCC_ORDER_COUNTER_SQL = "SELECT COALESCE(SUM(d_next_o_id), 0) AS n FROM district";

type Num = number | string | null;

export interface WarehouseRow {
  w_id: Num;
  w_ytd: Num;
  d_ytd: Num;
}

export interface DistrictRow {
  w_id: Num;
  d_id: Num;
  next_o_id: Num;
  max_o_id: Num;
  max_no_o_id: Num;
  min_no_o_id: Num;
  new_orders: Num;
  ol_cnt_sum: Num;
  order_lines: Num;
}

/** A broken condition: its number and where. */
export interface ConditionFailure {
  condition: 1 | 2 | 3 | 4;
  detail: string;
}

/** A column as a number (MySQL returns DECIMAL and BIGINT as strings), null for NULL. */
const num = (v: Num): number | null => (v === null ? null : Number(v));

/** Conditions 1–4 over the rows; every district or warehouse that breaks one is a failure (none: consistent). */
export function checkTpccConsistency(
  warehouses: readonly WarehouseRow[],
  districts: readonly DistrictRow[],
): ConditionFailure[] {
  const out: ConditionFailure[] = [];
  if (!warehouses.length) out.push({ condition: 1, detail: "no warehouse rows (was the workload prepared?)" });
  for (const w of warehouses) {
    const a = num(w.w_ytd);
    const b = num(w.d_ytd);
    // DECIMAL(12,2) sums: equal to the cent.
    if (a === null || b === null || Math.round(a * 100) !== Math.round(b * 100))
      out.push({ condition: 1, detail: `warehouse ${w.w_id}: W_YTD ${w.w_ytd} ≠ sum(D_YTD) ${w.d_ytd}` });
  }
  for (const d of districts) {
    const at = `warehouse ${d.w_id} district ${d.d_id}`;
    const next = num(d.next_o_id);
    const maxO = num(d.max_o_id);
    const maxNo = num(d.max_no_o_id);
    const count = num(d.new_orders) ?? 0;
    // With every order delivered NEW-ORDER is empty: condition 2 then compares the counter with the orders only.
    if (next === null || maxO === null || next - 1 !== maxO || (count > 0 && maxNo !== maxO))
      out.push({
        condition: 2,
        detail: `${at}: D_NEXT_O_ID - 1 = ${next === null ? "NULL" : next - 1}, max(O_ID) = ${d.max_o_id ?? "NULL"}, max(NO_O_ID) = ${d.max_no_o_id ?? "NULL"}`,
      });
    const minNo = num(d.min_no_o_id);
    if (count > 0 && (maxNo === null || minNo === null || maxNo - minNo + 1 !== count))
      out.push({
        condition: 3,
        detail: `${at}: max(NO_O_ID) - min(NO_O_ID) + 1 = ${maxNo !== null && minNo !== null ? maxNo - minNo + 1 : "NULL"}, NEW-ORDER rows ${count}`,
      });
    if (num(d.ol_cnt_sum) !== num(d.order_lines))
      out.push({ condition: 4, detail: `${at}: sum(O_OL_CNT) = ${d.ol_cnt_sum}, ORDER-LINE rows ${d.order_lines}` });
  }
  return out;
}

/** One line for a cell's error: the conditions broken, the first place each broke, how many places in all. */
export function describeFailures(failures: readonly ConditionFailure[]): string {
  const by = new Map<number, ConditionFailure[]>();
  for (const f of failures) by.set(f.condition, [...(by.get(f.condition) ?? []), f]);
  return [...by.entries()]
    .sort(([a], [b]) => a - b)
    .map(
      ([c, fs]) =>
        `TPC-C-like consistency condition ${c} broken (${fs[0]!.detail}${fs.length > 1 ? `; ${fs.length - 1} more` : ""})`,
    )
    .join("; ");
}

/** New-orders per minute from the order counter before and after, over the cell's seconds. */
export function newOrdersPerMinute(before: number, after: number, seconds: number): number | null {
  if (!(seconds > 0) || !Number.isFinite(before) || !Number.isFinite(after) || after < before) return null;
  return ((after - before) * 60) / seconds;
}

/** The transaction mix the Lua threads print at their end ("twinbench.tpcc.mix thread=0 new_order=45 …"), summed. */
export function parseTpccMix(output: string): Record<string, number> | null {
  const sums: Record<string, number> = {};
  let seen = false;
  for (const line of output.split("\n")) {
    if (!line.startsWith("twinbench.tpcc.mix ")) continue;
    seen = true;
    for (const m of line.matchAll(/(\w+)=(\d+)/g))
      if (m[1] !== "thread") sums[m[1]!] = (sums[m[1]!] ?? 0) + Number(m[2]);
  }
  return seen ? sums : null;
}

/** The mix in percent of all transactions (rollbacks are New-Orders too and are not a type of their own). */
export function mixPercent(mix: Record<string, number>): Record<string, number> {
  const types = ["new_order", "payment", "order_status", "delivery", "stock_level"];
  const total = types.reduce((s, t) => s + (mix[t] ?? 0), 0);
  return Object.fromEntries(types.map((t) => [t, total ? (100 * (mix[t] ?? 0)) / total : 0]));
}

/** `{ tpcc: { mix } }` for a cell record when the output holds the TPC-C-like threads' counts, else nothing. */
export function tpccMixOf(output: string): { tpcc?: { mix: Record<string, number> } } {
  const mix = parseTpccMix(output);
  return mix ? { tpcc: { mix } } : {};
}
