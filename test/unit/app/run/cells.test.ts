/**
 * The cells stage with a fake scheduler, servers and sidecar: the order of work around each cell (focus, restore,
 * warm-up, measure), retries, --fail-fast, new instances and the re-run of a disturbed pair.
 */
import { describe, expect, it } from "vitest";
import { CellLoop, type CellTally } from "../../../../src/app/run/cells.ts";
import type { Scheduler } from "../../../../src/app/run/scheduler.ts";
import type { Servers } from "../../../../src/app/run/servers.ts";
import type { Sidecar } from "../../../../src/app/run/sidecar.ts";
import type { RunOptions } from "../../../../src/app/run/types.ts";
import type { Cell, CellRecord } from "../../../../src/core/model/results.ts";
import { cellRecord } from "../../../support/record.ts";
import { plainLine } from "../../../../src/cli/plain.ts";
import type { RunEvent } from "../../../../src/core/model/events.ts";
import { memorySession, stageContext } from "../../../support/run-context.ts";
import { scenario } from "../../../support/scenario.ts";

const cell = (server: string, test: string, repeat: number, instance?: number): Cell => ({
  index: 0,
  key: `${server}/${test}/1/${repeat}`,
  server,
  test,
  script: test,
  threads: 1,
  repeat,
  ...(instance === undefined ? {} : { instance }),
});

/** Rounds given in turn, then none; what each call was given. */
function rounds(...list: Cell[][]): Scheduler {
  return { nextRound: () => list.shift() ?? [] };
}

/**
 * A cell loop over fakes. `answer(cell, phase, attempt)` gives a record's status and extras (default: ok). Returns
 * the loop, the log of what it did, the tally and the in-memory session.
 */
function loop(
  workload: object,
  answer: (c: Cell, phase: string, attempt: number) => Partial<CellRecord> = () => ({}),
  opts: Partial<RunOptions> & { oomKilled?: string[] } = {},
) {
  const s = scenario({
    workload: { tests: ["oltp_point_select"], threads: [1], duration: "2s", repeats: 2, ...workload },
  });
  const { ctx, events, warnings } = stageContext({ scenario: s, opts });
  const mem = memorySession();
  const log: string[] = [];
  const byId = new Map(
    ["a", "b"].map((id) => [
      id,
      {
        id,
        init: { id, memoryBytes: 1 << 30, storage: { kind: "tmpfs", size: "1g" } },
        oomKilled: async () => opts.oomKilled?.includes(id) ?? false,
        isRunning: async () => true,
        assertAnswers: async (after: string) => void log.push(`answers ${id} ${after}`),
      },
    ]),
  );
  const servers = {
    byId,
    get: (id: string) => byId.get(id),
    focus: async (s: { id: string }) => void log.push(`focus ${s.id}`),
    restoreSnapshot: async (s: { id: string }, test: string) => void log.push(`restore ${s.id} ${test}`),
    newInstance: async (i: number) => void log.push(`instance ${i}`),
    recoverIfDead: async (s: { id: string }, _c: Cell, _sc: unknown, o: { lost: boolean }) => {
      log.push(`recover ${s.id}${o.lost ? " lost" : ""}`);
      return o.lost;
    },
  } as unknown as Servers;
  const sidecar = {
    cell: async (_s: unknown, c: Cell, phase: string, _secs?: number, attempt = 1) => {
      log.push(`${phase} ${c.key}${attempt > 1 ? ` #${attempt}` : ""}`);
      return cellRecord({
        key: c.key,
        server: c.server,
        test: c.test,
        threads: c.threads,
        repeat: c.repeat,
        phase: phase as never,
        attempt,
        ...answer(c, phase, attempt),
      });
    },
  } as unknown as Sidecar;
  const tally: CellTally = { ok: 0, failed: 0 };
  return { loop: new CellLoop(ctx, mem.session, servers, sidecar, tally), log, tally, events, warnings, mem };
}

describe("CellLoop", () => {
  it.each([
    [
      "a read test: warmed up once per server and test, never restored",
      "oltp_point_select",
      [
        "focus a",
        "warmup a/oltp_point_select/warmup",
        "measure a/oltp_point_select/1/1",
        "focus b",
        "warmup b/oltp_point_select/warmup",
        "measure b/oltp_point_select/1/1",
        "focus a",
        "measure a/oltp_point_select/1/2",
        "focus b",
        "measure b/oltp_point_select/1/2",
      ],
    ],
    [
      "a write test with fresh: per-test: restored before its first cell on each server, then warmed up",
      "oltp_insert",
      [
        "focus a",
        "restore a oltp_insert",
        "warmup a/oltp_insert/warmup",
        "measure a/oltp_insert/1/1",
        "focus b",
        "restore b oltp_insert",
        "warmup b/oltp_insert/warmup",
        "measure b/oltp_insert/1/1",
        "focus a",
        "measure a/oltp_insert/1/2",
        "focus b",
        "measure b/oltp_insert/1/2",
      ],
    ],
  ])("%s", async (_, test, want) => {
    const { loop: l, log, tally, mem } = loop({ tests: [test], warmup: "1s", fresh: "per-test" });
    await l.run(rounds([cell("a", test, 1), cell("b", test, 1)], [cell("a", test, 2), cell("b", test, 2)]));
    expect(log).toEqual(want);
    expect(tally).toEqual({ ok: 4, failed: 0 });
    expect(mem.state.appended.map((r) => `${r.phase} ${r.key}`)).toEqual(
      want.filter((x) => /^(warmup|measure) /.test(x)),
    );
    expect(mem.state.saves).toBe(4);
  });

  it.each([
    ["a live server: retried at once", "sysbench said no", ["measure a/t/1/1", "recover a", "measure a/t/1/1 #2"]],
    [
      "a lost server: restarted, warmed up again, then retried",
      "Lost connection to MySQL server",
      ["measure a/t/1/1", "recover a lost", "warmup a/t/warmup", "measure a/t/1/1 #2"],
    ],
  ])("a failed cell, %s", async (_, error, tail) => {
    const {
      loop: l,
      log,
      tally,
      events,
    } = loop({ tests: ["oltp_point_select"], warmup: "1s" }, (_c, phase, attempt) =>
      phase === "measure" && attempt === 1 ? { status: "failed", error } : {},
    );
    await l.run(rounds([{ ...cell("a", "oltp_point_select", 1), key: "a/t/1/1", test: "t" }]));
    expect(log).toEqual(["focus a", "warmup a/t/warmup", ...tail]);
    expect(tally).toEqual({ ok: 1, failed: 0 });
    expect(
      events
        .filter((e) => e.type === "cell-failed" || e.type === "cell-finished")
        .map((e) => [e.type, "retry" in e ? e.retry : undefined]),
    ).toEqual([
      ["cell-failed", 2],
      ["cell-finished", undefined],
    ]);
  });

  it.each([
    ["--retries 0: counted failed, the run goes on", { retries: 0 }, undefined, { ok: 1, failed: 1 }],
    ["--fail-fast: the run stops", { retries: 0, failFast: true }, "CELL_FAILED", { ok: 0, failed: 1 }],
  ] as Array<[string, Partial<RunOptions>, string | undefined, CellTally]>)("%s", async (_, opts, code, tally) => {
    const l = loop({}, (c) => (c.server === "a" ? { status: "failed", error: "boom" } : {}), opts);
    const run = l.loop.run(rounds([cell("a", "oltp_point_select", 1), cell("b", "oltp_point_select", 1)]));
    if (code) await expect(run).rejects.toMatchObject({ code, message: "cell a/oltp_point_select/1/1 failed: boom" });
    else await run;
    expect(l.tally).toEqual(tally);
  });

  it("an OOM-killed server: its failed cell is named as such and not retried", async () => {
    const l = loop({}, (c) => (c.server === "a" ? { status: "failed", error: "lost connection" } : {}), {
      retries: 2,
      oomKilled: ["a"],
    });
    await l.loop.run(rounds([cell("a", "oltp_point_select", 1)]));
    const failed = l.events.filter((e) => e.type === "cell-failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]).not.toHaveProperty("retry");
    expect(failed[0]).toMatchObject({
      record: {
        serverOomKilled: true,
        error: "server a was OOM-killed at its memory limit of 1 GiB: lost connection",
      },
    });
    expect(l.tally).toEqual({ ok: 0, failed: 1 });
  });

  it("a full data dir: its failed cell is named as such, with a hint, and not retried", async () => {
    const error = "mysql_drv_query() returned error 1114 (The table 'sbtest1' is full) for query 'INSERT ...'";
    const l = loop({}, (c) => (c.server === "a" ? { status: "failed", error } : {}), { retries: 2 });
    await l.loop.run(rounds([cell("a", "oltp_point_select", 1), cell("b", "oltp_point_select", 1)]));
    const failed = l.events.filter((e) => e.type === "cell-failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]).not.toHaveProperty("retry");
    expect(failed[0]).toMatchObject({
      record: {
        errorCode: "SERVER_DATA_DIR_FULL",
        error: `server a's data dir (a tmpfs of 1g) is full: ${error}`,
        hint: expect.stringMatching(/^enlarge the tmpfs \(storage\.size, now 1g/),
      },
    });
    // The plain progress line names the code and gives the hint.
    expect(plainLine(failed[0] as RunEvent)).toMatch(
      /^ {2}failed: a\/oltp_point_select\/1\/1: server a's data dir .* is full: .* \[SERVER_DATA_DIR_FULL\]\n {4}hint: enlarge the tmpfs/,
    );
    expect(l.log.filter((x) => x.startsWith("measure a/"))).toEqual(["measure a/oltp_point_select/1/1"]);
    expect(l.tally).toEqual({ ok: 1, failed: 1 });
  });

  it("a cell stopped at its limit: the server must answer before the loop goes on", async () => {
    const l = loop({}, (c, _p, attempt) =>
      c.server === "a" && attempt === 1
        ? { status: "failed", error: "cell ran past its limit of 63 s and was stopped" }
        : {},
    );
    await l.loop.run(rounds([cell("a", "oltp_point_select", 1)]));
    expect(l.log).toContain("answers a after cell a/oltp_point_select/1/1 ran past its limit");
  });

  it("a new instance restarts every server once; a write test right after needs no restore of its own", async () => {
    const { loop: l, log } = loop({ tests: ["oltp_insert"], fresh: "per-test", warmup: "0s" });
    await l.run(
      rounds(
        [cell("a", "oltp_insert", 1, 1), cell("b", "oltp_insert", 1, 1)],
        [cell("a", "oltp_insert", 2, 2), cell("b", "oltp_insert", 2, 2)],
      ),
    );
    expect(log).toEqual([
      "focus a",
      "restore a oltp_insert",
      "measure a/oltp_insert/1/1",
      "focus b",
      "restore b oltp_insert",
      "measure b/oltp_insert/1/1",
      "instance 2",
      "focus a",
      "measure a/oltp_insert/1/2",
      "focus b",
      "measure b/oltp_insert/1/2",
    ]);
  });

  it("a disturbed pair is run once more, in the same order, and the tally counts the re-run only", async () => {
    const disturbed = { interference: { disturbed: true, reasons: ["load 3"] } as never };
    const {
      loop: l,
      log,
      tally,
      warnings,
    } = loop({ rerunDisturbed: true }, (c, _p, attempt) => (c.server === "b" && attempt === 1 ? disturbed : {}));
    await l.run(rounds([cell("a", "oltp_point_select", 1), cell("b", "oltp_point_select", 1)]));
    expect(log.filter((x) => x.startsWith("measure"))).toEqual([
      "measure a/oltp_point_select/1/1",
      "measure b/oltp_point_select/1/1",
      "measure a/oltp_point_select/1/1 #2",
      "measure b/oltp_point_select/1/1 #2",
    ]);
    expect(tally).toEqual({ ok: 2, failed: 0 });
    expect(warnings()).toEqual(["oltp_point_select t1 r1 was disturbed (b: load 3): running the pair once more"]);
  });

  it("a pair whose second cell ran at another CPU speed is disturbed, re-run, and the re-run compared with its own first cell", async () => {
    const quiet = (workUs: number) => ({
      stealPct: 0,
      psiCpuSomePct: 0,
      outsiderCores: 0,
      cpuSpeed: { workUs, fastestUs: workUs, slowestUs: workUs, samples: 28, cpus: [1] },
      disturbed: false,
      reasons: [],
    });
    // b's first attempt runs 1.4× slower than a's (the host took its core); the re-run's two cells agree.
    const speed = (c: Cell, attempt: number) => (c.server === "b" && attempt === 1 ? 140 : 100);
    const {
      loop: l,
      log,
      mem,
      warnings,
    } = loop({ rerunDisturbed: true }, (c, _p, attempt) => ({
      interference: quiet(speed(c, attempt)),
    }));
    await l.run(rounds([cell("a", "oltp_point_select", 1), cell("b", "oltp_point_select", 1)]));
    expect(log.filter((x) => x.startsWith("measure"))).toEqual([
      "measure a/oltp_point_select/1/1",
      "measure b/oltp_point_select/1/1",
      "measure a/oltp_point_select/1/1 #2",
      "measure b/oltp_point_select/1/1 #2",
    ]);
    const measured = mem.state.appended.filter((r) => r.phase === "measure");
    expect(
      measured.map((r) => [r.server, r.attempt, r.interference?.disturbed, r.interference?.speedMismatch]),
    ).toEqual([
      ["a", 1, false, undefined],
      ["b", 1, true, 1.4],
      ["a", 2, false, undefined],
      ["b", 2, false, undefined],
    ]);
    expect(warnings()).toEqual([
      "oltp_point_select t1 r1 was disturbed (b: the server's CPU ran 1.4× slower than in a's cell of this pair (threshold 1.15×)): running the pair once more",
    ]);
  });
});
