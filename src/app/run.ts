/**
 * Orchestrates one run: plan → images → servers (storage, config, readiness, bench user, prepare, snapshot)
 * → cells in plan order from the load sidecar → results folder → teardown, always. Emits typed events only;
 * front ends own the screen and the exit code.
 */
import { randomBytes } from "node:crypto";
import { hostname as osHostname, loadavg } from "node:os";
import { CancelledError, TwinbenchError, InputError } from "../core/errors.ts";
import type { EventSink, RunEvent, Phase } from "../core/events.ts";
import { resourceLabels, resourceName, LABEL } from "../core/labels.ts";
import type { Cell, CellRecord, RunManifest, ServerManifest, MustMatchRow, HostFacts } from "../core/results.ts";
import type { Scenario } from "../core/scenario/schema.ts";
import { parseDuration, parseSize } from "../core/scenario/schema.ts";
import type { SysbenchResult } from "../core/sysbench/result.ts";
import { parseSysbench, parseIntervalLine } from "../core/sysbench/parse.ts";
import { sysbenchArgv } from "../core/sysbench/argv.ts";
import { planRun, isWriteTest } from "../core/plan/plan.ts";
import { mustMatch } from "../core/config/mustmatch.ts";
import { scenarioFingerprint } from "../core/plan/fingerprint.ts";
import { engineError, type Engine } from "../adapters/docker/engine.ts";
import { probeHostFacts } from "../adapters/docker/host-probe.ts";
import { hasProbe } from "../core/hosts/facts.ts";
import { isEngineConnectionError } from "../adapters/docker/connect.ts";
import type { StorageProvider } from "../adapters/storage/types.ts";
import { ResultsStore } from "../adapters/results/store.ts";
import { mysql2Probe, type Probe } from "../adapters/mysql/probe.ts";
import { DisposableStack } from "./disposables.ts";
import { LabServer, labServerInit } from "./lab-server.ts";

export const TWINBENCH_VERSION = "0.1.0";

/** A pinned image as the run engine uses it: lock name, tag, id, family and versions. */
export interface ImageInfo {
  name: string;
  tag: string;
  id: string;
  family: "mariadb" | "mysql" | "sysbench";
  version: string;
  packageVersion?: string;
  cacheHit?: boolean;
}

/** The adapters {@link runScenario} runs on: engine, storage, images, report writer (see createRunDeps). */
export interface RunDeps {
  engine: Engine;
  storage: StorageProvider;
  /** Build or find a pinned image (cache hit when present). */
  ensureImage(name: string, onProgress: (step: string, line?: string) => void, signal?: AbortSignal): Promise<ImageInfo>;
  /** Write report.md/html/json and comparison.csv for a results folder. */
  writeReports?(dir: string): Promise<unknown>;
  /** SQL probes (default: mysql2). */
  probe?: Probe;
  now?: () => Date;
}

/** What to run and how: the scenario, its neutral config text, the results folder, cancellation, events. */
export interface RunOptions {
  scenario: Scenario;
  scenarioFile?: string;
  overrides?: string[];
  /** Neutral config text (config.base). */
  neutralCnf: string;
  outDir: string;
  /** Run id for a new run (default: derived from the time). */
  runId?: string;
  resume?: boolean;
  /** Run only the planned cells this accepts (sharding, host-vs-host: `c => c.host === id`). */
  cellFilter?: (c: Cell) => boolean;
  /** Start servers, capture variables and the must-match table, then tear down (config diff). */
  identityOnly?: boolean;
  failFast?: boolean;
  strict?: boolean;
  wipeDevices?: boolean;
  readyTimeoutMs?: number;
  sessionId?: string;
  signal?: AbortSignal;
  /** A second signal that means "skip the current cell" (TUI `s`). Re-armed by the caller via `control`. */
  control?: RunControl;
  onEvent?: EventSink;
  /** Container id of twinbench itself when it runs inside a container (compose). */
  selfContainerId?: string;
}

/** Lets a front end skip the current cell. */
export class RunControl {
  private current: AbortController | undefined;
  arm(): AbortSignal {
    this.current = new AbortController();
    return this.current.signal;
  }
  skipCurrent(): void {
    this.current?.abort();
  }
}

/** How a run ended: status, the CLI's exit code for it, the results folder, cell counts. */
export interface RunSummary {
  status: "ok" | "partial" | "failed" | "cancelled";
  exitCode: 0 | 1 | 2 | 130;
  dir: string;
  runId: string;
  cellsOk: number;
  cellsFailed: number;
}

const BENCH_USER = "sbtest";
const BENCH_DB = "sbtest";

function newRunId(now: Date): string {
  const t = now.toISOString().replace(/[-:]/g, "").replace(/\..*/, "").replace("T", "-");
  return `${t}-${randomBytes(2).toString("hex")}`;
}

/** Run a scenario end to end. Never throws for cell failures; throws only for set-up errors (after teardown). */
export async function runScenario(deps: RunDeps, opts: RunOptions): Promise<RunSummary> {
  const now = deps.now ?? (() => new Date());
  const at = () => now().toISOString();
  const emit = (e: RunEvent) => opts.onEvent?.(e);
  const signal = opts.signal ?? new AbortController().signal;
  const scenario = opts.scenario;
  const plan = planRun(scenario);
  const stack = new DisposableStack();
  const sessionId = opts.sessionId ?? randomBytes(6).toString("hex");
  const { engine } = deps;
  const probe = deps.probe ?? mysql2Probe;
  const timings: Record<string, number> = {};
  const time = async <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    try {
      return await fn();
    } finally {
      timings[key] = (timings[key] ?? 0) + (Date.now() - t0) / 1000;
    }
  };
  const wallStart = Date.now();

  // Storage preflight (tools, privileges) for every server before anything is created, results folder included.
  for (const s of scenario.servers) await deps.storage.preflight(s.storage ?? scenario.storage);

  // Results folder: create (or reopen for --resume) before anything touches the engine.
  let store: ResultsStore;
  let previous: CellRecord[] = [];
  let runId: string;
  let manifest: RunManifest;
  let torn: { movedTo: string } | undefined;
  const fingerprint = scenarioFingerprint(scenario, opts.neutralCnf);
  if (opts.resume) {
    store = await ResultsStore.open(opts.outDir);
    const old = await store.readManifest();
    const oldFp = (old as RunManifest & { fingerprint?: string }).fingerprint;
    if (oldFp !== fingerprint)
      throw new InputError(`cannot resume ${opts.outDir}: the scenario, its pins or its config differ from the original run`, {
        code: "RESUME_MISMATCH",
        hint: "resume with the same scenario file, --set overrides and lab config; or start a new run",
      });
    torn = await store.setAsideTornLine();
    previous = await store.readCells();
    runId = old.runId;
    manifest = { ...old, status: "running", endedAt: undefined };
  } else {
    runId = opts.runId ?? newRunId(now());
    store = await ResultsStore.create(opts.outDir);
    manifest = {
      runId,
      twinbenchVersion: TWINBENCH_VERSION,
      scenarioFile: opts.scenarioFile,
      scenario,
      overrides: opts.overrides ?? [],
      cells: plan.cells,
      estimateSeconds: plan.estimate.totalSeconds,
      hosts: [],
      servers: [],
      startedAt: at(),
      status: "running",
      actions: [],
    };
    (manifest as RunManifest & { fingerprint?: string }).fingerprint = fingerprint;
  }
  const action = (act: string, server?: string, detail?: string) => manifest.actions!.push({ at: at(), server, action: act, detail });
  await store.writeManifest(manifest);

  const doneKeys = new Set(previous.filter((r) => r.phase === "measure" && r.status === "ok").map((r) => r.key));
  const todo = plan.cells.filter((c) => !doneKeys.has(c.key) && (opts.cellFilter?.(c) ?? true));

  const serverIds = scenario.servers.map((s) => s.id);
  emit({
    type: "plan-ready",
    at: at(),
    runId,
    dir: store.dir,
    scenario: scenario.name,
    cells: plan.cells,
    estimateSeconds: plan.estimate.totalSeconds,
    servers: scenario.servers.map((s) => ({ id: s.id, image: s.image })),
    storage: scenario.storage.kind,
    transport: scenario.load.transport,
  });
  if (torn) emit({ type: "warning", at: at(), message: `cells.jsonl ended in a torn line (a crash mid-write): moved it to ${torn.movedTo}, so every later record starts on a line of its own` });
  for (const r of previous) emit({ type: r.status === "ok" ? "cell-finished" : "cell-failed", at: at(), cell: plan.cells.find((c) => c.key === r.key) ?? cellOf(r), record: r });

  const labelCtx = { sessionId, runId, hostId: engine.hostId, pid: process.pid, hostname: osHostname() };
  const labels = (extra: Record<string, string>) => resourceLabels(labelCtx, extra);
  const servers = new Map<string, LabServer>();
  let cellsOk = previous.filter((r) => r.phase === "measure" && r.status === "ok").length;
  let cellsFailed = 0;
  let status: RunSummary["status"] = "ok";
  let fatal: unknown;
  let loadImage: ImageInfo | undefined;
  const pausedOnce = new Set<string>();
  const pauseFailed = new Set<string>();

  const phase = (p: Phase, extra: Partial<Extract<RunEvent, { type: "phase" }>> = {}) => emit({ type: "phase", at: at(), phase: p, ...extra });
  const throwIfAborted = () => {
    if (signal.aborted) throw new CancelledError();
  };

  try {
    await engine.ping();
    const hostFacts: HostFacts = await engine.facts();
    manifest.hosts = [hostFacts];

    // Images.
    phase("images");
    const images = new Map<string, ImageInfo>();
    await time("images", async () => {
      for (const name of [...new Set([...scenario.servers.map((s) => s.image), "sysbench-1.0"])]) {
        throwIfAborted();
        const info = await deps.ensureImage(name, (step, line) => emit({ type: "image-progress", at: at(), image: name, step, line }), signal);
        images.set(name, info);
        emit({ type: "image-ready", at: at(), image: name, tag: info.tag, cacheHit: info.cacheHit ?? false });
      }
    });
    loadImage = images.get("sysbench-1.0")!;
    manifest.sysbench = { image: "sysbench-1.0", imageId: loadImage.id, version: loadImage.version, packageVersion: loadImage.packageVersion };
    // Host facts a kernel comparison turns on, read by a probe container (a multi-host run has probed already).
    if (!hasProbe(hostFacts)) {
      const warn = (m: string) => emit({ type: "warning", at: at(), message: m });
      manifest.hosts = [
        await probeHostFacts(engine, hostFacts, { image: loadImage.tag, runId, labels: labels({ [LABEL.role]: "probe" }), signal, onWarning: warn }).catch((e: unknown) => {
          if (signal.aborted) throw e;
          warn(`host facts: the probe container failed (${e instanceof Error ? e.message : String(e)}); run.json has engine info only`);
          return hostFacts;
        }),
      ];
    }



    // Servers: provision, start, bench user, facts.
    const manifests: ServerManifest[] = [];
    for (const spec of scenario.servers) {
      throwIfAborted();
      const img = images.get(spec.image)!;
      if (img.family === "sysbench") throw new InputError(`server ${spec.id}: image ${spec.image} is the load image`, { code: "SCENARIO_INVALID", hint: "use a server image from images/lock.yaml" });
      const { init, rendered } = labServerInit({
        scenario,
        spec,
        image: { family: img.family, version: img.version, tag: img.tag },
        neutralCnf: opts.neutralCnf,
        runId,
        sessionId,
        runDir: store.dir,
        labels,
        readyTimeoutMs: opts.readyTimeoutMs,
        wipeDevices: opts.wipeDevices,
        selfContainerId: opts.selfContainerId,
      });
      const server = new LabServer(
        init,
        engine,
        deps.storage,
        stack,
        probe,
      );
      servers.set(spec.id, server);
      emit({ type: "server-starting", at: at(), server: spec.id, image: spec.image });
      phase("storage", { server: spec.id });
      await time("storage", () => server.provision());
      for (const w of server.storage?.warnings ?? []) emit({ type: "warning", at: at(), message: `${spec.id}: ${w}` });
      phase("start", { server: spec.id });
      let readySeconds: number;
      try {
        readySeconds = await time("start", () => server.start(signal));
      } catch (e) {
        if (e instanceof TwinbenchError) emit({ type: "server-failed", at: at(), server: spec.id, message: e.message, logTail: e.details });
        throw e;
      }
      const authPlugin = await probe.createBenchUser(server.rootEndpoint(), {
        user: BENCH_USER,
        password: benchPassword(server),
        db: BENCH_DB,
        charset: "utf8mb4",
        collation: "utf8mb4_general_ci",
      });
      const facts = await probe.readServerFacts(server.rootEndpoint());
      emit({ type: "server-ready", at: at(), server: spec.id, version: facts.version, seconds: readySeconds });
      const conn = await connInfo(server);
      manifests.push({
        id: spec.id,
        image: spec.image,
        imageId: img.id,
        imageTag: img.tag,
        packageVersion: img.packageVersion,
        family: img.family,
        version: facts.version,
        versionComment: facts.versionComment,
        cnf: rendered.cnf,
        translation: rendered.translation,
        asymmetries: rendered.asymmetries,
        effectiveVariables: facts.variables,
        storage: server.storageFacts,
        resources: { cpuset: init.cpuset, memoryBytes: init.memoryBytes },
        connection: { sslCipher: conn.sslCipher, authPlugin, transport: scenario.load.transport },
        host: engine.hostId,
      });
      await store.writeRaw(`${spec.id}.startup.log`, await server.logs(2000));

      if (opts.identityOnly) continue;
      // Prepare once per server and dataset, then prewarm; snapshot right after prepare when fresh: per-test.
      phase("prepare", { server: spec.id });
      await time("prepare", () => sysbenchCommand(server, "oltp_common", "prepare", Math.max(1, Math.min(scenario.workload.tables, 4)), "prepare"));
      if (scenario.workload.fresh === "per-test") {
        phase("snapshot", { server: spec.id });
        await time("snapshot", async () => {
          await server.stopAndRemove();
          await server.snapshot();
          await server.start(signal);
        });
        action("snapshot", spec.id, "data dir copied to a snapshot volume right after prepare");
      }
      if (scenario.workload.prewarm) {
        phase("prewarm", { server: spec.id });
        await time("prewarm", () => sysbenchCommand(server, "oltp_common", "prewarm", 1, "prewarm"));
      }
      await pauseIdle(server);
    }
    manifest.servers = manifests;

    // Config identity.
    const rows: MustMatchRow[] = mustMatch(
      manifests.map((m) => ({
        id: m.id,
        family: m.family,
        variables: m.effectiveVariables ?? {},
        deliberate: Object.keys(scenario.servers.find((s) => s.id === m.id)?.config?.set ?? {}),
        sslCipher: m.connection?.sslCipher ?? null,
      })),
    );
    manifest.mustMatch = rows;
    await store.writeManifest(manifest);
    const differences = rows.filter((r) => !r.equal && !r.deliberate).length;
    emit({ type: "config-identity", at: at(), rows, differences, servers: manifests });
    if (differences > 0) {
      const names = rows.filter((r) => !r.equal && !r.deliberate).map((r) => `${r.variable} (${Object.entries(r.values).map(([k, v]) => `${k}=${v}`).join(", ")})`);
      if (opts.strict)
        throw new TwinbenchError(`servers differ in ${differences} must-match variable(s): ${names.join("; ")}`, {
          code: "CONFIG_MISMATCH",
          hint: "pin them in lab/my.cnf or config.set, or run without --strict to measure anyway (reported as a warning)",
        });
      emit({ type: "warning", at: at(), message: `config identity: ${differences} must-match difference(s): ${names.join("; ")}` });
    }

    // Cells.
    const warmedUp = new Set<string>();
    const lastTest = new Map<string, string>();
    for (const cell of opts.identityOnly ? [] : todo) {
      throwIfAborted();
      const server = servers.get(cell.server)!;
      for (const other of servers.values()) if (other !== server) await pauseIdle(other);
      await server.unpause();

      // Fresh data for write tests when asked: restore the post-prepare snapshot before each new write test.
      if (scenario.workload.fresh === "per-test" && isWriteTest(cell.script) && lastTest.get(cell.server) !== cell.test) {
        phase("restore", { server: cell.server, test: cell.test });
        await time("restore", async () => {
          await server.stopAndRemove();
          await server.restore();
          await server.start(signal);
        });
        action("restore", cell.server, `snapshot restored before ${cell.test}`);
        warmedUp.delete(`${cell.server}/${cell.test}`);
      }
      lastTest.set(cell.server, cell.test);

      const warmupSeconds = parseDuration(scenario.workload.warmup) ?? 0;
      const wkey = `${cell.server}/${cell.test}`;
      if (warmupSeconds > 0 && !warmedUp.has(wkey)) {
        warmedUp.add(wkey);
        const maxThreads = Math.max(...scenario.workload.threads);
        const wcell: Cell = { ...cell, key: `${cell.server}/${cell.test}/warmup`, threads: maxThreads, repeat: 0 };
        phase("warmup", { server: cell.server, test: cell.test, threads: maxThreads });
        const rec = await time("warmup", () => runCell(server, wcell, "warmup", warmupSeconds));
        await store.appendCell(rec);
        if (rec.status === "failed") {
          throwIfAborted();
          emit({ type: "warning", at: at(), message: `warm-up of ${cell.server} ${cell.test} failed: ${rec.error}` });
          await recoverIfDead(server, wcell);
        }
      }

      phase("measure", { server: cell.server, test: cell.test, threads: cell.threads });
      const rec = await time("measure", () => runCell(server, cell, "measure"));
      await store.appendCell(rec);
      if (rec.status === "ok") {
        cellsOk++;
        emit({ type: "cell-finished", at: at(), cell, record: rec });
      } else {
        cellsFailed++;
        emit({ type: "cell-failed", at: at(), cell, record: rec });
        throwIfAborted();
        if (rec.status === "failed") {
          if (opts.failFast) throw new TwinbenchError(`cell ${cell.key} failed: ${rec.error}`, { code: "CELL_FAILED", hint: "run without --fail-fast to carry on after failures" });
          if (await recoverIfDead(server, cell)) warmedUp.delete(wkey);
        }
      }
      await store.writeManifest(manifest);
    }
    if (cellsFailed > 0) status = "partial";
  } catch (e) {
    fatal = e;
    status = e instanceof CancelledError || signal.aborted ? "cancelled" : cellsOk > 0 ? "partial" : "failed";
    if (status === "cancelled") emit({ type: "cancelling", at: at(), reason: "cancelled by the user" });
  } finally {
    phase("teardown");
    for (const s of servers.values()) {
      if (!s.containerId) continue;
      try {
        await s.unpause();
        await store.writeRaw(`${s.id}.error.log`, await s.logs(5000));
      } catch {
        /* best effort: the teardown below still runs */
      }
    }
    for (const s of servers.values()) {
      const m = manifest.servers.find((x) => x.id === s.id);
      if (m && s.storage) m.storage = await s.storage.refreshFacts().catch(() => m.storage);
    }
    const failures = await time("teardown", () => stack.dispose());
    for (const f of failures) emit({ type: "warning", at: at(), message: `teardown: ${f}` });
    timings.wall = (Date.now() - wallStart) / 1000;
    manifest.timings = timings;
    manifest.status = status;
    manifest.endedAt = at();
    await store.writeManifest(manifest);
    if (deps.writeReports) await deps.writeReports(store.dir).catch((e) => emit({ type: "warning", at: at(), message: `reports: ${(e as Error).message}` }));
  }

  const exitCode: RunSummary["exitCode"] = status === "ok" ? 0 : status === "cancelled" ? 130 : 1;
  emit({ type: "run-finished", at: at(), status, dir: store.dir, exitCode, cellsOk, cellsFailed, message: fatal instanceof Error ? fatal.message : undefined });
  if (fatal && !(fatal instanceof CancelledError)) {
    // Engine refusals (docker-modem errors carry statusCode) are the lab's failures, not bugs: say what was refused.
    if (!(fatal instanceof TwinbenchError) && typeof fatal === "object" && fatal !== null && "statusCode" in fatal)
      throw engineError("the Docker engine refused a request", fatal, `the run was torn down; results so far are in ${store.dir}`);
    if (isEngineConnectionError(fatal))
      throw engineError("the Docker engine stopped answering", fatal, `the cells finished so far are in ${store.dir}; once the engine is back (\`twinbench doctor --fix\`): \`twinbench clean --run ${runId}\`, then \`twinbench run --resume ${store.dir}\``);
    throw fatal;
  }
  return { status, exitCode, dir: store.dir, runId, cellsOk, cellsFailed };

  // ---- helpers (closures over the run) ----

  /** Freeze an idle server; when the freezer refuses, say so once per server and carry on with it running. */
  async function pauseIdle(server: LabServer): Promise<void> {
    const wasPaused = server.paused;
    if (await server.pause()) {
      if (!wasPaused && !pausedOnce.has(server.id)) {
        pausedOnce.add(server.id);
        action("pause", server.id, "idle servers are frozen (docker pause) while another server is measured");
      }
      return;
    }
    if (!pauseFailed.has(server.id)) {
      pauseFailed.add(server.id);
      const msg = `could not freeze idle server ${server.id} (the cgroup freezer refused, e.g. tasks in uninterruptible I/O); it keeps running while other servers are measured`;
      action("pause-failed", server.id, msg);
      emit({ type: "warning", at: at(), message: msg });
    }
  }

  /** After a failure: when the server died, keep its log and restart it from the current data dir. */
  async function recoverIfDead(server: LabServer, cell: Cell): Promise<boolean> {
    if (await server.isRunning()) return false;
    const logs = await server.logs(300).catch((e: Error) => `(could not read the server's log: ${e.message})`);
    await store.writeRaw(`${cell.server}.crash-${cell.index}.log`, logs);
    emit({ type: "server-restarted", at: at(), server: cell.server, reason: `server died during ${cell.key}` });
    action("restart", cell.server, `server died during ${cell.key}; restarted from the current data dir`);
    await time("start", () => server.restart(signal));
    return true;
  }

  function benchPassword(server: LabServer): string {
    return `tb${server.rootPassword.slice(0, 16)}`;
  }

  function connection(server: LabServer) {
    const c = server.sidecarConnection(scenario.load.transport);
    return { c, conn: { socket: c.socket, host: c.host, port: c.host ? 3306 : undefined, user: BENCH_USER, password: benchPassword(server), db: BENCH_DB } };
  }

  async function sidecar(server: LabServer, argv: string[], onLine: ((l: string) => void) | undefined, timeoutMs: number | undefined, cellSignal: AbortSignal) {
    const { c } = connection(server);
    return engine.run(
      {
        name: resourceName(runId, server.id, "load", randomBytes(3).toString("hex")),
        image: loadImage!.tag,
        entrypoint: ["sysbench"],
        cmd: argv,
        labels: labels({ [LABEL.role]: "load", [LABEL.server]: server.id }),
        mounts: c.mounts,
        networkMode: c.networkMode,
        cpuset: scenario.resources.load.cpuset,
        memoryBytes: scenario.resources.load.memory !== undefined ? parseSize(scenario.resources.load.memory) : undefined,
        workingDir: "/usr/share/sysbench",
      },
      { onLine, signal: cellSignal, timeoutMs },
    );
  }

  async function connInfo(server: LabServer): Promise<{ sslCipher: string | null }> {
    const { conn } = connection(server);
    const argv = sysbenchArgv({ script: "/usr/share/sysbench/tb_conninfo.lua", command: "run", workload: scenario.workload, threads: 1, events: 1, connection: conn, percentile: scenario.workload.percentile, histogram: false });
    const r = await sidecar(server, argv, undefined, 60_000, signal);
    const m = /twinbench\.ssl_cipher=(.*)/.exec(r.output);
    return { sslCipher: m ? m[1]!.trim() || null : null };
  }

  async function sysbenchCommand(server: LabServer, script: string, command: "prepare" | "prewarm", threads: number, logName: string): Promise<void> {
    const { conn } = connection(server);
    const argv = sysbenchArgv({ script, command, workload: scenario.workload, threads, connection: conn, percentile: scenario.workload.percentile, histogram: false });
    const r = await sidecar(server, argv, undefined, undefined, signal);
    await store.writeRaw(`${server.id}.${logName}.log`, r.output);
    if (r.cancelled) throw new CancelledError();
    if (r.exitCode !== 0)
      throw new TwinbenchError(`sysbench ${command} failed on server ${server.id} (exit ${r.exitCode}): ${lastFatal(r.output)}`, {
        code: "PREPARE_FAILED",
        hint: `see raw/${server.id}.${logName}.log in the results folder`,
      });
  }

  async function runCell(server: LabServer, cell: Cell, ph: "warmup" | "measure", overrideSeconds?: number): Promise<CellRecord> {
    const { conn } = connection(server);
    const seconds = overrideSeconds ?? (scenario.workload.duration !== undefined ? parseDuration(scenario.workload.duration) : undefined);
    const events = overrideSeconds !== undefined ? undefined : scenario.workload.events;
    const argv = sysbenchArgv({
      script: cell.script,
      command: "run",
      workload: scenario.workload,
      threads: cell.threads,
      durationSeconds: seconds,
      events,
      connection: conn,
      percentile: scenario.workload.percentile,
      histogram: ph === "measure",
    });
    const startedAt = at();
    const loadStart = loadavg()[0]!;
    emit({ type: "cell-started", at: startedAt, cell, phase: ph, seconds: seconds ?? null });
    // The per-cell limit: duration + margin (events runs: a generous fixed limit).
    const timeoutMs = seconds !== undefined && !events ? (seconds * 1.5 + 60) * 1000 : 3600_000;
    const skip = opts.control?.arm();
    const cellAbort = new AbortController();
    const onAbort = () => cellAbort.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    skip?.addEventListener("abort", onAbort, { once: true });
    let r;
    try {
      r = await sidecar(
        server,
        argv,
        (line) => {
          const s = parseIntervalLine(line);
          if (s) emit({ type: "interval", at: at(), cell, phase: ph, sample: s });
        },
        timeoutMs,
        cellAbort.signal,
      );
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    const rawName = `${cell.server}/${ph === "warmup" ? `warmup-${cell.test}` : `${cell.test}-t${cell.threads}-r${cell.repeat}`}.log`;
    const raw = await store.writeRaw(rawName, r.output);
    let metrics: SysbenchResult | null = null;
    let error: string | undefined;
    try {
      metrics = parseSysbench(r.output);
    } catch (e) {
      error = `unparseable sysbench output: ${(e as Error).message}`;
    }
    let recStatus: CellRecord["status"] = "ok";
    if (r.cancelled) {
      recStatus = signal.aborted ? "failed" : "skipped";
      error = signal.aborted ? "cancelled by the user" : "skipped by the user";
    } else if (r.timedOut) {
      recStatus = "failed";
      error = `cell ran past its limit of ${Math.round(timeoutMs / 1000)} s and was stopped`;
    } else if (!metrics || metrics.status !== "ok" || r.exitCode !== 0) {
      recStatus = "failed";
      error ??= metrics?.fatal.length ? metrics.fatal.join(" | ") : `sysbench exited with code ${r.exitCode}`;
    }
    return {
      key: cell.key,
      server: cell.server,
      test: cell.test,
      threads: cell.threads,
      repeat: cell.repeat,
      phase: ph,
      status: recStatus,
      ...(error ? { error } : {}),
      metrics,
      raw,
      startedAt,
      endedAt: at(),
      ...(cell.host ? { host: cell.host } : {}),
      ...(engine.hostId === "local" ? { hostLoad: { start: loadStart, end: loadavg()[0]! } } : {}),
    };
  }
}


function lastFatal(out: string): string {
  const lines = out.split("\n").filter((l) => l.startsWith("FATAL:"));
  return lines.length ? lines.slice(-3).join(" | ") : out.trim().split("\n").slice(-3).join(" | ");
}

function cellOf(r: CellRecord): Cell {
  return { index: -1, key: r.key, server: r.server, test: r.test, script: r.test, threads: r.threads, repeat: r.repeat };
}

export { newRunId };
