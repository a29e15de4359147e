/**
 * Drives app/hosts.ts through fakes (engines, image ops, the per-host run engine): no Docker. Checks images sent
 * to every host, the parity refusal, the sharding rule and --force, a host lost mid-run (its cells go to the
 * survivor, one merged folder) and an unreachable host in a host comparison (partial).
 */
import { describe, expect, it } from "vitest";
import { SERVERS_BY_FAMILY, scenario as scenarioOf, type ScenarioOverrides } from "../../support/scenario.ts";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runHosts, HostGuard, guardedEngine, type HostTarget } from "../../../src/app/hosts.ts";
import type { RunDeps, RunOptions, RunSummary } from "../../../src/app/run.ts";
import type { ContainerSpec, RunResult } from "../../../src/core/model/engine/containers.ts";
import { FakeEngine } from "../../../test/support/fake-engine.ts";
import type { ImageOps } from "../../../src/adapters/images/transfer.ts";
import { ResultsStore } from "../../../src/adapters/results/store.ts";
import { LOCK_FILE } from "../../../src/adapters/results/lock.ts";
import { HostsFolder, isHostsFolder, readHostsResume } from "../../../src/adapters/results/hosts-folder.ts";
import { type Scenario } from "../../../src/core/model/scenario/schema.ts";
import { planRun } from "../../../src/core/plan/plan.ts";
import { parseSysbench } from "../../../src/core/model/sysbench/parse.ts";
import type { HostFacts, RunManifest } from "../../../src/core/model/results.ts";

const okLog = readFileSync(new URL("../../fixtures/sysbench/1.0/oltp_point_select-t1.log", import.meta.url), "utf8");

/** A host's engine: its facts, and what a run on it prints (dpkg-query's package list, else the host probe's output). */
function hostEngine(hostId: string, info: Partial<HostFacts> = {}, dpkg = "libc6=2.36-9\nmysql-server=9.7.4-2\n") {
  const e = new FakeEngine(hostId, {
    kernel: "6.1.0",
    os: "Debian 12",
    cpus: 2,
    memoryBytes: 2 ** 34,
    dockerVersion: "20.10",
    storageDriver: "overlay2",
    cgroupVersion: "1",
    ...info,
  });
  e.answerRun = (spec) => ({
    exitCode: 0,
    output:
      spec.entrypoint?.[0] === "dpkg-query"
        ? dpkg
        : "kernel=6.1.0\narch=x86_64\nnproc=2\ncpu=AMD EPYC\nvolfs=ext4\nvolopts=rw,relatime\n",
    timedOut: false,
    cancelled: false,
  });
  return e;
}

function fakeImages(
  labels: (host: string) => Record<string, string> = () => ({
    "twinbench.content-hash": "c0ffee",
    "twinbench.package-version": "9.7.4-2",
  }),
) {
  const present = new Map<string, Set<string>>();
  const sent: string[] = [];
  const ops: ImageOps = {
    async inspect(engine, ref) {
      return present.get(engine.hostId)?.has(ref)
        ? { id: `sha256:${ref.length}`, labels: labels(engine.hostId) }
        : undefined;
    },
    async send(from, to, ref) {
      sent.push(`${ref} ${from.hostId}->${to.hostId}`);
      present.set(to.hostId, new Set([...(present.get(to.hostId) ?? []), ref]));
      return { bytes: 1 << 20, seconds: 0.1 };
    },
  };
  return { ops, present, sent };
}

function target(e: FakeEngine, images: ReturnType<typeof fakeImages>): HostTarget {
  const deps = {
    engine: e,
    storage: {} as never,
    async ensureImage(name: string) {
      const tag = `twinbench/${name}:abc`;
      images.present.set(e.hostId, new Set([...(images.present.get(e.hostId) ?? []), tag]));
      return {
        name,
        tag,
        id: `sha256:${tag.length}`,
        family: name.startsWith("sysbench") ? ("sysbench" as const) : ("mysql" as const),
        version: "9.7",
        packageVersion: "9.7.4-2",
      };
    },
  } as RunDeps;
  return {
    spec: { id: e.hostId, engine: e.hostId === "a" ? "unix:///a.sock" : `tcp://${e.hostId}:2375` },
    engine: e,
    deps,
  };
}

/** The session id every fake run was given (the forced cleanup of a second Ctrl-C removes by that label). */
const sessions: Array<string | undefined> = [];
/** "<host> <folder> resume|new <run id>" per fake run. */
const resumed: string[] = [];

/** A run engine that writes a results folder with an ok record for each accepted cell; `die` loses the host after n cells. */
/** `die[host]`: that host's engine dies after `after` cells; `hang`: the run then waits for ever (a stopped engine). */
function fakeRunOne(calls: string[], die: Record<string, { engine: FakeEngine; after: number; hang?: boolean }> = {}) {
  return async (deps: RunDeps, opts: RunOptions): Promise<RunSummary> => {
    const host = deps.engine.hostId;
    calls.push(`${host} ${opts.outDir.split("/hosts/")[1]}`);
    sessions.push(opts.sessionId);
    resumed.push(`${host} ${opts.outDir.split("/hosts/")[1]} ${opts.resume ? "resume" : "new"} ${opts.runId}`);
    const plan = planRun(opts.scenario);
    const store = opts.resume ? await ResultsStore.open(opts.outDir) : await ResultsStore.create(opts.outDir);
    opts.onFolderLocked?.(() => store.release()); // as runScenario does; released by the caller when it gives up
    const done = new Set(opts.resume ? (await store.readCells()).map((r) => r.key) : []);
    const manifest: RunManifest = {
      runId: opts.runId!,
      twinbenchVersion: "0",
      scenario: opts.scenario,
      overrides: [],
      cells: plan.cells,
      estimateSeconds: 1,
      hosts: [await deps.engine.facts()],
      servers: [],
      startedAt: "2026-01-01T00:00:00Z",
      status: "running",
    };
    await store.writeManifest(manifest);
    let n = 0;
    for (const c of plan.cells.filter((x) => (opts.cellFilter?.(x) ?? true) && !done.has(x.key))) {
      const d = die[host];
      if (d && n >= d.after) {
        d.engine.alive = false;
        if (d.hang) await new Promise<never>(() => undefined);
        await deps.engine.containers.run({ name: "x", image: "y", labels: {} }, {}); // hangs or throws like a dead engine
      }
      await store.appendCell({
        key: c.key,
        server: c.server,
        test: c.test,
        threads: c.threads,
        repeat: c.repeat,
        phase: "measure",
        status: "ok",
        metrics: parseSysbench(okLog),
        raw: `raw/${c.server}/${c.test}.log`,
        startedAt: "t",
        endedAt: "t",
        host: c.host,
      });
      await store.writeRaw(`${c.server}/${c.test}.log`, "log");
      n++;
    }
    await store.writeManifest({ ...manifest, status: "ok", endedAt: "2026-01-01T00:01:00Z" });
    return { status: "ok", exitCode: 0, dir: opts.outDir, runId: opts.runId!, cellsOk: n, cellsFailed: 0 };
  };
}

const scenario = (extra: ScenarioOverrides) =>
  scenarioOf(
    [
      {
        servers: SERVERS_BY_FAMILY,
        workload: { tests: ["oltp_point_select", "oltp_read_only"], threads: [1], duration: "2s", repeats: 2 },
        hosts: [
          { id: "a", engine: "unix:///a.sock" },
          { id: "b", engine: "tcp://b:2375" },
        ],
      },
      extra,
    ],
    { check: "schema" },
  );

const baseOpts = async (s: Scenario) => ({
  scenario: s,
  neutralCnf: "",
  outDir: join(await mkdtemp(join(tmpdir(), "tb-hosts-")), "run"),
  runId: "r1",
});

describe("runHosts", () => {
  it("compare: hosts: images sent once per host, parity checked, one folder per host, the host report", async () => {
    const [a, b] = [hostEngine("a"), hostEngine("b")];
    const images = fakeImages();
    const calls: string[] = [];
    const opts = await baseOpts(scenario({ servers: [{ id: "mysql", image: "mysql-9.7" }], compare: "hosts" }));
    const r = await runHosts(
      { hosts: [target(a, images), target(b, images)], images: images.ops, runOne: fakeRunOne(calls) },
      opts,
    );
    expect(r.status).toBe("ok");
    expect(images.sent.sort()).toEqual(["twinbench/mysql-9.7:abc a->b", "twinbench/sysbench-1.0:abc a->b"]);
    expect(calls.sort()).toEqual(["a a", "b b"]);
    expect((await readdir(join(opts.outDir, "hosts"))).sort()).toEqual(["a", "b"]);
    const md = await readFile(join(opts.outDir, "report-hosts.md"), "utf8");
    expect(md).toContain("## mysql: host a / host b");
    expect(r.reportText).toContain("(mysql@a q/s / mysql@b q/s * 100)");
    // probes and package checks ran on both hosts; their volumes are gone
    expect(b.runs.map((x) => x.entrypoint?.[0])).toEqual(["sh", "dpkg-query", "dpkg-query"]);
    expect(b.volumeNames.size).toBe(0);
    expect(b.runs.every((x) => x.labels["twinbench.host"] === "b" && x.labels["twinbench.run"] === "r1-b")).toBe(true);
  });

  it("refuses to compare when a pinned image differs between hosts, before any run", async () => {
    const [a, b] = [hostEngine("a"), hostEngine("b", {}, "libc6=2.36-10\nmysql-server=9.7.4-2\n")];
    const images = fakeImages();
    const calls: string[] = [];
    await expect(
      runHosts(
        { hosts: [target(a, images), target(b, images)], images: images.ops, runOne: fakeRunOne(calls) },
        await baseOpts(scenario({ compare: "hosts" })),
      ),
    ).rejects.toMatchObject({
      code: "IMAGE_PARITY",
      problems: expect.arrayContaining(["mariadb-11.8 package libc6: a=2.36-9, b=2.36-10"]),
    });
    expect(calls).toEqual([]);
  });

  it("shard: refuses unlike hosts, --force runs and says the hosts were mixed", async () => {
    const mk = () => [hostEngine("a"), hostEngine("b", { kernel: "6.2.0" })] as const;
    const images = fakeImages();
    const [a, b] = mk();
    await expect(
      runHosts(
        { hosts: [target(a, images), target(b, images)], images: images.ops, runOne: fakeRunOne([]) },
        await baseOpts(scenario({ shard: true })),
      ),
    ).rejects.toMatchObject({ code: "HOSTS_DIFFER" });
    const [a2, b2] = mk();
    const opts = await baseOpts(scenario({ shard: true }));
    const r = await runHosts(
      { hosts: [target(a2, images), target(b2, images)], images: images.ops, runOne: fakeRunOne([]) },
      { ...opts, force: true },
    );
    expect(r.status).toBe("ok");
    const m = JSON.parse(await readFile(join(opts.outDir, "run.json"), "utf8")) as RunManifest;
    expect(m.hostsMixed).toEqual(["kernel: a=6.1.0, b=6.2.0"]);
    expect(await readFile(join(opts.outDir, "report-hosts.md"), "utf8")).toContain("MIXED HOSTS");
  });

  it("shard: a host lost mid-run is reported by id, its remaining cells go to the survivor, one merged folder", async () => {
    const [a, b] = [hostEngine("a"), hostEngine("b")];
    const images = fakeImages();
    const calls: string[] = [];
    const opts = await baseOpts(scenario({ shard: true }));
    const plan = planRun(opts.scenario);
    sessions.length = 0;
    const r = await runHosts(
      {
        hosts: [target(a, images), target(b, images)],
        images: images.ops,
        // b's run never ends by itself: the grace ends it
        runOne: fakeRunOne(calls, { b: { engine: b, after: 1, hang: true } }),
        watchEveryMs: 10,
        lostGraceMs: 50,
      },
      { ...opts, sessionId: "sess1" },
    );
    expect(calls).toEqual(expect.arrayContaining(["a a", "b b", "a a.pass2"]));
    // Every host's every pass carries the session id the CLI gave: one label covers them all.
    expect(sessions).toEqual(calls.map(() => "sess1"));
    expect(r.hosts.find((h) => h.id === "b")).toMatchObject({
      status: "unreachable",
      error: expect.stringContaining("stopped answering"),
    });
    const cells = (await readFile(join(opts.outDir, "cells.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { key: string; host: string; raw: string });
    expect(cells.map((c) => c.key).sort()).toEqual(plan.cells.map((c) => c.key).sort());
    const moved = cells.filter((c) => c.key.startsWith("b/") && c.host === "a");
    expect(moved.length).toBe(plan.cells.filter((c) => c.host === "b").length - 1);
    expect(moved.every((c) => c.raw.startsWith("raw/a.pass2/"))).toBe(true);
    const m = JSON.parse(await readFile(join(opts.outDir, "run.json"), "utf8")) as RunManifest;
    expect(m.status).toBe("ok");
    expect(m.hostFailures?.[0]?.host).toBe("b");
    expect(r.reportText).toContain("host b was lost");
    // The lost host's run never ended by itself: its part folder's lock was given back when the grace ran out.
    expect(existsSync(join(opts.outDir, "hosts", "b", LOCK_FILE))).toBe(false);
  });

  it("compare: hosts with an unreachable host: named by id, the run ends partial", async () => {
    const [a, b] = [hostEngine("a"), hostEngine("b")];
    b.alive = false;
    const images = fakeImages();
    const r = await runHosts(
      { hosts: [target(a, images), target(b, images)], images: images.ops, runOne: fakeRunOne([]), pingTimeoutMs: 100 },
      await baseOpts(scenario({ compare: "hosts" })),
    );
    expect(r.status).toBe("partial");
    expect(r.exitCode).toBe(1);
    expect(r.reportText).toContain("host b (tcp://b:2375): unreachable");
  });
});

/** hosts.json's notes and report-hosts.md of a finished host comparison. */
async function notesOf(
  dir: string,
): Promise<{ notes: string[]; md: string; hosts: Array<{ id: string; status: string }> }> {
  const j = JSON.parse(await readFile(join(dir, "hosts.json"), "utf8")) as {
    notes: string[];
    hosts: Array<{ id: string; status: string }>;
  };
  return { notes: j.notes, hosts: j.hosts, md: await readFile(join(dir, "report-hosts.md"), "utf8") };
}

describe("runHosts: what goes wrong becomes a note", () => {
  const cmp = () => scenario({ servers: [{ id: "mysql", image: "mysql-9.7" }], compare: "hosts" });

  it("a host whose run.json is damaged stays in the report, with a note, and the run is partial", async () => {
    const [a, b] = [hostEngine("a"), hostEngine("b")];
    const images = fakeImages();
    const opts = await baseOpts(cmp());
    const runOne = async (deps: RunDeps, o: RunOptions): Promise<RunSummary> => {
      const r = await fakeRunOne([])(deps, o);
      if (deps.engine.hostId === "b") await writeFile(join(o.outDir, "run.json"), '{"runId": "r1-b", "scen');
      return r;
    };
    const r = await runHosts({ hosts: [target(a, images), target(b, images)], images: images.ops, runOne }, opts);
    expect(r.status).toBe("partial");
    const { notes, md, hosts } = await notesOf(opts.outDir);
    expect(hosts.map((h) => h.id)).toEqual(["a", "b"]);
    expect(notes).toEqual([
      expect.stringMatching(
        /^the results in hosts\/b are damaged and left out of this report \(.*run\.json is not valid JSON\)/,
      ),
    ]);
    expect(md).toContain("hosts/b are damaged");
  });

  it("a failed host that cannot be cleaned up is a note that names the run and the way out", async () => {
    const [a, b] = [hostEngine("a"), hostEngine("b")];
    b.listFailure = new Error("engine said 500");
    const images = fakeImages();
    const opts = await baseOpts(cmp());
    const runOne = async (deps: RunDeps, o: RunOptions): Promise<RunSummary> => {
      if (deps.engine.hostId === "b") throw new Error("server failed to start");
      return fakeRunOne([])(deps, o);
    };
    const r = await runHosts({ hosts: [target(a, images), target(b, images)], images: images.ops, runOne }, opts);
    expect(r.hosts.find((h) => h.id === "b")?.status).toBe("failed");
    const { notes, md } = await notesOf(opts.outDir);
    expect(notes).toEqual(["host b: cleanup of run r1-b failed (engine said 500): run `twinbench clean --host b`"]);
    expect(md).toContain("cleanup of run r1-b failed");
  });

  it("package versions that cannot be read: parity falls back to labels with a note; no dpkg in the image is no note", async () => {
    const [a, b] = [hostEngine("a"), hostEngine("b")];
    const fail = (e: FakeEngine, how: () => Promise<RunResult>) => {
      const run = e.containers.run;
      e.containers.run = async (spec: ContainerSpec, o) =>
        spec.entrypoint?.[0] === "dpkg-query" ? how() : run(spec, o);
    };
    fail(a, () =>
      Promise.reject(
        Object.assign(new Error('exec: "dpkg-query": executable file not found in $PATH'), { statusCode: 400 }),
      ),
    );
    fail(b, () => Promise.reject(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })));
    const images = fakeImages();
    const opts = await baseOpts(cmp());
    const r = await runHosts(
      { hosts: [target(a, images), target(b, images)], images: images.ops, runOne: fakeRunOne([]) },
      opts,
    );
    expect(r.status).toBe("ok");
    const { notes, md } = await notesOf(opts.outDir);
    expect(notes).toEqual([
      "parity fell back to labels on host b: image twinbench/mysql-9.7:abc: cannot list its packages (socket hang up)",
      "parity fell back to labels on host b: image twinbench/sysbench-1.0:abc: cannot list its packages (socket hang up)",
    ]);
    expect(md).toContain("parity fell back to labels on host b");
  });

  it("dpkg-query that fails is a note with its exit code and last lines", async () => {
    const [a, b] = [hostEngine("a"), hostEngine("b")];
    for (const e of [a, b]) {
      const run = e.containers.run;
      e.containers.run = async (spec: ContainerSpec, o) =>
        spec.entrypoint?.[0] === "dpkg-query"
          ? {
              exitCode: 2,
              output: "dpkg-query: error: cannot open /var/lib/dpkg/status\n",
              timedOut: false,
              cancelled: false,
            }
          : run(spec, o);
    }
    const images = fakeImages();
    const opts = await baseOpts(cmp());
    await runHosts({ hosts: [target(a, images), target(b, images)], images: images.ops, runOne: fakeRunOne([]) }, opts);
    expect((await notesOf(opts.outDir)).notes).toContain(
      "parity fell back to labels on host a: image twinbench/mysql-9.7:abc: dpkg-query exited with 2: dpkg-query: error: cannot open /var/lib/dpkg/status",
    );
  });
});

describe("runHosts --resume", () => {
  const cellsOf = async (dir: string) =>
    (await readFile(join(dir, "cells.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { key: string; host: string });

  it("compare: hosts: each host resumes its own folder on its own engine, records kept, the reports rewritten", async () => {
    const [a, b] = [hostEngine("a"), hostEngine("b")];
    const images = fakeImages();
    const opts = await baseOpts(scenario({ compare: "hosts" }));
    const plan = planRun(opts.scenario);
    const first = await runHosts(
      {
        hosts: [target(a, images), target(b, images)],
        images: images.ops,
        runOne: fakeRunOne([], { b: { engine: b, after: 1 } }),
        watchEveryMs: 10,
        lostGraceMs: 50,
      },
      opts,
    );
    expect(first.status).toBe("partial");
    const before = await readFile(join(opts.outDir, "hosts", "b", "cells.jsonl"), "utf8");
    expect(before.trim().split("\n")).toHaveLength(1);
    const recorded = JSON.parse(await readFile(join(opts.outDir, "hosts-run.json"), "utf8")) as {
      runId: string;
      scenario: Scenario;
    };
    expect(recorded.runId).toBe("r1");

    b.alive = true;
    resumed.length = 0;
    const r = await runHosts(
      { hosts: [target(a, images), target(b, images)], images: images.ops, runOne: fakeRunOne([]) },
      { ...opts, scenario: recorded.scenario, resume: true },
    );
    expect(r.status).toBe("ok");
    expect(resumed.sort()).toEqual(["a a resume r1-a", "b b resume r1-b"]);
    const after = await readFile(join(opts.outDir, "hosts", "b", "cells.jsonl"), "utf8");
    expect(after.startsWith(before)).toBe(true);
    const bCells = await cellsOf(join(opts.outDir, "hosts", "b"));
    expect(bCells.map((c) => c.key).sort()).toEqual(
      plan.cells
        .filter((c) => c.host === "b")
        .map((c) => c.key)
        .sort(),
    );
    const hostsJson = JSON.parse(await readFile(join(opts.outDir, "hosts.json"), "utf8")) as {
      hosts: Array<{ id: string; status: string }>;
    };
    expect(hostsJson.hosts.map((h) => `${h.id}:${h.status}`)).toEqual(["a:ok", "b:ok"]);
  });

  it("a host that does not answer is an error that names it and the way out; nothing runs", async () => {
    const [a, b] = [hostEngine("a"), hostEngine("b")];
    const images = fakeImages();
    const opts = await baseOpts(scenario({ compare: "hosts" }));
    await runHosts({ hosts: [target(a, images), target(b, images)], images: images.ops, runOne: fakeRunOne([]) }, opts);
    b.alive = false;
    const calls: string[] = [];
    await expect(
      runHosts(
        {
          hosts: [target(a, images), target(b, images)],
          images: images.ops,
          runOne: fakeRunOne(calls),
          pingTimeoutMs: 50,
        },
        { ...opts, resume: true },
      ),
    ).rejects.toMatchObject({
      code: "HOST_UNREACHABLE",
      message: expect.stringContaining("host b (engine tcp://b:2375 does not answer"),
      hint: expect.stringContaining("--host b=URL"),
    });
    expect(calls).toEqual([]);
  });

  it("shard: a host's resume skips the cells a later pass already did; a new pass is numbered after the folder's", async () => {
    const [a, b] = [hostEngine("a"), hostEngine("b")];
    const images = fakeImages();
    const opts = await baseOpts(scenario({ shard: true }));
    const plan = planRun(opts.scenario);
    await runHosts(
      {
        hosts: [target(a, images), target(b, images)],
        images: images.ops,
        runOne: fakeRunOne([], { b: { engine: b, after: 1 } }),
        watchEveryMs: 10,
        lostGraceMs: 50,
      },
      opts,
    );
    expect((await readdir(join(opts.outDir, "hosts"))).sort()).toEqual(["a", "a.pass2", "b"]);
    b.alive = true;
    resumed.length = 0;
    const r = await runHosts(
      {
        hosts: [target(a, images), target(b, images)],
        images: images.ops,
        runOne: fakeRunOne([], { a: { engine: a, after: 0 } }),
        watchEveryMs: 10,
        lostGraceMs: 50,
      },
      { ...opts, resume: true },
    );
    // b had nothing left (a.pass2 did its cells); a died at once: nothing of a's was missing, so nothing moves.
    expect(resumed.sort()).toEqual(["a a resume r1-a", "b b resume r1-b"]);
    expect(r.status).toBe("ok");
    const cells = await cellsOf(opts.outDir);
    expect([...new Set(cells.map((c) => c.key))].sort()).toEqual(plan.cells.map((c) => c.key).sort());
  });

  it("shard: cells of a host lost during the resume go to a pass numbered after the folder's", async () => {
    const [a, b] = [hostEngine("a"), hostEngine("b")];
    const images = fakeImages();
    const opts = await baseOpts(scenario({ shard: true }));
    const plan = planRun(opts.scenario);
    await runHosts(
      {
        hosts: [target(a, images), target(b, images)],
        images: images.ops,
        runOne: fakeRunOne([], { b: { engine: b, after: 1 } }),
        watchEveryMs: 10,
        lostGraceMs: 50,
      },
      { ...opts, signal: AbortSignal.abort() },
    ).catch(() => undefined); // cancelled before any run: only hosts-run.json and hosts/
    b.alive = true;
    const r = await runHosts(
      {
        hosts: [target(a, images), target(b, images)],
        images: images.ops,
        runOne: fakeRunOne([], { b: { engine: b, after: 1 } }),
        watchEveryMs: 10,
        lostGraceMs: 50,
      },
      { ...opts, resume: true },
    );
    expect(r.status).toBe("ok");
    expect((await readdir(join(opts.outDir, "hosts"))).sort()).toEqual(["a", "a.pass2", "b"]);
    b.alive = true;
    resumed.length = 0;
    await writeFile(join(opts.outDir, "hosts", "b", "cells.jsonl"), ""); // b's one cell lost: b must run it again, or a in pass 3
    await mkdir(join(opts.outDir, "hosts", "b.pass2"), { recursive: true });
    const r2 = await runHosts(
      {
        hosts: [target(a, images), target(b, images)],
        images: images.ops,
        runOne: fakeRunOne([], { b: { engine: b, after: 0 } }),
        watchEveryMs: 10,
        lostGraceMs: 50,
      },
      { ...opts, resume: true },
    );
    expect(resumed).toContain("a a.pass3 new r1-a-p3");
    expect(r2.status).toBe("ok");
    const cells = await cellsOf(opts.outDir);
    expect([...new Set(cells.map((c) => c.key))].sort()).toEqual(plan.cells.map((c) => c.key).sort());
  });
});

describe("HostsFolder", () => {
  it("hosts-run.json is written first; parts are listed pass 1 first; a folder without hosts-run.json resumes from a part's run.json", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "tb-hf-")), "run");
    const s = scenario({ compare: "hosts" });
    const f = await HostsFolder.create(dir, {
      runId: "20260101-000000-abcd",
      scenario: s,
      overrides: ["x=1"],
      imageTransfer: "build",
    });
    expect(await readHostsResume(dir)).toMatchObject({
      runId: "20260101-000000-abcd",
      imageTransfer: "build",
      overrides: ["x=1"],
    });
    for (const p of ["b.pass3", "a", "b", "a.pass2", "notes.txt~"]) await mkdir(f.partDir(p), { recursive: true });
    expect((await f.parts()).map((p) => `${p.host}/${p.pass}/${p.folder}`)).toEqual([
      "a/1/a",
      "b/1/b",
      "a/2/a.pass2",
      "b/3/b.pass3",
    ]);
    await rm(join(dir, "hosts-run.json"));
    const m: RunManifest = {
      runId: "20260101-000000-abcd-b",
      twinbenchVersion: "0",
      scenario: s,
      overrides: [],
      cells: [],
      estimateSeconds: 1,
      hosts: [],
      servers: [],
      startedAt: "t",
      status: "cancelled",
    };
    await writeFile(join(f.partDir("b"), "run.json"), JSON.stringify(m));
    await writeFile(join(f.partDir("b"), "cells.jsonl"), "");
    expect(await readHostsResume(dir)).toMatchObject({
      runId: "20260101-000000-abcd",
      scenario: { hosts: [{ id: "a" }, { id: "b" }] },
    });
    await expect(readHostsResume(join(dir, "hosts", "b"))).rejects.toMatchObject({ code: "RESULTS_NOT_FOUND" });
    expect(await isHostsFolder(dir)).toBe(true);
    expect(await isHostsFolder(f.partDir("b"))).toBe(false);
  });

  it("a resume refuses a run id not in the generated form, in hosts-run.json or derived from a part, naming value and file", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "tb-hf-")), "run");
    const s = scenario({ compare: "hosts" });
    const f = await HostsFolder.create(dir, { runId: "..", scenario: s, overrides: [] });
    await expect(readHostsResume(dir)).rejects.toMatchObject({
      code: "RESULTS_INVALID",
      message: expect.stringContaining(`${join(dir, "hosts-run.json")}: runId: ".." is not a run id twinbench makes`),
    });
    // Without hosts-run.json: the run id derived from a part's run.json (`<run>-<host>`) is checked the same way.
    await rm(join(dir, "hosts-run.json"));
    await mkdir(f.partDir("b"), { recursive: true });
    const m = { runId: "x-b", twinbenchVersion: "0", scenario: s, overrides: [], cells: [], estimateSeconds: 1 };
    await writeFile(
      join(f.partDir("b"), "run.json"),
      JSON.stringify({ ...m, hosts: [], servers: [], startedAt: "t", status: "cancelled" }),
    );
    await writeFile(join(f.partDir("b"), "cells.jsonl"), "");
    await expect(readHostsResume(dir)).rejects.toMatchObject({
      code: "RESULTS_INVALID",
      message: expect.stringContaining(`${join(f.partDir("b"), "run.json")}: runId: "x"`),
    });
  });

  it("a part without run.json reads as nothing; a damaged one is raised, or heard by onDamaged", async () => {
    const f = await HostsFolder.create(join(await mkdtemp(join(tmpdir(), "tb-hf-")), "run"), {
      runId: "r",
      scenario: scenario({}),
      overrides: [],
    });
    expect(await f.readPart("a")).toBeUndefined();
    await mkdir(f.partDir("b"), { recursive: true });
    await writeFile(join(f.partDir("b"), "run.json"), "{torn");
    await expect(f.readPart("b")).rejects.toMatchObject({ code: "RESULTS_INVALID" });
    const heard: string[] = [];
    expect(await f.readCells(["a", "b"], (folder, why) => heard.push(`${folder}: ${why}`))).toEqual([]);
    expect(heard).toEqual([expect.stringMatching(/^b: .*run\.json is not valid JSON/)]);
  });

  it("writeMerged returns the raw logs it could not copy; a log never written is not one", async () => {
    const f = await HostsFolder.create(join(await mkdtemp(join(tmpdir(), "tb-hf-")), "run"), {
      runId: "r",
      scenario: scenario({}),
      overrides: [],
    });
    await mkdir(join(f.partDir("a"), "raw"), { recursive: true });
    await writeFile(join(f.partDir("a"), "raw", "x.log"), "log");
    await mkdir(join(f.dir, "raw"), { recursive: true });
    await writeFile(join(f.dir, "raw", "a"), "a file where the folder goes");
    const manifest = { runId: "r1" } as RunManifest;
    const notCopied = await f.writeMerged({
      manifest,
      cells: [],
      rawCopies: [
        { from: "hosts/a/raw", to: "raw/a" },
        { from: "hosts/b/raw", to: "raw/b" },
      ],
    });
    expect(notCopied).toEqual([expect.stringMatching(/^hosts\/a\/raw: /)]);
  });
});

describe("HostGuard", () => {
  it("a lost host rejects calls in flight and new ones; kill never rejects on a dead connection", async () => {
    const e = hostEngine("b");
    const guard = new HostGuard("b");
    const g = guardedEngine(e, { id: "b", kernel: "x" }, guard);
    expect(await g.facts()).toEqual({ id: "b", kernel: "x" });
    const hanging = g.volumes.create("v", {}).then(() => new Promise(() => undefined));
    const inFlight = guard.guard(hanging as Promise<unknown>);
    guard.declareLost("test");
    await expect(inFlight).rejects.toMatchObject({ code: "HOST_LOST" });
    await expect(g.ping()).rejects.toMatchObject({
      code: "HOST_LOST",
      message: expect.stringContaining('host "b" was lost'),
    });
    e.alive = false;
    const free = guardedEngine(e, { id: "b" });
    await expect(free.containers.kill("x")).resolves.toBeUndefined();
  });
});
