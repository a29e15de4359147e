/**
 * Drives app/run.ts through fakes of every port (engine, storage, probes, images): no Docker. Checks the order of
 * work, the events, the results folder, failure handling, cancellation, resume and teardown.
 */
import { describe, expect, it, vi } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { scenario as scenarioOf, type ScenarioOverrides } from "../../support/scenario.ts";
import { mkdtemp, readFile, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runScenario, type RunDeps, type Scheduler } from "../../../src/app/run.ts";
import { TwinbenchError } from "../../../src/core/base/errors.ts";
import type { ContainerPort, ContainerSpec } from "../../../src/core/model/engine/containers.ts";
import type { StorageProvider, ProvisionedStorage } from "../../../src/adapters/storage/types.ts";
import type { Probe } from "../../../src/adapters/mysql/probe.ts";
import { type Scenario } from "../../../src/core/model/scenario/schema.ts";
import type { RunEvent } from "../../../src/core/model/events.ts";
import type { Cell, CellRecord, RunManifest } from "../../../src/core/model/results.ts";
import { parseSysbench } from "../../../src/core/model/sysbench/parse.ts";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { renderText } from "../../../src/core/report/text.ts";
import { normalFrom, seededRandom } from "../../../src/core/base/random.ts";
import { NO_CALIBRATION } from "../../../src/core/plan/forecast.ts";
import type { Calibration } from "../../../src/core/plan/calibration/schema.ts";
import type { CalibrationStore } from "../../../src/adapters/calibration-store.ts";
import { plainLine } from "../../../src/cli/plain.ts";
import { initialState, reduce } from "../../../src/tui/state.ts";
import { adaptiveLines } from "../../../src/tui/components.tsx";
import { FakeEngine as SupportFakeEngine } from "../../../test/support/fake-engine.ts";
import { LOCK_FILE } from "../../../src/adapters/results/lock.ts";

const okLog = readFileSync(
  new URL("../../../test/fixtures/sysbench/1.0/oltp_point_select-t1.log", import.meta.url),
  "utf8",
);
const failLog = readFileSync(
  new URL("../../../test/fixtures/sysbench/1.0/fail-server-killed.log", import.meta.url),
  "utf8",
);

/** The fake engine answering sysbench runs: the fixture's log, or a server-killed failure for the runs `failRun` picks. */
class FakeEngine extends SupportFakeEngine {
  failRun: (spec: ContainerSpec) => boolean = () => false;
  /** Every spec given to containers.create, in order (kept after the container is removed). */
  readonly createdSpecs: ContainerSpec[] = [];
  constructor() {
    super();
    const create = this.containers.create.bind(this.containers);
    this.containers.create = async (spec) => {
      this.createdSpecs.push(spec);
      return create(spec);
    };
    this.answerRun = (spec, opts) => {
      const cmd = spec.cmd ?? [];
      if (opts.signal?.aborted) return { exitCode: 137, output: "", timedOut: false, cancelled: true };
      if (cmd.includes("run") && cmd.some((a) => a.includes("tb_conninfo")))
        return { exitCode: 0, output: "twinbench.ssl_cipher=\n", timedOut: false, cancelled: false };
      if (cmd.includes("run")) {
        const out = this.failRun(spec) ? failLog : okLog;
        for (const l of out.split("\n")) opts.onLine?.(l);
        return { exitCode: this.failRun(spec) ? 1 : 0, output: out, timedOut: false, cancelled: false };
      }
      return { exitCode: 0, output: "ok\n", timedOut: false, cancelled: false };
    };
  }
}

function fakeStorage(disposed: string[]): StorageProvider {
  return {
    async preflight() {},
    async provision(req): Promise<ProvisionedStorage> {
      return {
        mount: { kind: "volume", source: `data-${req.serverId}`, target: "/var/lib/mysql" },
        facts: { kind: req.spec.kind },
        warnings: [],
        needsHolder: true,
        refreshFacts: async () => ({ kind: req.spec.kind }),
        dispose: async () => void disposed.push(req.serverId),
      };
    },
    async cleanLeftovers() {
      return [];
    },
  };
}

const probe: Probe = {
  waitReady: async () => 0.5,
  createBenchUser: async () => "mysql_native_password",
  readServerFacts: async () => ({
    version: "11.8.9-MariaDB",
    versionComment: "Debian",
    variables: { innodb_buffer_pool_size: "536870912", max_connections: "14" },
  }),
};

const scenario = (over: ScenarioOverrides = {}): Scenario =>
  scenarioOf(
    [
      {
        storage: { kind: "tmpfs", size: "1g" },
        workload: { tests: ["oltp_point_select"], threads: [1, 2], duration: "2s", warmup: "1s", repeats: 2 },
      },
      over,
    ],
    { check: "schema" },
  );

function deps(engine: FakeEngine, disposed: string[]): RunDeps {
  return {
    engine,
    storage: fakeStorage(disposed),
    probe,
    ensureImage: async (name) => ({
      name,
      tag: `twinbench/${name}:x`,
      id: `sha256:${name}`,
      family: name.startsWith("mysql") ? "mysql" : name.startsWith("sysbench") ? "sysbench" : "mariadb",
      version: name.startsWith("mysql") ? "9.7.4" : name.startsWith("sysbench") ? "1.0.20" : "11.8.9",
    }),
  };
}

const neutral = "[mysqld]\ninnodb_buffer_pool_size = 1024M\n";

/** The engine's run, with `fatal` as the whole sysbench output of every run its failRun picks. */
function wrapFailLog(engine: FakeEngine, fatal: string): ContainerPort["run"] {
  const run = engine.containers.run;
  return async (spec, opts) => {
    const r = await run(spec, opts);
    return r.exitCode !== 0 && !r.cancelled ? { ...r, output: fatal } : r;
  };
}

describe("runScenario with fake ports", () => {
  it("runs every cell, writes the results folder and tears everything down", async () => {
    const engine = new FakeEngine();
    const disposed: string[] = [];
    const events: RunEvent[] = [];
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const s = await runScenario(deps(engine, disposed), {
      scenario: scenario(),
      neutralCnf: neutral,
      outDir: dir,
      onEvent: (e) => events.push(e),
    });
    expect(s.status).toBe("ok");
    expect(s.exitCode).toBe(0);
    expect(s.cellsOk).toBe(8);
    // Nothing left.
    expect(engine.created.size).toBe(0);
    expect(engine.networkNames.size).toBe(0);
    expect(engine.volumeNames.size).toBe(0);
    expect(disposed.sort()).toEqual(["a", "b"]);
    // Results folder.
    const cells = (await readFile(join(dir, "cells.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as CellRecord);
    const measured = cells.filter((c) => c.phase === "measure");
    expect(measured).toHaveLength(8);
    expect(cells.filter((c) => c.phase === "warmup")).toHaveLength(2);
    for (const c of measured) {
      const raw = await readFile(join(dir, c.raw), "utf8");
      expect(c.metrics).toEqual(parseSysbench(raw));
    }
    const m = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;
    expect(m.status).toBe("ok");
    expect(m.servers.map((x) => x.id)).toEqual(["a", "b"]);
    expect(m.servers[0]!.cnf).toContain("innodb_buffer_pool_size");
    expect(await readdir(join(dir, "raw"))).toEqual(expect.arrayContaining(["a", "b", "a.error.log"]));
    // Events.
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("plan-ready");
    expect(types.at(-1)).toBe("run-finished");
    expect(types.filter((t) => t === "cell-finished")).toHaveLength(8);
    expect(types).toContain("interval");
    expect(types).toContain("config-identity");
    // The config went into every server container before start.
    expect(engine.log.filter((l) => l.startsWith("put "))).toHaveLength(2);
  });

  it("a server log that cannot be kept at teardown is a warning and an action in run.json, and teardown goes on", async () => {
    const engine = new FakeEngine();
    const events: RunEvent[] = [];
    const inTeardown = () => events.some((e) => e.type === "phase" && e.phase === "teardown");
    engine.containers.logs = async () =>
      inTeardown() ? Promise.reject(new Error("engine said 500")) : "server log line\n";
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const s = await runScenario(deps(engine, []), {
      scenario: scenario(),
      neutralCnf: neutral,
      outDir: dir,
      onEvent: (e) => events.push(e),
    });
    expect(s.status).toBe("ok");
    expect(engine.created.size).toBe(0);
    const why = "could not keep the error log of server a: engine said 500";
    expect(events).toContainEqual(expect.objectContaining({ type: "warning", message: `teardown: ${why}` }));
    const m = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;
    expect(m.actions).toContainEqual(expect.objectContaining({ action: "log-not-kept", server: "a", detail: why }));
  });

  it("with --retries 0: records a failed cell with sysbench's message, restarts a dead server and ends partial", async () => {
    const engine = new FakeEngine();
    let failed = false;
    engine.failRun = (spec) => {
      if (!failed && spec.cmd?.includes("--threads=2") && spec.cmd.includes("--time=2") && spec.name.includes("-b-")) {
        failed = true;
        // The server "dies".
        for (const c of engine.created.values()) if (c.spec.name.endsWith("-b")) c.running = false;
        return true;
      }
      return false;
    };
    const events: RunEvent[] = [];
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const s = await runScenario(deps(engine, []), {
      scenario: scenario(),
      neutralCnf: neutral,
      outDir: dir,
      onEvent: (e) => events.push(e),
      retries: 0,
    });
    expect(s.status).toBe("partial");
    expect(s.exitCode).toBe(1);
    expect(s.cellsFailed).toBe(1);
    expect(s.cellsOk).toBe(7);
    const failedEv = events.find((e) => e.type === "cell-failed");
    expect(failedEv && failedEv.type === "cell-failed" && failedEv.record.error).toMatch(
      /Lost connection|lost connection|server/i,
    );
    expect(events.some((e) => e.type === "server-restarted" && e.server === "b")).toBe(true);
    expect(engine.created.size).toBe(0);
  });

  it("retries a failed cell once after restarting its dead server: both attempts kept, the report counts the retry", async () => {
    const engine = new FakeEngine();
    const measured: string[] = [];
    let failed = false;
    engine.failRun = (spec) => {
      if (!failed && spec.cmd?.includes("--threads=2") && spec.cmd.includes("--time=2") && spec.name.includes("-b-")) {
        failed = true;
        for (const c of engine.created.values()) if (c.spec.name.endsWith("-b")) c.running = false; // the server "dies"
        return true;
      }
      return false;
    };
    engine.onRun = (spec) => {
      if (spec.cmd?.includes("run") && spec.cmd.includes("--time=2")) measured.push(spec.name);
    };
    const events: RunEvent[] = [];
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const s = await runScenario(deps(engine, []), {
      scenario: scenario(),
      neutralCnf: neutral,
      outDir: dir,
      onEvent: (e) => events.push(e),
    });
    expect(s.status).toBe("ok");
    expect(s.cellsOk).toBe(8);
    expect(s.cellsFailed).toBe(0);
    expect(measured).toHaveLength(9);
    const failedEv = events.filter((e) => e.type === "cell-failed");
    expect(failedEv).toHaveLength(1);
    expect(failedEv[0]!.type === "cell-failed" && failedEv[0]!.retry).toBe(2);
    // The restart comes before the retry, and the cold server is warmed up again.
    const types = events.map((e) => (e.type === "cell-started" ? `${e.type}:${e.phase}:${e.cell.server}` : e.type));
    const restartAt = types.indexOf("server-restarted");
    expect(restartAt).toBeGreaterThan(types.indexOf("cell-failed"));
    expect(types.slice(restartAt, restartAt + 4)).toContain("cell-started:warmup:b");
    const cells = (await readFile(join(dir, "cells.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as CellRecord);
    const key = (failedEv[0] as { record: CellRecord }).record.key;
    const attempts = cells.filter((c) => c.key === key);
    expect(attempts.map((c) => [c.attempt, c.status])).toEqual([
      [1, "failed"],
      [2, "ok"],
    ]);
    expect(attempts[0]!.raw).not.toBe(attempts[1]!.raw);
    expect(cells.filter((c) => c.phase === "measure" && c.key !== key).every((c) => c.attempt === 1)).toBe(true);
    const m = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;
    const report = buildRunReport(m, cells);
    expect(report.retries).toBe(1);
    expect(report.failed).toBe(0);
    expect(renderText(report, { details: true })).toMatch(/Retries: 1 measured attempt/);
    expect(report.table!.rows.flatMap((r) => r.cells).every((c) => c.status === "ok")).toBe(true);
  });

  it("an OOM-killed server: its cell fails once, named as such, and is not retried; every server has a memory limit", async () => {
    const engine = new FakeEngine();
    let killed = false;
    engine.failRun = (spec) => {
      if (!killed && spec.cmd?.includes("--threads=2") && spec.cmd.includes("--time=2") && spec.name.includes("-b-")) {
        killed = true;
        for (const c of engine.created.values())
          if (c.spec.name.endsWith("-b")) Object.assign(c, { running: false, oomKilled: true });
        return true;
      }
      return false;
    };
    const events: RunEvent[] = [];
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const s = await runScenario(deps(engine, []), {
      scenario: scenario(),
      neutralCnf: neutral,
      outDir: dir,
      onEvent: (e) => events.push(e),
    });
    expect(s.status).toBe("partial");
    expect(s.cellsFailed).toBe(1);
    const failed = events.filter((e) => e.type === "cell-failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]!.type === "cell-failed" && failed[0]!.retry).toBeUndefined();
    const rec = failed[0]!.type === "cell-failed" ? failed[0]!.record : undefined;
    expect(rec?.serverOomKilled).toBe(true);
    expect(rec?.error).toMatch(/^server b was OOM-killed at its memory limit of /);
    // The server is restarted for the cells after it.
    expect(events.some((e) => e.type === "server-restarted" && e.server === "b")).toBe(true);
    // No resources.server.memory: each server still gets a limit (pool 1 GiB + tmpfs 1 GiB + overhead + headroom).
    const serverSpecs = engine.createdSpecs.filter((c) => c.labels["twinbench.role"] === "server");
    expect(serverSpecs.length).toBeGreaterThan(0);
    for (const c of serverSpecs)
      expect(c.limits?.memoryBytes).toBe(2 * 2 ** 30 + 256 * 2 ** 20 + 2 * 2 ** 20 + 512 * 2 ** 20);
  });

  it("a prepare past its deadline ends the run with DEADLINE_EXCEEDED naming the call, the deadline and the containers", async () => {
    const engine = new FakeEngine();
    const answer = engine.answerRun;
    let timeoutMs: number | undefined;
    engine.answerRun = (spec, opts) => {
      if (!spec.cmd?.includes("prepare")) return answer(spec, opts);
      timeoutMs = opts.timeoutMs;
      return { exitCode: 137, output: "", timedOut: true, cancelled: false };
    };
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const err = await runScenario(deps(engine, []), { scenario: scenario(), neutralCnf: neutral, outDir: dir }).catch(
      (e: unknown) => e,
    );
    // 4 tables × 10000 rows: ten minutes plus the rows at 13 000 a second.
    expect(timeoutMs).toBe(603_077);
    expect(err).toMatchObject({ code: "DEADLINE_EXCEEDED" });
    expect((err as Error).message).toMatch(
      /^sysbench prepare on server a did not finish within its deadline of 603 s \(4 tables × 10000 rows\) and was stopped \(container tb-.*-a-load-[0-9a-f]{6}, server container tb-.*-a\)$/,
    );
    expect(engine.created.size).toBe(0);
  });

  it("a load container that cannot connect ends the run at its connection check, before prepare, its log kept", async () => {
    const engine = new FakeEngine();
    const answer = engine.answerRun;
    const ran: string[] = [];
    const out =
      "FATAL: unable to connect to MySQL server on host 'tb-x-a', port 3306, aborting...\nFATAL: error 2002: Can't connect to server on 'tb-x-a' (110)\n";
    engine.answerRun = (spec, opts) => {
      ran.push(spec.cmd?.find((a) => /prepare|prewarm|tb_conninfo/.test(a)) ?? "");
      if (spec.cmd?.some((a) => a.includes("tb_conninfo")))
        return { exitCode: 1, output: out, timedOut: false, cancelled: false };
      return answer(spec, opts);
    };
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const err = await runScenario(deps(engine, []), {
      scenario: scenario({ load: { transport: "bridge" } }),
      neutralCnf: neutral,
      outDir: dir,
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "LOAD_CONNECT_FAILED" });
    expect((err as Error).message).toContain("could not connect to server a over the bridge transport");
    expect((err as { hint: string }).hint).toMatch(/iptables -I DOCKER-USER -i br-\S+ -o br-\S+ -j ACCEPT/);
    expect(ran.filter((c) => /prepare|prewarm/.test(c))).toEqual([]);
    expect(await readFile(join(dir, "raw", "a.conninfo.log"), "utf8")).toBe(out);
    expect(engine.created.size).toBe(0);
  });

  it("a cell past its limit on a server that no longer answers ends the run with SERVER_HUNG, torn down", async () => {
    const engine = new FakeEngine();
    const answer = engine.answerRun;
    let hung = false;
    engine.answerRun = (spec, opts) => {
      if (!spec.cmd?.includes("--time=2") || !spec.name.includes("-b-")) return answer(spec, opts);
      hung = true;
      return { exitCode: 137, output: "", timedOut: true, cancelled: false };
    };
    const hangingProbe: Probe = {
      ...probe,
      waitReady: async (ep) => {
        if (hung)
          throw new TwinbenchError(`server at ${ep.host}:3306 did not answer SELECT 1`, { code: "SERVER_NOT_READY" });
        return 0.5;
      },
    };
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const err = await runScenario(
      { ...deps(engine, []), probe: hangingProbe },
      { scenario: scenario(), neutralCnf: neutral, outDir: dir },
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "SERVER_HUNG" });
    expect((err as Error).message).toMatch(
      /^server "b" \(container tb-.*-b\) did not answer SELECT 1 within 15 s after cell b\/.* ran past its limit: it hangs/,
    );
    expect(engine.created.size).toBe(0);
    const manifest = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;
    expect(manifest.status).toMatch(/^(failed|partial)$/);
  });

  it("retries a failed cell on a live server without restarting it, up to --retries times", async () => {
    const engine = new FakeEngine();
    let fails = 0;
    // sysbench fails (a FATAL that is not a lost connection) on one cell, every time; the server stays up.
    engine.failRun = (spec) =>
      spec.cmd?.includes("--threads=2") === true &&
      spec.cmd.includes("--time=2") &&
      spec.name.includes("-a-") &&
      ++fails > 0;
    engine.containers.run = wrapFailLog(engine, "FATAL: Lua error: duplicate key\n");
    const events: RunEvent[] = [];
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const s = await runScenario(deps(engine, []), {
      scenario: scenario({
        workload: { tests: ["oltp_point_select"], threads: [1, 2], duration: "2s", warmup: "1s", repeats: 1 },
      }),
      neutralCnf: neutral,
      outDir: dir,
      onEvent: (e) => events.push(e),
      retries: 2,
    });
    expect(s.status).toBe("partial");
    expect(s.cellsFailed).toBe(1);
    expect(events.filter((e) => e.type === "server-restarted")).toHaveLength(0);
    const failedEv = events
      .filter((e) => e.type === "cell-failed")
      .map((e) => (e.type === "cell-failed" ? e.retry : -1));
    expect(failedEv).toEqual([2, 3, undefined]);
    const cells = (await readFile(join(dir, "cells.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as CellRecord);
    expect(cells.filter((c) => c.status === "failed").map((c) => c.attempt)).toEqual([1, 2, 3]);

    // Resume: the cell whose last attempt failed runs again, its attempts counted on; the ok ones are done.
    const engine2 = new FakeEngine();
    const events2: RunEvent[] = [];
    const again = await runScenario(deps(engine2, []), {
      scenario: scenario({
        workload: { tests: ["oltp_point_select"], threads: [1, 2], duration: "2s", warmup: "1s", repeats: 1 },
      }),
      neutralCnf: neutral,
      outDir: dir,
      resume: true,
      onEvent: (e) => events2.push(e),
    });
    expect(again.status).toBe("ok");
    const cells2 = (await readFile(join(dir, "cells.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as CellRecord);
    const resumed = cells2.slice(cells.length).filter((c) => c.phase === "measure");
    expect(resumed.map((c) => [c.server, c.threads, c.attempt, c.status])).toEqual([["a", 2, 4, "ok"]]);
  });

  it("cancels gracefully: finished cells kept, exit 130, nothing left", async () => {
    const engine = new FakeEngine();
    const ac = new AbortController();
    let measured = 0;
    engine.onRun = (spec) => {
      if (
        spec.cmd?.includes("run") &&
        spec.cmd.includes("--threads=1") &&
        !spec.cmd.some((a) => a.includes("tb_conninfo"))
      ) {
        measured++;
        if (measured === 3) ac.abort();
      }
    };
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const s = await runScenario(deps(engine, []), {
      scenario: scenario(),
      neutralCnf: neutral,
      outDir: dir,
      signal: ac.signal,
    });
    expect(s.status).toBe("cancelled");
    expect(s.exitCode).toBe(130);
    expect(engine.created.size).toBe(0);
    expect(engine.volumeNames.size).toBe(0);
    const m = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;
    expect(m.status).toBe("cancelled");
  });

  it("resume runs only the missing cells, and refuses a changed scenario", async () => {
    const engine = new FakeEngine();
    const ac = new AbortController();
    let n = 0;
    engine.onRun = (spec) => {
      if (
        spec.cmd?.includes("run") &&
        !spec.cmd.some((a) => a.includes("tb_conninfo")) &&
        spec.cmd.some((a) => a.startsWith("--time=2"))
      )
        if (++n === 4) ac.abort();
    };
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const first = await runScenario(deps(engine, []), {
      scenario: scenario(),
      neutralCnf: neutral,
      outDir: dir,
      signal: ac.signal,
    });
    expect(first.status).toBe("cancelled");
    const done = first.cellsOk;
    expect(done).toBeGreaterThan(0);

    const engine2 = new FakeEngine();
    const second = await runScenario(deps(engine2, []), {
      scenario: scenario(),
      neutralCnf: neutral,
      outDir: dir,
      resume: true,
    });
    expect(second.status).toBe("ok");
    expect(second.cellsOk).toBe(8);
    const cells = (await readFile(join(dir, "cells.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as CellRecord);
    const okKeys = new Set(cells.filter((c) => c.phase === "measure" && c.status === "ok").map((c) => c.key));
    expect(okKeys.size).toBe(8);

    await expect(
      runScenario(deps(new FakeEngine(), []), {
        scenario: scenario({ order: "grouped" }),
        neutralCnf: neutral,
        outDir: dir,
        resume: true,
      }),
    ).rejects.toThrow(/cannot resume/);
  });

  it("a storage preflight failure creates nothing, not even the results folder", async () => {
    const engine = new FakeEngine();
    const d = deps(engine, []);
    d.storage = {
      ...d.storage,
      preflight: async () => {
        throw new Error("mkfs.btrfs is missing");
      },
    };
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    await expect(runScenario(d, { scenario: scenario(), neutralCnf: neutral, outDir: dir })).rejects.toThrow(
      /mkfs.btrfs/,
    );
    await expect(readdir(dir)).rejects.toThrow(/ENOENT/);
    expect(engine.created.size + engine.networkNames.size + engine.volumeNames.size).toBe(0);
  });

  it("a ladder that does not fit the host's memory is refused before anything is created, not even the results folder", async () => {
    const engine = new FakeEngine();
    // 4 GiB host: three servers with a 1024M pool and a 1g tmpfs each need 3 × 2.25 GiB + the load.
    engine.facts = async () => ({
      id: "local",
      kernel: "6.18",
      cpus: 2,
      memoryBytes: 4 * 2 ** 30,
      dockerVersion: "20.10",
      storageDriver: "overlay2",
    });
    const d = deps(engine, []);
    const asked: string[] = [];
    const ensure = d.ensureImage;
    d.ensureImage = async (name, ...rest) => (asked.push(name), ensure(name, ...rest));
    let provisioned = 0;
    d.storage = { ...d.storage, provision: async (req) => (provisioned++, fakeStorage([]).provision(req)) };
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const ladder = scenario({
      servers: [
        { id: "a", image: "mariadb-11.8" },
        { id: "b", image: "mariadb-10.11" },
        { id: "c", image: "mysql-9.7" },
      ],
    });
    const err = await runScenario(d, { scenario: ladder, neutralCnf: neutral, outDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TwinbenchError);
    expect((err as TwinbenchError).code).toBe("PLAN_MEMORY_EXCEEDED");
    expect((err as TwinbenchError).message).toBe(
      "3 servers and the load need 6.8 GiB of memory, but host local has 3.0 GiB (4.0 GiB less a 1.0 GiB reserve): 3.8 GiB short",
    );
    expect((err as TwinbenchError).hint).toMatch(
      /fewer servers \(3 now\).*smaller innodb_buffer_pool_size.*storage: \{ kind: volume \} instead of tmpfs \(3\.0 GiB of RAM\)/,
    );
    expect((err as TwinbenchError).details.slice(0, 3)).toEqual(
      ["a", "b", "c"].map(
        (id) => `${id}: 2.3 GiB = buffer pool 1.0 GiB (lab/my.cnf:2) + overhead 258 MiB + tmpfs 1.0 GiB`,
      ),
    );
    await expect(readdir(dir)).rejects.toThrow(/ENOENT/);
    expect(engine.created.size + engine.networkNames.size + engine.volumeNames.size + engine.runs.length).toBe(0);
    expect(asked).toEqual([]);
    expect(provisioned).toBe(0);
    // The same scenario on a 24 GiB host runs.
    engine.facts = async () => ({
      id: "local",
      kernel: "6.18",
      cpus: 2,
      memoryBytes: 24 * 2 ** 30,
      dockerVersion: "20.10",
      storageDriver: "overlay2",
    });
    const ok = await runScenario(d, { scenario: ladder, neutralCnf: neutral, outDir: dir });
    expect(ok.status).toBe("ok");
    expect(provisioned).toBe(3);
  });

  it("keeps the first server's facts in run.json when the second server fails to start", async () => {
    const engine = new FakeEngine();
    const d = deps(engine, []);
    let n = 0;
    d.probe = {
      ...probe,
      waitReady: async () => {
        if (++n === 2) throw new TwinbenchError("server b did not become ready", { code: "SERVER_NOT_READY" });
        return 0.5;
      },
    };
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    await expect(runScenario(d, { scenario: scenario(), neutralCnf: neutral, outDir: dir })).rejects.toThrow(
      /server b/,
    );
    const m = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;
    expect(m.status).toBe("failed");
    expect(m.servers.map((x) => x.id)).toEqual(["a"]);
    expect(m.servers[0]!.effectiveVariables).toMatchObject({ max_connections: "14" });
    expect(engine.created.size + engine.networkNames.size + engine.volumeNames.size).toBe(0);
  });

  it("asks its scheduler for rounds until one is empty, with every measured record so far", async () => {
    const engine = new FakeEngine();
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const seen: number[] = [];
    // A scheduler that repeats the first cell once more after the planned round (what an adaptive one would do).
    const scheduler = (todo: Cell[]): Scheduler => {
      let round = 0;
      return {
        nextRound(recorded) {
          seen.push(recorded.length);
          round++;
          if (round === 1) return todo;
          if (round === 2) return [{ ...todo[0]!, key: `${todo[0]!.key}/extra`, repeat: 99 }];
          return [];
        },
      };
    };
    const s = await runScenario(deps(engine, []), {
      scenario: scenario(),
      neutralCnf: neutral,
      outDir: dir,
      scheduler,
    });
    expect(s.cellsOk).toBe(9);
    expect(seen).toEqual([0, 8, 9]);
    const cells = (await readFile(join(dir, "cells.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as CellRecord);
    expect(cells.filter((c) => c.phase === "measure").at(-1)!.repeat).toBe(99);
  });
});

describe("disturbed pairs (interference)", () => {
  /**
   * A fake CPU sampler: each reading moves the clock 1 s; while `busy` is on, 0.5 core of outsiders shows (the
   * fake engine's containers have no counters, so all busy time counts as outside work).
   */
  function fakeSampler(gone?: (call: number) => boolean) {
    const st = { atMs: 0, ticks: 0, busy: false, calls: 0 };
    const sample = (ids: readonly string[]) => {
      st.calls++;
      st.atMs += 1000;
      if (st.busy) st.ticks += 50;
      const ns = gone?.(st.calls) ? null : 0;
      return {
        atMs: st.atMs,
        procStat: `cpu  ${st.ticks} 0 0 0 0 0 0 0 0 0\n`,
        psiCpu: null,
        containersNs: Object.fromEntries(ids.map((id) => [id, ns])),
        selfUs: 0,
      };
    };
    return { st, sample };
  }

  async function runWith(opts: {
    rerun: boolean;
    disturb: (c: Cell, attempt: number) => boolean;
    gone?: (call: number) => boolean;
    over?: Record<string, unknown>;
    repeats?: number;
    quietWait?: string;
  }) {
    const engine = new FakeEngine();
    const { st, sample } = fakeSampler(opts.gone);
    const events: RunEvent[] = [];
    const seen = new Map<string, number>();
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const sc = scenario({
      workload: {
        tests: ["oltp_point_select"],
        threads: [1],
        duration: "2s",
        warmup: "0s",
        repeats: opts.repeats ?? 2,
        rerunDisturbed: opts.rerun,
        // The fake sampler's outsiders stay on after a disturbed cell: no wait for quiet unless a test asks.
        quietWait: opts.quietWait ?? "0s",
      },
      ...opts.over,
    });
    const s = await runScenario(
      { ...deps(engine, []), cpuSampler: sample },
      {
        scenario: sc,
        neutralCnf: neutral,
        outDir: dir,
        onEvent: (e) => {
          events.push(e);
          if (e.type === "cell-started" && e.phase === "measure") {
            const n = (seen.get(e.cell.key) ?? 0) + 1;
            seen.set(e.cell.key, n);
            st.busy = opts.disturb(e.cell, n);
          }
        },
      },
    );
    const cells = (await readFile(join(dir, "cells.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as CellRecord);
    const m = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;
    return { s, cells, events, st, report: buildRunReport(m, cells) };
  }

  it("re-runs a pair once when one cell is disturbed; the report uses the re-run and counts it", async () => {
    const { s, cells, events, st, report } = await runWith({
      rerun: true,
      disturb: (c, n) => c.server === "b" && c.repeat === 1 && n === 1,
    });
    expect(st.calls).toBeGreaterThan(0);
    expect(s).toMatchObject({ status: "ok", cellsOk: 4, cellsFailed: 0 });
    const measured = cells.filter((c) => c.phase === "measure");
    expect(measured.map((c) => `${c.server}${c.repeat}.${c.attempt}`)).toEqual([
      "a1.1",
      "b1.1",
      "a1.2",
      "b1.2",
      "b2.1",
      "a2.1",
    ]);
    expect(measured[1]!.interference).toMatchObject({ disturbed: true, outsiderCores: 0.5 });
    expect(measured[1]!.interference!.reasons[0]).toMatch(/^outsiders used 0\.50 core/);
    expect(measured.filter((c) => c !== measured[1]).every((c) => c.interference && !c.interference.disturbed)).toBe(
      true,
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "warning",
        message: expect.stringMatching(
          /oltp_point_select t1 r1 was disturbed \(b: outsiders used 0\.50 core.*running the pair once more/,
        ),
      }),
    );
    expect(report.disturbance).toEqual({ measured: 4, known: 4, disturbed: 0, bySpeed: 0, reruns: 2, counted: false });
    expect(report.retries).toBe(0);
    expect(report.notes).toContain("0 of 4 measured cells were disturbed.");
    expect(report.notes).toContain(
      "2 cells were re-run because their pair was disturbed; the report uses the last attempt.",
    );
  });

  it("before the re-run it waits for the machine to go quiet, at most workload.quietWait, and says so", async () => {
    const { cells, events } = await runWith({
      rerun: true,
      quietWait: "1s",
      disturb: (c, n) => c.server === "b" && c.repeat === 1 && n === 1,
    });
    // The outsiders stay on: the wait ends at its limit and the pair runs anyway.
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "warning",
        message: expect.stringMatching(
          /t1 r1 was disturbed .*running the pair once more after 1 s; the machine did not go quiet$/,
        ),
      }),
    );
    expect(cells.filter((c) => c.phase === "measure")).toHaveLength(6);
  });

  it("a ladder (three servers): a disturbed cell re-runs its whole group, every server, in the same order", async () => {
    const over = {
      servers: [
        { id: "a", image: "mariadb-11.8" },
        { id: "b", image: "mysql-9.7" },
        { id: "c", image: "mariadb-11.8" },
      ],
      compare: { base: "b" },
    };
    const { s, cells, events, report } = await runWith({
      rerun: true,
      over,
      repeats: 1,
      disturb: (c, n) => c.server === "c" && n === 1,
    });
    expect(s).toMatchObject({ status: "ok", cellsOk: 3, cellsFailed: 0 });
    expect(cells.filter((c) => c.phase === "measure").map((c) => `${c.server}${c.repeat}.${c.attempt}`)).toEqual([
      "a1.1",
      "b1.1",
      "c1.1",
      "a1.2",
      "b1.2",
      "c1.2",
    ]);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "warning",
        message: expect.stringMatching(
          /oltp_point_select t1 r1 was disturbed \(c: outsiders used 0\.50 core.*running the group once more/,
        ),
      }),
    );
    expect(report.disturbance).toEqual({ measured: 3, known: 3, disturbed: 0, bySpeed: 0, reruns: 3, counted: false });
    expect(report.pairs.map((t) => `${t.numerator}/${t.denominator}`)).toEqual(["a/b", "c/b"]);
  });

  it("a pair disturbed again stays in cells.jsonl, flagged and left out of the estimate; without rerunDisturbed nothing is re-run", async () => {
    const again = await runWith({ rerun: true, disturb: (c) => c.server === "a" && c.repeat === 2 });
    expect(again.cells.filter((c) => c.phase === "measure")).toHaveLength(6);
    expect(again.report.disturbance).toMatchObject({ disturbed: 1, reruns: 2 });
    expect(again.report.notes[0]).toMatch(
      /^1 of 4 measured cells were disturbed: a oltp_point_select t1 r2 \(outsiders used 0\.50 core/,
    );
    const cell = again.report.table!.rows[0]!.cells[0]!;
    // 2 repeats, the second disturbed in both attempts: 1 clean pair enters the estimate
    expect(cell.n).toBe(1);
    expect(cell.unstable).toEqual([
      expect.stringMatching(/^a repeat 2 disturbed, left out: outsiders used 0\.50 core/),
    ]);
    expect(renderText(again.report, { details: true })).toContain(
      "unstable: a repeat 2 disturbed, left out: outsiders used 0.50 core",
    );

    const off = await runWith({ rerun: false, disturb: (c) => c.server === "a" && c.repeat === 2 });
    expect(off.cells.filter((c) => c.phase === "measure")).toHaveLength(4);
    expect(off.report.disturbance).toMatchObject({ disturbed: 1, reruns: 0 });
  });

  it("a sample whose container counters are gone (a line handled after sysbench exited) ends nothing: the last complete one does", async () => {
    // The fixture log has a first line and 2 per-second lines: 3 samples a cell; the 3rd finds no counters.
    const { cells } = await runWith({ rerun: false, disturb: () => true, gone: (call) => call % 3 === 0 });
    const measured = cells.filter((c) => c.phase === "measure");
    expect(measured).toHaveLength(4);
    for (const c of measured) expect(c.interference).toMatchObject({ outsiderCores: 0.5, disturbed: true });
  });
});

describe("every restart prewarms, and measured cells carry their state", () => {
  const prewarmsOf = (engine: FakeEngine, server: string) =>
    engine.runs.filter((r) => r.cmd?.at(-1) === "prewarm" && r.name.includes(`-${server}-`)).length;
  const restartsOf = (m: RunManifest, server: string) =>
    (m.actions ?? []).filter((a) => a.server === server && ["restore", "instance", "restart"].includes(a.action))
      .length;

  it("a write test's restore, a new instance and the recovery after a crash each prewarm the server, as after prepare", async () => {
    const engine = new FakeEngine();
    let failed = false;
    engine.failRun = (spec) => {
      if (!failed && spec.cmd?.includes("run") && spec.cmd.includes("--time=2") && spec.name.includes("-b-")) {
        failed = true;
        for (const c of engine.created.values()) if (c.spec.name.endsWith("-b")) c.running = false; // the server "dies"
        return true;
      }
      return false;
    };
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const sc = scenario({
      workload: {
        tests: ["oltp_update_non_index", "oltp_point_select"],
        threads: [1],
        duration: "2s",
        warmup: "0s",
        repeats: 4,
        instances: 2,
        fresh: "per-test",
      },
    });
    const s = await runScenario(deps(engine, []), { scenario: sc, neutralCnf: neutral, outDir: dir });
    expect(s.status).toBe("ok");
    const m = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;
    for (const server of ["a", "b"]) {
      const kinds = new Set((m.actions ?? []).filter((a) => a.server === server).map((a) => a.action));
      expect([...kinds]).toEqual(expect.arrayContaining(["restore", "instance"]));
      // One prewarm after prepare, then one per restart of any kind.
      expect(prewarmsOf(engine, server)).toBe(1 + restartsOf(m, server));
    }
    expect((m.actions ?? []).filter((a) => a.action === "restart").map((a) => a.server)).toEqual(["b"]);
    expect(m.actions).toContainEqual(
      expect.objectContaining({
        action: "restart",
        server: "b",
        detail: expect.stringMatching(/restarted from the current data dir, then prewarmed$/),
      }),
    );

    const cold = new FakeEngine();
    const off = scenario({
      workload: {
        tests: ["oltp_update_non_index"],
        threads: [1],
        duration: "2s",
        warmup: "0s",
        repeats: 2,
        fresh: "per-test",
        prewarm: false,
      },
    });
    expect(
      (await runScenario(deps(cold, []), { scenario: off, neutralCnf: neutral, outDir: join(dir, "off") })).status,
    ).toBe("ok");
    expect(prewarmsOf(cold, "a") + prewarmsOf(cold, "b")).toBe(0);
  });

  it("slow starts, prepares and restores print a plain line at least every 10 s of (fake) time", async () => {
    // Only the clock and the progress timer are fake: each slow step moves the clock itself, as if it took that long.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    try {
      const engine = new FakeEngine();
      const run = engine.containers.run;
      engine.containers.run = async (spec, opts) => {
        if (spec.cmd?.includes("prepare")) {
          opts.onLine?.("Creating table 'sbtest1'...");
          vi.advanceTimersByTime(33_000);
        }
        return run(spec, opts);
      };
      const slowProbe: Probe = { ...probe, waitReady: async () => (vi.advanceTimersByTime(24_000), 24) };
      const events: RunEvent[] = [];
      const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
      const sc = scenario({
        workload: {
          tests: ["oltp_update_non_index"],
          threads: [1],
          duration: "2s",
          warmup: "0s",
          repeats: 2,
          fresh: "per-test",
        },
      });
      const t0 = Date.now();
      const s = await runScenario(
        { ...deps(engine, []), probe: slowProbe },
        { scenario: sc, neutralCnf: neutral, outDir: dir, onEvent: (e) => events.push(e) },
      );
      expect(s.status).toBe("ok");
      const times = events.filter((e) => plainLine(e) !== undefined).map((e) => (Date.parse(e.at) - t0) / 1000);
      const gaps = times.map((t, i) => t - (i === 0 ? 0 : times[i - 1]!));
      expect(Date.now() - t0).toBeGreaterThan(150_000); // the slow steps did take their (fake) time
      expect(Math.max(...gaps)).toBeLessThanOrEqual(10);
      const progress = events.filter((e): e is Extract<RunEvent, { type: "progress" }> => e.type === "progress");
      expect(new Set(progress.map((e) => e.phase))).toEqual(new Set(["start", "prepare", "snapshot", "restore"]));
      expect(progress.find((e) => e.phase === "prepare")).toMatchObject({
        subject: "a",
        detail: "Creating table 'sbtest1'...",
      });
      expect(plainLine(progress.find((e) => e.phase === "restore")!)).toMatch(
        /^ {2}restore [ab]: \d+ s: starting the server$/,
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it("a prewarm that fails after a crash is a warning and the action says the server runs cold; the run goes on", async () => {
    const engine = new FakeEngine();
    let died = false;
    const run = engine.containers.run;
    engine.containers.run = async (spec, opts) => {
      if (died && spec.cmd?.at(-1) === "prewarm" && spec.name.includes("-b-"))
        return { exitCode: 1, output: "FATAL: prewarm broke\n", timedOut: false, cancelled: false };
      return run(spec, opts);
    };
    engine.failRun = (spec) => {
      if (!died && spec.cmd?.includes("--time=2") && spec.name.includes("-b-")) {
        died = true;
        for (const c of engine.created.values()) if (c.spec.name.endsWith("-b")) c.running = false;
        return true;
      }
      return false;
    };
    const events: RunEvent[] = [];
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const s = await runScenario(deps(engine, []), {
      scenario: scenario(),
      neutralCnf: neutral,
      outDir: dir,
      onEvent: (e) => events.push(e),
    });
    expect(s.status).toBe("ok");
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "warning",
        message: expect.stringMatching(/^b: prewarm after the restart failed: sysbench prewarm failed/),
      }),
    );
    const m = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;
    expect(m.actions).toContainEqual(
      expect.objectContaining({
        action: "restart",
        server: "b",
        detail: expect.stringMatching(/its prewarm failed \(.*\), so it runs cold$/),
      }),
    );
  });

  it("a measured cell records its backlog, warm state, bottleneck and cost per query from the status and the cgroups", async () => {
    const engine = new FakeEngine();
    // The sidecar's container gets an id the sampler can count; the fake engine otherwise never says it.
    const run = engine.containers.run;
    engine.containers.run = async (spec, opts) => {
      (opts as { onCreated?: (id: string) => void }).onCreated?.(`load-${spec.name}`);
      return run(spec, opts);
    };
    // Server 0.5 core, load 0.95 core of its 1-core cpuset per sampled second.
    let atMs = 0;
    const used = new Map<string, number>();
    const sample = (ids: readonly string[]) => {
      atMs += 1000;
      for (const id of ids) used.set(id, (used.get(id) ?? 0) + (id.startsWith("load-") ? 0.95e9 : 0.5e9));
      return {
        atMs,
        procStat: "cpu  0 0 0 0 0 0 0 0 0 0\n",
        psiCpu: null,
        containersNs: Object.fromEntries(ids.map((id) => [id, used.get(id)!])),
        selfUs: 0,
      };
    };
    let reads = 0;
    const status: Probe = {
      ...probe,
      readServerStatus: async (_ep, o) => {
        reads++;
        const k = reads; // before: odd reads, after: even reads
        return {
          values: {
            Innodb_buffer_pool_pages_dirty: 7,
            Innodb_data_pending_reads: 0,
            Innodb_data_pending_writes: 0,
            Innodb_data_pending_fsyncs: 1,
            Innodb_buffer_pool_reads: k * 10,
            Innodb_rows_read: k * 1000,
            Innodb_data_fsyncs: k,
          },
          historyLength: 42,
          ...(o.sizes ? { dataBytes: 1e6, poolBytes: 128e6 } : {}),
        };
      },
    };
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const sc = scenario({
      resources: { server: { cpuset: "1" }, load: { cpuset: "0" } },
      workload: { tests: ["oltp_point_select"], threads: [1], duration: "2s", warmup: "0s", repeats: 2 },
    });
    const s = await runScenario(
      { ...deps(engine, []), probe: status, cpuSampler: sample },
      { scenario: sc, neutralCnf: neutral, outDir: dir },
    );
    expect(s.status).toBe("ok");
    const cells = (await readFile(join(dir, "cells.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as CellRecord);
    const measured = cells.filter((c) => c.phase === "measure");
    expect(measured).toHaveLength(4);
    const q = parseSysbench(okLog);
    for (const c of measured) {
      const st = c.state!;
      expect(st.backlog).toEqual({
        historyLength: 42,
        dirtyPages: 7,
        pendingReads: 0,
        pendingWrites: 0,
        pendingFsyncs: 1,
      });
      expect(st.warm).toEqual({ diskReads: 10, readRequests: null, fits: true, cold: false });
      expect(st.cpu).toMatchObject({ serverCores: 0.5, loadCores: 0.95, serverCpusetCores: 1, loadCpusetCores: 1 });
      expect(st.bottleneck).toEqual({ kind: "load", serverUtilPct: 50, loadUtilPct: 95, marks: [] });
      expect(st.perQuery!.queries).toBe(q.queries);
      expect(st.perQuery!.rowsRead).toBeCloseTo(1000 / q.queries!, 9);
      expect(st.perQuery!.fsyncs).toBeCloseTo(1 / q.queries!, 9);
      expect((st.perQuery!.serverCpuUs! * q.qps!) / 1e6).toBeCloseTo(0.5, 6);
      expect(st.perQuery!.pagesRead).toBeNull();
    }
    const m = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;
    const report = buildRunReport(m, cells);
    const cell = report.table!.rows[0]!.cells[0]!;
    expect(cell).toMatchObject({ loadBound: true, verdict: "unknown", reason: "load-bound" });
    expect(report.notes).toContainEqual(
      expect.stringMatching(/^Load-bound: 4 cells where sysbench used ≥ 90% of its cores/),
    );
    expect(report.notes).toContainEqual(
      "Backlog at the start of a's 2 measured cells: history length 42, dirty pages 7, pending reads/writes/fsyncs 0/0/1.",
    );
    expect(report.cellStates).toHaveLength(4);
    expect(renderText(report, { details: true })).toContain("load-bound (sysbench saturated its cpuset");
  });
});

describe("adaptive runs: no calibration detour, the forecast, the host calibration folded", () => {
  /** A calibration store in memory (RunDeps.calibrations). */
  function memoryStore(initial: Calibration | null) {
    const state = { cal: initial, writes: 0, reads: 0 };
    const store: CalibrationStore = {
      read: async () => (
        state.reads++,
        {
          key: "fake-host",
          facts: { id: "local", cpus: 2, kernel: "6.18", storageDriver: "overlay2" },
          calibration: state.cal,
        }
      ),
      write: async (c) => ((state.cal = c), state.writes++, "/fake/fake-host.json"),
    };
    return { state, store };
  }
  /** Server a's q/s jittered by a seeded ±5% (log sd), so the pairs have noise. */
  function noisy(engine: FakeEngine, seed: number): ContainerPort["run"] {
    const run = engine.containers.run;
    const z = normalFrom(seededRandom(seed));
    return async (spec, opts) => {
      const r = await run(spec, opts);
      if (!spec.name.includes("-a-") || !r.output.includes("queries:")) return r;
      const qps = (22152.71 * Math.exp(0.05 * z())).toFixed(2);
      return { ...r, output: r.output.replace(/\(22152\.71 per sec\.\)/g, `(${qps} per sec.)`) };
    };
  }
  const adaptive = () =>
    scenario({
      workload: {
        tests: ["oltp_point_select"],
        threads: [1, 2],
        duration: "2s",
        warmup: "1s",
        repeats: { min: 2, max: 3, precision: "1%" },
        instances: 1,
        budget: "30m",
      },
    });

  async function once(store: CalibrationStore, seed: number) {
    const engine = new FakeEngine();
    engine.containers.run = noisy(engine, seed);
    const events: RunEvent[] = [];
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const s = await runScenario(
      { ...deps(engine, []), calibrations: store },
      { scenario: adaptive(), neutralCnf: neutral, outDir: dir, onEvent: (e) => events.push(e) },
    );
    const m = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;
    return { s, events, m, engine };
  }

  it("a step of the wall clock mid-run leaves the budget alone: budgets and timings use a monotonic clock", async () => {
    // Only Date is fake: the wall clock jumps 2 hours ahead (an NTP step) once the first cell runs.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const { store } = memoryStore(null);
      const engine = new FakeEngine();
      const run = noisy(engine, 5);
      let stepped = false;
      engine.containers.run = async (spec, opts) => {
        const r = await run(spec, opts);
        if (!stepped && r.output.includes("queries:")) {
          stepped = true; // the first measured cell has run
          vi.setSystemTime(Date.now() + 2 * 3600_000);
        }
        return r;
      };
      const events: RunEvent[] = [];
      const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
      const s = await runScenario(
        { ...deps(engine, []), calibrations: store },
        { scenario: adaptive(), neutralCnf: neutral, outDir: dir, onEvent: (e) => events.push(e) },
      );
      expect(stepped).toBe(true);
      expect(s.status).toBe("ok");
      const rounds = events.filter(
        (e): e is Extract<RunEvent, { type: "round-finished" }> => e.type === "round-finished",
      );
      expect(rounds.length).toBeGreaterThanOrEqual(2);
      for (const r of rounds) expect(r.budgetLeftSeconds).toBeGreaterThan(25 * 60);
      expect(events.filter((e) => e.type === "warning" && /budget/.test(e.message))).toEqual([]);
      const m = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;
      expect(m.timings!.wall).toBeLessThan(600);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a fresh host: no calibration first, says so, forecasts from its own pairs, keeps the forecasts, makes the host's calibration", async () => {
    const { state, store } = memoryStore(null);
    const { s, events, m, engine } = await once(store, 11);
    expect(s.status).toBe("ok");
    // No calibration detour: the store is only read (once, before the cells) until the run's end writes it.
    expect(state.reads).toBe(2);
    expect(engine.created.size).toBe(0);
    const forecasts = events.filter((e): e is Extract<RunEvent, { type: "forecast" }> => e.type === "forecast");
    expect(forecasts[0]).toMatchObject({ forecast: null, note: NO_CALIBRATION });
    // It comes before any cell: the front ends show it at once.
    expect(events.indexOf(forecasts[0]!)).toBeLessThan(events.findIndex((e) => e.type === "cell-started"));
    const after = forecasts.slice(1).map((e) => e.forecast!);
    expect(after.length).toBeGreaterThanOrEqual(1);
    expect(after[0]).toMatchObject({ stage: "round", round: 2, source: "run" });
    const rounds = events.filter(
      (e): e is Extract<RunEvent, { type: "round-finished" }> => e.type === "round-finished",
    );
    for (const r of rounds)
      if (r.etaSeconds !== null && r.budgetLeftSeconds !== null)
        expect(r.etaSeconds).toBeLessThanOrEqual(r.budgetLeftSeconds);
    // Round 1 has no pairs, so no forecast: its ETA is the minimum rounds' time and says it is a lower bound.
    expect(rounds[0]).toMatchObject({ round: 1, etaMinimum: true });
    expect(rounds.slice(1).every((r) => r.etaMinimum === undefined)).toBe(true);
    // run.json keeps the forecasts beside what happened.
    expect(m.forecast).toMatchObject({ none: NO_CALIBRATION, forecasts: after });
    expect(typeof m.forecast!.setupSeconds).toBe("number");
    expect(typeof m.timings!.wall).toBe("number");
    // The run's pairs made the host's first calibration.
    expect(state.writes).toBe(1);
    expect(state.cal).toMatchObject({ hostKey: "fake-host", updates: 1, perSecond: null });
    expect(state.cal!.pairSdPct).toBeGreaterThan(0);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "calibration-updated", made: true, file: "/fake/fake-host.json" }),
    );
  });

  it("a designed run (run --budget --design) keeps the design's forecast in run.json, fixed count included", async () => {
    const engine = new FakeEngine();
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const design = {
      at: "2026-12-06T07:00:00.000Z",
      budgetSeconds: 1800,
      mode: "fixed" as const,
      cellSeconds: 5,
      rounds: 2,
      instances: 2,
      plannedSeconds: 1700,
      seconds: { median: 1750, low: 1650, high: 1850 },
      halfWidthPct: { median: 4, low: 3, high: 6 },
      cellPriorDf: 2.2,
    };
    const fixed = scenario({
      workload: { tests: ["oltp_point_select"], threads: [1], duration: "2s", repeats: 2, instances: 2 },
    });
    await runScenario(deps(engine, []), { scenario: fixed, neutralCnf: neutral, outDir: dir, design });
    const m = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;
    expect(m.forecast).toEqual({ forecasts: [], design });
  });

  it("the second run forecasts before its first round from what the first one left, and folds its pairs in too", async () => {
    const { state, store } = memoryStore(null);
    await once(store, 11);
    const first = state.cal!;
    const { events, m } = await once(store, 12);
    const f = events.find((e): e is Extract<RunEvent, { type: "forecast" }> => e.type === "forecast")!;
    expect(f.forecast).toMatchObject({ stage: "before", source: "calibration", cells: 2 });
    expect(f.forecast!.totalSeconds.high).toBeLessThanOrEqual(30 * 60);
    expect(m.forecast!.forecasts[0]).toEqual(f.forecast);
    expect(state.cal!.updates).toBe(2);
    expect(state.cal!.pairDf).toBeGreaterThan(first.pairDf);
    expect(events).toContainEqual(expect.objectContaining({ type: "calibration-updated", made: false }));
  });

  it("the first ratio figures come as soon as the first round ends: every cell's estimate, before round 2 starts", async () => {
    const { store } = memoryStore(null);
    const { events } = await once(store, 13);
    const first = events.findIndex((e) => e.type === "round-finished");
    expect(first).toBeGreaterThan(0);
    const round = events[first] as Extract<RunEvent, { type: "round-finished" }>;
    expect(round.round).toBe(1);
    // Round 1 has measured every cell on both servers, and no cell of round 2 has started yet.
    const before = events
      .slice(0, first)
      .filter(
        (e): e is Extract<RunEvent, { type: "cell-finished" }> =>
          e.type === "cell-finished" && e.record.phase === "measure",
      );
    expect(before.map((e) => `${e.cell.server}@${e.cell.threads}#${e.cell.repeat}`).sort()).toEqual([
      "a@1#1",
      "a@2#1",
      "b@1#1",
      "b@2#1",
    ]);
    const nextCell = events.findIndex((e) => e.type === "cell-started" && e.phase === "measure" && e.cell.repeat === 2);
    expect(nextCell).toBeGreaterThan(first);
    // Each cell has its one pair's ratio, and both front ends show it.
    expect(round.cells.map((c) => [c.threads, c.n])).toEqual([
      [1, 1],
      [2, 1],
    ]);
    for (const c of round.cells) expect(c.estimate).toBeGreaterThan(0);
    const line = plainLine(round)!;
    const view = reduce(events.slice(0, first + 1).reduce(reduce, initialState()), round);
    const tui = adaptiveLines(view, 200, 10).join("\n");
    for (const c of round.cells) {
      expect(line).toContain(`${c.test}@${c.threads} ${c.estimate!.toFixed(1)}`);
      expect(tui).toContain(`${c.test}@${c.threads}  ${c.estimate!.toFixed(1)}`);
    }
  });

  it("a fixed-count run folds its pairs in but makes no forecast; without a store nothing is read or written", async () => {
    const { state, store } = memoryStore(null);
    const engine = new FakeEngine();
    engine.containers.run = noisy(engine, 3);
    const events: RunEvent[] = [];
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    await runScenario(
      { ...deps(engine, []), calibrations: store },
      {
        scenario: scenario({
          workload: {
            tests: ["oltp_point_select"],
            threads: [1],
            duration: "2s",
            warmup: "1s",
            repeats: 3,
            instances: 1,
          },
        }),
        neutralCnf: neutral,
        outDir: dir,
        onEvent: (e) => events.push(e),
      },
    );
    expect(events.some((e) => e.type === "forecast")).toBe(false);
    expect(state.writes).toBe(1);
    const none = await runScenario(deps(new FakeEngine(), []), {
      scenario: adaptive(),
      neutralCnf: neutral,
      outDir: join(dir, "..", "none"),
      onEvent: () => undefined,
    });
    expect(none.status).toBe("ok");
  });
});

describe("an engine that stops answering mid-cell (a stopped dockerd)", () => {
  /**
   * From the first measured sysbench run on (2 s cells; the warm-up is 1 s), the engine is hung: pings fail, and every call of its containers,
   * volumes, networks and exec waits for ever (as on a SIGSTOPped dockerd, whose socket still takes requests).
   */
  function hungEngine(): FakeEngine {
    const engine = new FakeEngine();
    const never = () => new Promise<never>(() => undefined);
    for (const port of [engine.containers, engine.volumes, engine.networks, engine.exec] as unknown as Array<
      Record<string, (...a: unknown[]) => unknown>
    >)
      for (const [name, f] of Object.entries(port))
        port[name] = (...a: unknown[]) => (engine.alive ? f(...a) : never());
    const answer = engine.answerRun;
    engine.answerRun = (spec, opts) => {
      if ((spec.cmd ?? []).includes("run") && (spec.cmd ?? []).includes("--time=2")) {
        engine.alive = false;
        return never();
      }
      return answer(spec, opts);
    };
    return engine;
  }

  /** A storage whose facts and disposal go through the engine it is on: the run's, once onEngine gives it one. */
  function engineStorage(raw: FakeEngine, calls: string[], bind = true): StorageProvider {
    const on = (engine: Pick<FakeEngine, "volumes">): StorageProvider => ({
      async preflight() {},
      async provision(req): Promise<ProvisionedStorage> {
        await engine.volumes.create(`data-${req.serverId}`, {});
        return {
          mount: { kind: "volume", source: `data-${req.serverId}`, target: "/var/lib/mysql" },
          facts: { kind: req.spec.kind },
          warnings: [],
          needsHolder: true,
          refreshFacts: async () => {
            calls.push(`refresh ${req.serverId}`);
            await engine.volumes.inspect(`data-${req.serverId}`);
            return { kind: req.spec.kind };
          },
          dispose: async () => {
            calls.push(`dispose ${req.serverId}`);
            await engine.volumes.remove(`data-${req.serverId}`);
          },
        };
      },
      cleanLeftovers: async () => [],
      ...(bind ? { onEngine: (e) => on(e as unknown as FakeEngine) } : {}),
    });
    return on(raw);
  }

  it("the run ends at once with HOST_LOST, its storage's engine calls failing fast; run.json written and its lock given back", async () => {
    const engine = hungEngine();
    const calls: string[] = [];
    const events: RunEvent[] = [];
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const t0 = performance.now();
    // A grace far beyond the test's time: the run must end because nothing waits on the engine, not by the grace.
    const run = runScenario(
      { ...deps(engine, []), storage: engineStorage(engine, calls), watchEveryMs: 10, lostGraceMs: 600_000 },
      { scenario: scenario(), neutralCnf: neutral, outDir: dir, onEvent: (e) => events.push(e) },
    );
    await expect(run).rejects.toMatchObject({ code: "HOST_LOST" });
    expect(performance.now() - t0).toBeLessThan(5000);
    // Teardown went through every step on the lost engine: each failed fast instead of waiting for ever.
    expect(calls.sort()).toEqual(["dispose a", "dispose b", "refresh a", "refresh b"]);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "warning", message: expect.stringMatching(/storage of server a.*was lost/) }),
    );
    const finished = events.find((e) => e.type === "run-finished");
    expect(finished).toMatchObject({ status: "failed", message: expect.stringContaining('host "local" was lost') });
    const m = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;
    expect(m.status).toBe("failed");
    expect(m.endedAt).toBeDefined();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false); // the folder's lock was given back
  }, 10_000);

  it("a port that still waits on the lost engine (no onEngine) ends the run with HOST_LOST after the grace", async () => {
    const engine = hungEngine();
    const calls: string[] = [];
    const dir = join(await mkdtemp(join(tmpdir(), "tb-")), "out");
    const t0 = performance.now();
    const run = runScenario(
      { ...deps(engine, []), storage: engineStorage(engine, calls, false), watchEveryMs: 10, lostGraceMs: 300 },
      { scenario: scenario(), neutralCnf: neutral, outDir: dir },
    );
    await expect(run).rejects.toMatchObject({ code: "HOST_LOST" });
    expect(performance.now() - t0).toBeLessThan(5000);
    // The storage's facts waited on the raw engine: the teardown got no further, the grace ended the run.
    expect(calls).toEqual(["refresh a"]);
    // The teardown never reaches its own release: the folder's lock is given back all the same (the process exits
    // right after the grace, and a lock left behind would block a --resume on another host or namespace).
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  }, 10_000);
});
