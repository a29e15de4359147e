/**
 * The load sidecar: sysbench in its own container beside one server (same engine, the server's socket or
 * network), for the connection check, prepare/prewarm, and one cell, whose result it classifies.
 */
import { randomBytes } from "node:crypto";
import { availableParallelism, loadavg } from "node:os";
import { CancelledError, InputError, TwinbenchError } from "../../core/base/errors.ts";
import { LABEL, resourceName } from "../../core/base/labels.ts";
import type { Cell, CellRecord } from "../../core/model/results.ts";
import { cellStateOf, containerCores } from "../../core/measure/cellstate.ts";
import { type CellCpu, type CellState, type CellTasks, type ServerStatus } from "../../core/model/cell.ts";
import { parseDuration, parseSize, trimSeconds } from "../../core/model/scenario/schema.ts";
import { trimmedRates } from "../../core/measure/levers.ts";
import type { SysbenchResult } from "../../core/model/sysbench/result.ts";
import { parseIntervalLine } from "../../core/model/sysbench/scan.ts";
import { sysbenchArgv, sysbenchCommand } from "../../core/model/scenario/argv.ts";
import type { RunResult } from "../../core/model/engine/containers.ts";
import type { LabServer } from "../lab-server.ts";
import type { RunContext } from "./context.ts";
import type { ResultsSession } from "./session.ts";
import type { ImageInfo } from "./types.ts";
import { classifyCell, lastFatal } from "./cell-outcome.ts";
import { interferenceProbe } from "./interference-probe.ts";
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

  private async run(
    server: LabServer,
    argv: string[],
    onLine: ((l: string) => void) | undefined,
    timeoutMs: number | undefined,
    signal: AbortSignal,
    onCreated?: (id: string) => void,
  ): Promise<RunResult & { name: string }> {
    const { ctx } = this;
    const { c } = this.connection(server);
    const load = ctx.scenario.resources.load;
    // The password travels in the environment and a private config file, never on the container's argv.
    const { entrypoint, cmd, env } = sysbenchCommand(argv);
    // A custom test's files (and its LUA_PATH) go into the container through the engine's API.
    const custom = scriptContainerParts(ctx.scripts, argv[0] ?? "");
    const name = resourceName(ctx.runId, server.id, "load", randomBytes(3).toString("hex"));
    const r = await ctx.engine.containers.run(
      {
        name,
        image: this.image.tag,
        entrypoint,
        cmd,
        env: { ...env, ...custom.env },
        ...(custom.files ? { files: custom.files } : {}),
        labels: ctx.labels({ [LABEL.role]: "load", [LABEL.server]: server.id }),
        mounts: c.mounts,
        network: c.network,
        limits: {
          cpuset: load.cpuset,
          cpus: load.cpus,
          memoryBytes: load.memory !== undefined ? parseSize(load.memory) : undefined,
        },
        workingDir: "/usr/share/sysbench",
      },
      { onLine, onCreated, signal, timeoutMs },
    );
    return { ...r, name };
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
    if (r.cancelled) throw new CancelledError();
    // The load container's first connection: a failure is the transport's, named now (raw log kept), not as prepare's.
    if (r.exitCode !== 0 || r.timedOut) {
      await this.session.writeRaw(`${server.id}.conninfo.log`, r.output);
      throw connectionFailure(r.output, {
        server: server.id,
        transport: scenario.load.transport,
        host: conn.host,
        networkId: server.networkId,
        timedOut: r.timedOut,
      });
    }
    const m = /twinbench\.ssl_cipher=(.*)/.exec(r.output);
    return { sslCipher: m ? m[1]!.trim() || null : null };
  }

  /** `sysbench prepare` or the prewarm command; its log goes to raw/<server>.<logName>.log, its lines to `onLine`. */
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
    const timeoutMs = setupDeadlineMs(scenario.workload);
    const r = await this.run(server, argv, onLine, timeoutMs, signal);
    await this.session.writeRaw(`${server.id}.${logName}.log`, r.output);
    if (r.cancelled) throw new CancelledError();
    if (r.timedOut)
      throw new TwinbenchError(
        `sysbench ${command} on server ${server.id} did not finish within its deadline of ${Math.round(timeoutMs / 1000)} s ` +
          `(${scenario.workload.tables} tables × ${scenario.workload.tableSize} rows) and was stopped (container ${r.name}, server container ${server.containerName})`,
        {
          code: "DEADLINE_EXCEEDED",
          hint: `the server stopped answering or its data dir stalled; see raw/${server.id}.${logName}.log and the server's log in the results folder, then \`twinbench run --resume\``,
        },
      );
    // A custom script without this command (its own prepare or cleanup) is no failure: false.
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
    const timeoutMs = cellLimitMs(seconds, events);
    const skip = ctx.opts.control?.arm();
    const cellAbort = new AbortController();
    const onAbort = () => cellAbort.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    skip?.addEventListener("abort", onAbort, { once: true });
    const cpuset = server.init.cpuset;
    const probe =
      ph === "measure" ? interferenceProbe(this.ctx, this.labContainers, server.containerId, trim, cpuset) : undefined;
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
    // A cell past its limit may have a hung server: no reading after it (the check after the cell says whether it answers).
    const after = before && !r.timedOut ? await this.status(server, false, errors) : undefined;
    const interference = probe?.result();
    const interferenceError = probe?.error();
    const taskError = probe?.taskError();
    if (taskError) errors.push(taskError);
    const trimmed = trim > 0 && metrics ? trimmedRates(metrics.intervals, trim) : null;
    // With a lead-in the CPU and task counters cover the same seconds as the figure, so per query is over its q/s.
    const figureMetrics = metrics && trimmed ? { ...metrics, qps: trimmed.qps } : metrics;
    const state =
      ph === "measure"
        ? this.cellState(server, {
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

  /** The cell's state from its readings; the CPU figures against each container's cpuset (the host's CPUs without). */
  private cellState(
    server: LabServer,
    o: {
      before?: ServerStatus;
      after?: ServerStatus;
      cpu?: { wallS: number; serverCores: number; loadCores: number };
      tasks?: Omit<CellTasks, "blockDevice" | "storageKind">;
      metrics: SysbenchResult | null;
      errors: string[];
    },
  ): CellState {
    const host = availableParallelism();
    const load = this.ctx.scenario.resources.load;
    const cpu: CellCpu | undefined = o.cpu && {
      ...o.cpu,
      serverCpusetCores: containerCores(server.init.cpuset, undefined, host),
      loadCpusetCores: containerCores(load.cpuset, load.cpus, host),
    };
    // tmpfs keeps the data dir in memory: no block device, so no bytes per query (volume, bind, raid0 have one).
    const kind = server.init.storage.kind;
    const tasks: CellTasks | undefined = o.tasks && { ...o.tasks, blockDevice: kind !== "tmpfs", storageKind: kind };
    return cellStateOf({ before: o.before, after: o.after, cpu, tasks, metrics: o.metrics, errors: o.errors });
  }
}

/** The margin a cell gets past 1.5 × its length before it is stopped, unless TWINBENCH_CELL_MARGIN says otherwise. */
export const CELL_MARGIN_SECONDS = 60;

/**
 * A cell's limit (measured or warm-up) in ms: 1.5 × its length plus a margin, after which it is stopped and its server
 * must answer (else SERVER_HUNG); a cell bounded by events gets an hour. The margin is a minute; the environment's
 * TWINBENCH_CELL_MARGIN (a duration: "10s") sets another, for tests that wait for a hung server's or sysbench's limit
 * on purpose (the fault matrix).
 */
export function cellLimitMs(
  seconds: number | undefined,
  events: number | undefined,
  env: Record<string, string | undefined> = process.env,
): number {
  if (seconds === undefined || events) return 3600_000;
  const raw = env.TWINBENCH_CELL_MARGIN;
  const margin = raw === undefined || raw.trim() === "" ? CELL_MARGIN_SECONDS : parseDuration(raw);
  if (margin === undefined)
    throw new InputError(`TWINBENCH_CELL_MARGIN=${JSON.stringify(raw)}: expected a duration like "10s"`, {
      code: "CLI_OPTION_INVALID",
      hint: `unset it for the default margin of ${CELL_MARGIN_SECONDS} s past 1.5 × the cell's length`,
    });
  return (seconds * 1.5 + margin) * 1000;
}

/** The MySQL client's connection error in sysbench's output: its code, the host it named and the errno. */
function clientError(output: string): { code: number; host?: string; errno?: number } | undefined {
  const m =
    /error (\d{4}): [^\n]*?(?:on|host) '([^']*)'(?: \((\d+)\))?/i.exec(output) ?? /error (\d{4}):/i.exec(output);
  if (!m) return undefined;
  return { code: Number(m[1]), host: m[2], errno: m[3] !== undefined ? Number(m[3]) : undefined };
}

/**
 * Why the load container could not connect to its server, as an error naming the transport and, where the client's
 * error tells it, the likely cause. Over the bridge transport, a connection that gets no answer at all (the check's
 * 60 s pass, or errno 110: timed out; 113: no route; not 115, which the client also reports for a refused connection)
 * likely means packets between the two containers on the server's network are dropped: with br_netfilter loaded (net.bridge.bridge-nf-call-iptables=1) bridged traffic crosses iptables' FORWARD
 * chain, whose policy is DROP once a Docker engine with iptables enabled runs on the host, and an engine started with
 * --iptables=false adds no ACCEPT rule for its own networks' bridges (named br-<first 12 characters of the network id>).
 */
export function connectionFailure(
  output: string,
  o: {
    server: string;
    transport: "socket" | "loopback" | "bridge";
    host?: string;
    networkId?: string;
    timedOut?: boolean;
  },
): TwinbenchError {
  const e = clientError(output);
  const where =
    o.transport === "bridge"
      ? `over the bridge transport (host name ${o.host ?? "?"} on the server's network)`
      : o.transport === "loopback"
        ? "over the loopback transport (127.0.0.1 in the server's network namespace)"
        : "over the socket transport (the server's socket on a shared volume)";
  const what = o.timedOut
    ? "sysbench did not finish its one connection within 60 s"
    : e
      ? `MySQL client error ${e.code}${e.errno !== undefined ? ` (errno ${e.errno})` : ""}`
      : "sysbench failed";
  const bridge = o.networkId ? `br-${o.networkId.slice(0, 12)}` : undefined;
  // sysbench's own FATAL lines only (a connection that hangs prints nothing but its empty interval lines).
  const fatal = output
    .split("\n")
    .filter((l) => l.startsWith("FATAL:"))
    .slice(-3)
    .join(" | ");
  let hint = `see raw/${o.server}.conninfo.log in the results folder`;
  if (o.transport === "bridge" && e?.code === 2005)
    hint = `the engine's DNS did not resolve the server's container name ${o.host ?? ""}; ${hint}`;
  else if (o.transport === "bridge" && (o.timedOut || (e?.errno !== undefined && [110, 113].includes(e.errno))))
    hint =
      `no answer came back across the server's network: likely the host's firewall drops forwarded bridge traffic ` +
      `(br_netfilter with iptables' FORWARD policy DROP; an engine run with --iptables=false adds no rule for its networks). ` +
      `Allow it (iptables -I DOCKER-USER -i ${bridge ?? "<bridge>"} -o ${bridge ?? "<bridge>"} -j ACCEPT, or for every engine bridge: ` +
      `iptables -I DOCKER-USER -m physdev --physdev-is-bridged -j ACCEPT), or use load.transport: socket or loopback`;
  else if (e?.errno === 111) hint = `the server refused the connection (errno 111): is it listening there? ${hint}`;
  return new TwinbenchError(
    `the load container could not connect to server ${o.server} ${where}: ${what}${fatal ? `: ${fatal}` : ""}`,
    { code: "LOAD_CONNECT_FAILED", hint },
  );
}

/**
 * The deadline of `sysbench prepare` or prewarm: ten minutes, plus the rows at a tenth of the prepare rate measured
 * here (130 k rows/s): far past any healthy run, short of for ever.
 */
export function setupDeadlineMs(w: { tables: number; tableSize: number }): number {
  return Math.round((600 + (w.tables * w.tableSize) / 13_000) * 1000);
}
