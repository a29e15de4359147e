/**
 * The state of a measured cell (src/core/measure/cellstate.ts) on fixtures: backlog, warm state, bottleneck with its marks,
 * cost per query, the report's notes, and the ratio table's "no verdict" for load-bound cells.
 */
import { describe, expect, it } from "vitest";
import {
  COLD_POOL_READS,
  SATURATED_SHARE,
  backlogOf,
  bottleneckOf,
  cellStateNotes,
  cellStateOf,
  counterDelta,
  cpusetCores,
  perQueryOf,
  warmStateOf,
} from "../../../src/core/measure/cellstate.ts";
import { type CellCpu, type ServerStatus } from "../../../src/core/model/cell.ts";
import { ratioTableFromSides } from "../../../src/core/stats/ratio.ts";
import type { CellRecord } from "../../../src/core/model/results.ts";
import { cellRecord, sysbench } from "../../support/record.ts";

const st = (values: Record<string, number>, extra: Partial<ServerStatus> = {}): ServerStatus => ({
  values,
  historyLength: null,
  ...extra,
});
const cpu = (serverCores: number, loadCores: number, serverCpusetCores = 1, loadCpusetCores = 1): CellCpu => ({
  wallS: 7,
  serverCores,
  loadCores,
  serverCpusetCores,
  loadCpusetCores,
});
const noMarks = { ignoredErrors: 0, ignoredErrorsPerSec: 0, reconnects: 0, reconnectsPerSec: 0 };

describe("backlog at the start of a cell", () => {
  it("reads history length, dirty pages and pending I/O from the status; absent counters are null, not 0", () => {
    expect(
      backlogOf(
        st(
          {
            Innodb_buffer_pool_pages_dirty: 312,
            Innodb_data_pending_reads: 0,
            Innodb_data_pending_writes: 2,
            Innodb_data_pending_fsyncs: 1,
          },
          { historyLength: 1450 },
        ),
      ),
    ).toEqual({
      historyLength: 1450,
      dirtyPages: 312,
      pendingReads: 0,
      pendingWrites: 2,
      pendingFsyncs: 1,
    });
    expect(backlogOf(st({}))).toEqual({
      historyLength: null,
      dirtyPages: null,
      pendingReads: null,
      pendingWrites: null,
      pendingFsyncs: null,
    });
  });
});

describe("counter deltas", () => {
  it.each([
    [{ x: 10 }, { x: 25 }, 15],
    [{ x: 10 }, { x: 10 }, 0],
    [{ x: 10 }, { x: 3 }, null], // went down: a restart between the readings
    [{}, { x: 3 }, null],
    [{ x: 1 }, {}, null],
  ])("%o → %o gives %s", (a, b, want) => {
    expect(counterDelta(st(a), st(b), "x")).toBe(want);
  });
});

describe("warm-state check", () => {
  const before = (reads: number, sizes: Partial<ServerStatus> = { dataBytes: 2e6, poolBytes: 128e6 }) =>
    st({ Innodb_buffer_pool_reads: reads, Innodb_buffer_pool_read_requests: 1000 }, sizes);
  it.each([
    ["a warm pool that fits", before(50), 50 + 3, { diskReads: 3, fits: true, cold: false }],
    [
      "exactly the threshold is still warm",
      before(0),
      COLD_POOL_READS,
      { diskReads: COLD_POOL_READS, fits: true, cold: false },
    ],
    [
      "a pool that fits but reads from disk is cold",
      before(0),
      COLD_POOL_READS + 1,
      { diskReads: COLD_POOL_READS + 1, fits: true, cold: true },
    ],
    [
      "data larger than the pool reads from disk by design: not cold",
      before(0, { dataBytes: 4e9, poolBytes: 128e6 }),
      5000,
      { fits: false, cold: false },
    ],
    ["unknown sizes: not judged", before(0, {}), 5000, { fits: null, cold: false }],
  ])("%s", (_, b, afterReads, want) => {
    const after = st({ Innodb_buffer_pool_reads: afterReads, Innodb_buffer_pool_read_requests: 1800 });
    expect(warmStateOf(b, after)).toMatchObject({ readRequests: 800, ...want });
  });
});

describe("bottleneck", () => {
  it.each([
    ["load saturated, server not: load", cpu(0.55, 0.97), "load"],
    ["load exactly at the share: load", cpu(0.5, SATURATED_SHARE), "load"],
    ["server saturated: server", cpu(0.99, 0.6), "server"],
    ["both saturated: the server's ceiling counts", cpu(0.95, 0.95), "server"],
    ["neither (a 1-thread cell waiting on round trips)", cpu(0.45, 0.3), "neither"],
    ["4-core server at 2 cores, 1-core load at 0.93: load", cpu(2, 0.93, 4, 1), "load"],
    ["2-core load at 1 core: not saturated", cpu(0.5, 1, 1, 2), "neither"],
  ])("%s", (_, c, kind) => {
    expect(bottleneckOf(c, noMarks).kind).toBe(kind);
  });

  it("gives the utilisations in % of each cpuset", () => {
    expect(bottleneckOf(cpu(2, 0.93, 4, 1), noMarks)).toEqual({
      kind: "load",
      serverUtilPct: 50,
      loadUtilPct: 93,
      marks: [],
    });
  });

  it("marks ignored errors and reconnects with their rates", () => {
    expect(
      bottleneckOf(cpu(0.5, 0.5), { ignoredErrors: 21, ignoredErrorsPerSec: 3, reconnects: 2, reconnectsPerSec: 0.29 })
        .marks,
    ).toEqual(["ignored errors 3.00/s (21)", "reconnects 0.29/s (2)"]);
    expect(bottleneckOf(cpu(0.5, 0.5), null).marks).toEqual([]);
  });
});

describe("cost per query", () => {
  const before = st({
    Innodb_rows_read: 1000,
    Innodb_pages_read: 10,
    Innodb_pages_written: 100,
    Innodb_os_log_written: 5000,
    Innodb_data_fsyncs: 7,
  });
  const after = st({
    Innodb_rows_read: 3000,
    Innodb_pages_read: 10,
    Innodb_pages_written: 300,
    Innodb_os_log_written: 405000,
    Innodb_data_fsyncs: 207,
  });
  it("divides InnoDB's work by the queries and CPU cores by q/s", () => {
    const pq = perQueryOf({ before, after, cpu: cpu(0.8, 0.4), metrics: { queries: 2000, qps: 400 } })!;
    expect(pq).toEqual({
      queries: 2000,
      rowsRead: 1,
      pagesRead: 0,
      pagesWritten: 0.1,
      logBytes: 200,
      fsyncs: 0.1,
      counters: { rowsRead: "Innodb_rows_read", logBytes: "Innodb_os_log_written" },
      serverCpuUs: 2000,
      clientCpuUs: 1000,
    });
    // CPU per query × q/s is the cores the container used.
    expect((pq.serverCpuUs! * 400) / 1e6).toBeCloseTo(0.8, 12);
  });

  it("falls back to Rows_read (MariaDB 11.8 has no Innodb_rows_read) and to the LSN's advance", () => {
    const pq = perQueryOf({
      before: st({ Innodb_lsn_current: 100, Rows_read: 5 }),
      after: st({ Innodb_lsn_current: 20100, Rows_read: 105 }),
      metrics: { queries: 100, qps: 10 },
    })!;
    expect(pq.logBytes).toBe(200);
    expect(pq.rowsRead).toBe(1);
    expect(pq.counters).toEqual({ rowsRead: "Rows_read", logBytes: "Innodb_lsn_current" });
    expect(pq.serverCpuUs).toBeNull();
  });

  it("has no figures without queries, and null figures without readings", () => {
    expect(perQueryOf({ before, after, metrics: { queries: 0, qps: 0 } })).toBeNull();
    expect(perQueryOf({ before, after, metrics: null })).toBeNull();
    expect(perQueryOf({ metrics: { queries: 10, qps: 5 } })).toEqual({
      queries: 10,
      rowsRead: null,
      pagesRead: null,
      pagesWritten: null,
      logBytes: null,
      fsyncs: null,
      counters: { rowsRead: null, logBytes: null },
      serverCpuUs: null,
      clientCpuUs: null,
    });
  });

  it("cellStateOf leaves out what was not read and keeps the failures", () => {
    expect(cellStateOf({ metrics: null })).toEqual({});
    expect(cellStateOf({ metrics: null, errors: ["server status after the cell: gone"] })).toEqual({
      errors: ["server status after the cell: gone"],
    });
    expect(Object.keys(cellStateOf({ before, after, cpu: cpu(0.5, 0.5), metrics: null })).sort()).toEqual([
      "backlog",
      "bottleneck",
      "cpu",
      "warm",
    ]);
  });
});

describe("cpuset cores", () => {
  it.each([
    ["0", 1],
    ["1", 1],
    ["0-3", 4],
    ["0,2-3", 3],
    ["0-1,4,6-7", 5],
    ["3-1", null],
    ["a", null],
    ["", null],
  ] as const)("%s → %s", (v, n) => {
    expect(cpusetCores(v)).toBe(n);
  });
});

function rec(
  server: string,
  repeat: number,
  qps: number,
  kind: "load" | "server" | "neither" | null,
  startedAt: string,
): CellRecord {
  return cellRecord({
    server,
    test: "oltp_point_select",
    repeat,
    metrics: sysbench({ qps, tps: qps }),
    startedAt,
    endedAt: startedAt,
    ...(kind
      ? {
          state: {
            backlog: { historyLength: 3, dirtyPages: repeat, pendingReads: 0, pendingWrites: 0, pendingFsyncs: 0 },
            bottleneck: { kind, serverUtilPct: 50, loadUtilPct: kind === "load" ? 97 : 50, marks: [] },
          },
        }
      : {}),
  });
}

describe("load-bound cells in the report", () => {
  const sides = (kinds: Array<"load" | "neither">) => {
    const a = kinds.map((k, i) => rec("a", i + 1, 1000 + 37 * ((i * 7) % 5), k, `2026-12-02T10:00:0${2 * i}Z`));
    const b = kinds.map((k, i) => rec("b", i + 1, 900 + 23 * ((i * 3) % 5), k, `2026-12-02T10:00:0${2 * i + 1}Z`));
    return ratioTableFromSides(
      { id: "a", label: "A", records: a },
      { id: "b", label: "B", records: b },
      ["oltp_point_select"],
      [1],
    );
  };
  it("a cell whose repeats are mostly load-bound keeps its estimate but gets no verdict", () => {
    const c = sides(["load", "load", "load", "neither"]).rows[0]!.cells[0]!;
    expect(c).toMatchObject({ loadBound: true, verdict: "unknown", reason: "load-bound" });
    expect(c.estimate).not.toBeNull();
  });
  it("a few load-bound repeats do not take the verdict away", () => {
    const t = sides(["load", "neither", "neither", "neither"]);
    const c = t.rows[0]!.cells[0]!;
    expect(c.loadBound).toBe(false);
    expect(c.verdict).toBe("faster");
    expect(t.method.verdicts).toBe(1);
    expect(sides(["load", "load", "load", "load"]).method.verdicts).toBe(0);
  });

  it("the notes give the backlog per server, the load-bound cells, the marks, cold cells and failed readings", () => {
    const rs = [rec("a", 1, 10, "load", "t"), rec("a", 2, 10, "neither", "t"), rec("b", 1, 10, "neither", "t")];
    rs[2]!.state!.bottleneck!.marks = ["reconnects 0.50/s (3)"];
    rs[1]!.state!.warm = { diskReads: 900, readRequests: 1e5, fits: true, cold: true };
    rs[1]!.state!.errors = ["server status after the cell: gone"];
    const pq = (serverCpuUs: number) => ({
      queries: 100,
      rowsRead: 1,
      pagesRead: 0,
      pagesWritten: 0.01,
      logBytes: 412.4,
      fsyncs: 1,
      counters: { rowsRead: "Rows_read", logBytes: "Innodb_os_log_written" },
      serverCpuUs,
      clientCpuUs: 20,
    });
    rs[0]!.state!.perQuery = pq(30);
    rs[1]!.state!.perQuery = { ...pq(40), logBytes: null };
    expect(cellStateNotes(rs)).toEqual([
      "Backlog at the start of a's 2 measured cells: history length 3, dirty pages 1–2, pending reads/writes/fsyncs 0/0/0.",
      "Backlog at the start of b's 1 measured cell: history length 3, dirty pages 1, pending reads/writes/fsyncs 0/0/0.",
      "Bottleneck of the measured cells (cgroup CPU against the cpuset or CPU quota, saturated at ≥ 90%): a: server 0, load 1, neither 1; b: server 0, load 0, neither 1.",
      `Cold pool: 1 cell read more than ${COLD_POOL_READS} pages from disk although the data fits in the buffer pool: a oltp_point_select t1 r2 (900 reads).`,
      "Load-bound: 1 cell where sysbench used ≥ 90% of its cores (its cpuset, or its CPU quota when smaller) and the server less: a oltp_point_select t1 r1 (load 97%, server 50%). A ratio cell whose repeats are mostly load-bound gets no verdict.",
      "Errors or reconnects in 1 cell: b oltp_point_select t1 r1 (reconnects 0.50/s (3)).",
      "State readings failed in 1 cell: a oltp_point_select t1 r2 (server status after the cell: gone).",
    ]);
    expect(cellStateNotes([rec("a", 1, 10, null, "t")])).toEqual([]);
  });
});

describe("ignored errors and reconnects mark the cell", () => {
  it("a repeat with reconnects makes its ratio cell unstable (mark !), naming the rate; none: no mark", () => {
    const a = [1, 2, 3].map((i) => rec("a", i, 1000 + 10 * i, null, `2026-12-02T10:00:0${2 * i}Z`));
    const b = [1, 2, 3].map((i) => rec("b", i, 950 + 7 * i, null, `2026-12-02T10:00:0${2 * i + 1}Z`));
    const clean = ratioTableFromSides(
      { id: "a", label: "A", records: a },
      { id: "b", label: "B", records: b },
      ["oltp_point_select"],
      [1],
    );
    expect(clean.rows[0]!.cells[0]!.unstable).toEqual([]);
    b[1]!.metrics = {
      ...b[1]!.metrics!,
      reconnects: 3,
      reconnectsPerSec: 0.5,
      ignoredErrors: 0,
      ignoredErrorsPerSec: 0,
    };
    const marked = ratioTableFromSides(
      { id: "a", label: "A", records: a },
      { id: "b", label: "B", records: b },
      ["oltp_point_select"],
      [1],
    );
    expect(marked.rows[0]!.cells[0]!.unstable).toEqual(["b repeat 2 had reconnects 0.50/s (3)"]);
  });
});
