/**
 * The load sidecar: sysbench in its own container beside one server (same engine, the server's socket or
 * network), for the connection check, prepare/prewarm, and one cell, whose result it classifies.
 */
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { CancelledError, TwinbenchError } from "../../core/base/errors.ts";
import { LABEL, resourceName } from "../../core/base/labels.ts";
import type { Cell, CellRecord, Interference } from "../../core/model/results.ts";
import { interferenceOf, type CpuSample } from "../../core/measure/interference.ts";
import { type CellTasks, type ServerStatus } from "../../core/model/cell.ts";
import { cellStateFor } from "./cell-state.ts";
import { ctxDelta, ioDelta, keepsThreads, type TaskCounters } from "../../core/measure/taskcounters.ts";
import { parseDuration, parseSize, trimSeconds } from "../../core/model/scenario/schema.ts";
import { trimmedRates } from "../../core/measure/levers.ts";
import { parseIntervalLine } from "../../core/model/sysbench/parse.ts";
import { sysbenchArgv } from "../../core/model/scenario/argv.ts";
import type { RunResult } from "../../core/model/engine/containers.ts";
import type { LabServer } from "../lab-server.ts";
import type { RunContext } from "./context.ts";
import type { ResultsSession } from "./session.ts";
import type { ImageInfo } from "./types.ts";
import { classifyCell, isAbsence, lastFatal } from "./cell-outcome.ts";
import { BENCH_DB, BENCH_USER, benchPassword } from "../lab-server-init.ts";
import { notImplemented, scriptContainerParts, tpccMixOf } from "../scripts.ts";

export type CellPhase = "warmup" | "measure";

export class Sidecar {
  constructor(
    private readonly ctx: RunContext,
    private readonly session: ResultsSession,
    private readonly image: ImageInfo,
    /** The run's server containers (ids), whose CPU is the lab's own in a cell's interference figures. */
    private readonly labContainers: () => string[] = () => [],
  ) {}

  private connection(server: LabServer) {
    const c = server.sidecarConnection(this.ctx.scenario.load.transport);
    return {
      c,
      conn: {
        socket: c.socket,
        host: c.host,
        port: c.host ? 3306 : undefined,
        user: BENCH_USER,
        password: benchPassword(server),
        db: BENCH_DB,
      },
    };
  }

  private run(
    server: LabServer,
    argv: string[],
    onLine: ((l: string) => void) | undefined,
    timeoutMs: number | undefined,
    signal: AbortSignal,
    onCreated?: (id: string) => void,
  ): Promise<RunResult> {
    const { ctx } = this;
    const { c } = this.connection(server);
    const load = ctx.scenario.resources.load;
    return ctx.engine.containers.run(
      {
        name: resourceName(ctx.runId, server.id, "load", randomBytes(3).toString("hex")),
        image: this.image.tag,
        entrypoint: ["sysbench"],
        cmd: argv,
        labels: ctx.labels({ [LABEL.role]: "load", [LABEL.server]: server.id }),
        mounts: c.mounts,
        network: c.network,
        limits: {
          cpuset: load.cpuset,
          cpus: load.cpus,
          memoryBytes: load.memory !== undefined ? parseSize(load.memory) : undefined,
        },
        workingDir: "/usr/share/sysbench",
        ...scriptContainerParts(ctx.scripts, argv[0] ?? ""),
      },
      { onLine, onCreated, signal, timeoutMs },
    );
  }

  /** The TLS cipher of the sidecar's connection (null: none). */
  async connInfo(server: LabServer): Promise<{ sslCipher: string | null }> {
    const { scenario, signal } = this.ctx;
    const { conn } = this.connection(server);
    const argv = sysbenchArgv({
      script: "/usr/share/sysbench/tb_conninfo.lua",
      command: "run",
      workload: scenario.workload,
      threads: 1,
      events: 1,
      connection: conn,
      percentile: scenario.workload.percentile,
      histogram: false,
    });
    const r = await this.run(server, argv, undefined, 60_000, signal);
    const m = /twinbench\.ssl_cipher=(.*)/.exec(r.output);
    return { sslCipher: m ? m[1]!.trim() || null : null };
  }

  /** prepare, prewarm or cleanup, logged to raw/<server>.<logName>.log; false: the script lacks the command. */
  async command(
    server: LabServer,
    script: string,
    command: "prepare" | "prewarm" | "cleanup",
    threads: number,
    logName: string,
    onLine?: (l: string) => void,
  ): Promise<boolean> {
    const { scenario, signal } = this.ctx;
    const { conn } = this.connection(server);
    const argv = sysbenchArgv({
      script,
      command,
      workload: scenario.workload,
      threads,
      connection: conn,
      percentile: scenario.workload.percentile,
      histogram: false,
    });
    const r = await this.run(server, argv, onLine, undefined, signal);
    await this.session.writeRaw(`${server.id}.${logName}.log`, r.output);
    if (r.cancelled) throw new CancelledError();
    if (r.exitCode !== 0 && !notImplemented(r.output, command))
      throw new TwinbenchError(
        `sysbench ${command} failed on server ${server.id} (exit ${r.exitCode}): ${lastFatal(r.output)}`,
        {
          code: "PREPARE_FAILED",
          hint: `see raw/${server.id}.${logName}.log in the results folder`,
        },
      );
    return r.exitCode === 0;
  }

  /** One cell: sysbench run with live intervals, its raw log kept, the result classified. */
  async cell(server: LabServer, cell: Cell, ph: CellPhase, overrideSeconds?: number, attempt = 1): Promise<CellRecord> {
    const { ctx } = this;
    const { scenario, signal } = ctx;
    const { conn } = this.connection(server);
    // workload.trim: a measured cell runs that much longer; its first seconds are left out of `trimmed`.
    const trim =
      ph === "measure" && overrideSeconds === undefined && scenario.workload.duration !== undefined
        ? trimSeconds(scenario.workload)
        : 0;
    const seconds =
      overrideSeconds ??
      (scenario.workload.duration !== undefined ? parseDuration(scenario.workload.duration)! + trim : undefined);
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
    const startedAt = ctx.at();
    const loadStart = loadavg()[0]!;
    ctx.emit({ type: "cell-started", at: startedAt, cell, phase: ph, seconds: seconds ?? null });
    // The per-cell limit: duration + margin (events runs: a generous fixed limit).
    const timeoutMs = seconds !== undefined && !events ? (seconds * 1.5 + 60) * 1000 : 3600_000;
    const skip = ctx.opts.control?.arm();
    const cellAbort = new AbortController();
    const onAbort = () => cellAbort.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    skip?.addEventListener("abort", onAbort, { once: true });
    const probe = ph === "measure" ? this.interferenceProbe(server.containerId, trim) : undefined;
    const errors: string[] = [];
    const before = ph === "measure" ? await this.status(server, true, errors) : undefined;
    let r: RunResult;
    try {
      const onLine = (line: string) => {
        const s = parseIntervalLine(line);
        probe?.line(s?.t ?? null);
        if (s) ctx.emit({ type: "interval", at: ctx.at(), cell, phase: ph, sample: s });
      };
      r = await this.run(server, argv, onLine, timeoutMs, cellAbort.signal, probe?.created);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    // A retried cell keeps every attempt's log: the first as before, later ones with their attempt number.
    const rawName = `${cell.server}/${ph === "warmup" ? `warmup-${cell.test}` : `${cell.test}-t${cell.threads}-r${cell.repeat}${attempt > 1 ? `-a${attempt}` : ""}`}.log`;
    const raw = await this.session.writeRaw(rawName, r.output);
    const { status, error, metrics } = classifyCell(r, { userCancelled: signal.aborted, timeoutMs });
    const after = before ? await this.status(server, false, errors) : undefined;
    const interference = probe?.result();
    const interferenceError = probe?.error();
    const taskError = probe?.taskError();
    if (taskError) errors.push(taskError);
    const trimmed = trim > 0 && metrics ? trimmedRates(metrics.intervals, trim) : null;
    // With a lead-in the CPU and task counters cover the same seconds as the figure, so per query is over its q/s.
    const figureMetrics = metrics && trimmed ? { ...metrics, qps: trimmed.qps } : metrics;
    const state =
      ph === "measure"
        ? cellStateFor(this.ctx.scenario.resources.load, server.init, {
            before,
            after,
            cpu: probe?.cpu(),
            tasks: probe?.tasks(),
            metrics: figureMetrics,
            errors,
          })
        : undefined;
    return {
      key: cell.key,
      server: cell.server,
      test: cell.test,
      threads: cell.threads,
      repeat: cell.repeat,
      phase: ph,
      status,
      ...(error ? { error } : {}),
      metrics,
      raw,
      startedAt,
      endedAt: ctx.at(),
      ...(cell.host ? { host: cell.host } : {}),
      ...(ph === "measure" ? { attempt } : {}),
      ...(trimmed ? { trimmed } : {}),
      ...tpccMixOf(r.output),
      ...(ctx.engine.hostId === "local" ? { hostLoad: { start: loadStart, end: loadavg()[0]! } } : {}),
      ...(interference ? { interference } : {}),
      ...(interferenceError ? { interferenceError } : {}),
      ...(state && Object.keys(state).length ? { state } : {}),
    };
  }

  /**
   * The measured server's status (src/core/measure/cellstate.ts) just before (`sizes`: with data and pool size) or just
   * after a cell; undefined when the probe cannot read it (said once in `errors`, then on the cell).
   */
  private async status(server: LabServer, sizes: boolean, errors: string[]): Promise<ServerStatus | undefined> {
    const read = this.ctx.probe.readServerStatus;
    if (!read) return undefined; // a probe without status readings (tests' fakes): the cell carries no state figures
    try {
      return await read(server.rootEndpoint(), { db: BENCH_DB, sizes });
    } catch (e) {
      // A cell that killed its server cannot be read after it; the failure is the cell's note, not the run's end.
      errors.push(`server status ${sizes ? "before" : "after"} the cell: ${(e as Error).message}`);
      return undefined;
    }
  }

  /**
   * Samples the machine's CPU accounting while sysbench runs (local engine, measured cells): at its first output
   * line (with a lead-in, workload.trim: at the per-second line that ends it) and at each per-second report, so the
   * window is sysbench's own run (or the figure's seconds), without the container's creation and
   * removal, and every container of the run (servers, this sidecar) still has its cgroup. Undefined when the run
   * has no sampler or the engine is remote.
   */
  private interferenceProbe(
    serverId: string | undefined,
    leadIn = 0,
  ):
    | {
        created(id: string): void;
        /** A sysbench output line: its per-second sample's second, or null for any other line. */
        line(intervalT: number | null): void;
        result(): Interference | undefined;
        error(): string | undefined;
        /** The measured server's and this sidecar's CPU over the same window, in cores. */
        cpu(): { wallS: number; serverCores: number; loadCores: number } | undefined;
        /** Their context switches and the server's storage bytes over the same window; undefined without a task sampler. */
        tasks(): Omit<CellTasks, "blockDevice" | "storageKind"> | undefined;
        /** Why the task counters failed (a permission, a bug), if they did. */
        taskError(): string | undefined;
      }
    | undefined {
    const sample = this.ctx.deps.cpuSampler;
    const sampleTasks = this.ctx.deps.taskSampler;
    if (!sample || !this.ctx.engine.location().local) return undefined;
    let sidecarId: string | undefined;
    let first: CpuSample | undefined;
    let last: CpuSample | undefined;
    let broken = false;
    let failure: string | undefined;
    let taskFailure: string | undefined;
    type Tasks = { server: TaskCounters | null; load: TaskCounters | null };
    let firstTasks: Tasks | undefined;
    let lastTasks: Tasks | undefined;
    // Read with the CPU sample it goes with, so both cover one window. Absent counters are null (no figure); any
    // other failure stops the task figures and is said on the cell.
    const takeTasks = (): Tasks | undefined => {
      if (!sampleTasks || taskFailure || !serverId || !sidecarId) return undefined;
      try {
        return { server: sampleTasks(serverId), load: sampleTasks(sidecarId) };
      } catch (e) {
        taskFailure = `task counters failed: ${(e as Error).message}`;
        return undefined;
      }
    };
    // A sample counts only when every container's counter was readable: a line handled late (a busy machine) may
    // come after sysbench exited and its cgroup went away; the window then ends at the last complete sample.
    const take = () => {
      try {
        const s = sample([...this.labContainers(), ...(sidecarId ? [sidecarId] : [])]);
        return Object.values(s.containersNs).every((v) => v !== null) ? s : undefined;
      } catch (e) {
        // No /proc here (an engine on this machine's VM, e.g. Docker Desktop): the cell carries no interference.
        // Any other failure (a permission, a bug) is said on the cell, never read as absence.
        broken = true;
        if (!isAbsence(e)) failure = `CPU sampler failed: ${(e as Error).message}`;
        return undefined;
      }
    };
    // A later reading may end the window only if sysbench's threads are all still there (keepsThreads) and the
    // server's were readable; without a task sampler, or once it failed, the CPU sample alone decides.
    const tasksComplete = (prev: Tasks | undefined, next: Tasks | undefined): boolean => {
      if (!sampleTasks || taskFailure || !prev) return true;
      if (!next?.load || !next.server || !Object.keys(next.server.ctx).length) return false;
      return !prev.load || keepsThreads(prev.load, next.load);
    };
    return {
      created: (id) => (sidecarId = id),
      line: (t) => {
        if (broken) return;
        // A lead-in (workload.trim): the window starts at the per-second line that ends it, as the figure does.
        if (!first && leadIn > 0 && (t === null || t < leadIn)) return;
        const interval = t !== null;
        if (!first) {
          first = take();
          if (first) firstTasks = takeTasks();
        } else if (interval) {
          // Threads first, then the CPU counters: a sample whose container went away in between is not complete.
          const tasks = takeTasks();
          const s = take();
          if (s && tasksComplete(lastTasks ?? firstTasks, tasks)) {
            last = s;
            lastTasks = tasks;
          }
        }
      },
      result: () => {
        if (broken || !first || !last) return undefined;
        try {
          return interferenceOf(first, last);
        } catch (e) {
          // An unreadable /proc/stat line: no figures rather than a failed cell, and the cell says why.
          failure = `CPU figures not computed: ${(e as Error).message}`;
          return undefined;
        }
      },
      error: () => failure,
      taskError: () => taskFailure,
      tasks: () => {
        if (broken || !first || !last || !firstTasks || !lastTasks || taskFailure) return undefined;
        const d = <T>(
          f: (a: TaskCounters, b: TaskCounters) => T | null,
          a: TaskCounters | null,
          b: TaskCounters | null,
        ) => (a && b ? f(a, b) : null);
        return {
          server: d(ctxDelta, firstTasks.server, lastTasks.server),
          load: d(ctxDelta, firstTasks.load, lastTasks.load),
          serverIo: d(ioDelta, firstTasks.server, lastTasks.server),
        };
      },
      cpu: () => {
        if (broken || !first || !last || !serverId || !sidecarId) return undefined;
        const wallS = (last.atMs - first.atMs) / 1000;
        const d = (id: string) => (last!.containersNs[id] ?? NaN) - (first!.containersNs[id] ?? NaN);
        const serverNs = d(serverId);
        const loadNs = d(sidecarId);
        // Too short a window, or a counter missing from a sample (taken before the sidecar existed): no figures.
        if (!(wallS >= 0.2) || !Number.isFinite(serverNs) || !Number.isFinite(loadNs)) return undefined;
        const r3 = (x: number) => Math.round(x * 1000) / 1000;
        return { wallS: r3(wallS), serverCores: r3(serverNs / 1e9 / wallS), loadCores: r3(loadNs / 1e9 / wallS) };
      },
    };
  }
}
