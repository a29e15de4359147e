/**
 * The servers stage: for each server, storage, start and readiness, the bench user, its facts (written to run.json
 * at once), then prepare, the per-test snapshot and prewarm; idle servers are frozen while another one is measured.
 * Also what the cell loop needs from a server: pausing the idle ones, restoring the snapshot, restarting after a crash.
 */
import { CancelledError, InputError, TwinbenchError } from "../../core/base/errors.ts";
import type { Cell, ServerManifest } from "../../core/model/results.ts";
import { plannedInstances, type ServerSpec } from "../../core/model/scenario/schema.ts";
import { LabServer } from "../lab-server.ts";
import { labServerInit } from "../lab-server-init.ts";
import type { RunContext } from "./context.ts";
import type { ResultsSession } from "./session.ts";
import { type Sidecar } from "./sidecar.ts";
import { sidecarScriptPath } from "../../core/model/scenario/custom.ts";
import { BENCH_DB, BENCH_USER, benchPassword } from "../lab-server-init.ts";
import { quiesce } from "./quiesce.ts";
import type { ImageInfo } from "./types.ts";

export class Servers {
  readonly byId = new Map<string, LabServer>();
  private readonly pausedOnce = new Set<string>();
  private readonly pauseFailed = new Set<string>();

  constructor(
    private readonly ctx: RunContext,
    private readonly session: ResultsSession,
  ) {}

  all(): LabServer[] {
    return [...this.byId.values()];
  }
  get(id: string): LabServer {
    return this.byId.get(id)!;
  }

  /** Start every server in scenario order; each one's facts are in run.json before the next one starts. */
  async startAll(images: Map<string, ImageInfo>, sidecar: Sidecar): Promise<ServerManifest[]> {
    const out: ServerManifest[] = [];
    for (const spec of this.ctx.scenario.servers) {
      this.ctx.throwIfAborted();
      const server = await this.startOne(spec, images.get(spec.image)!, sidecar, out);
      if (this.ctx.opts.identityOnly) continue;
      await this.prepare(server, sidecar);
    }
    return out;
  }

  private async startOne(
    spec: ServerSpec,
    img: ImageInfo,
    sidecar: Sidecar,
    out: ServerManifest[],
  ): Promise<LabServer> {
    const { ctx, session } = this;
    const { scenario, opts } = ctx;
    if (img.family === "sysbench")
      throw new InputError(`server ${spec.id}: image ${spec.image} is the load image`, {
        code: "SCENARIO_INVALID",
        hint: "use a server image from images/lock.yaml",
      });
    const { init, rendered } = labServerInit({
      scenario,
      spec,
      image: { family: img.family, version: img.version, tag: img.tag },
      neutralCnf: opts.neutralCnf,
      runId: ctx.runId,
      sessionId: ctx.sessionId,
      runDir: session.dir,
      labels: (extra) => ctx.labels(extra),
      readyTimeoutMs: opts.readyTimeoutMs,
      wipeDevices: opts.wipeDevices,
      selfContainerId: opts.selfContainerId,
    });
    const server = new LabServer(init, ctx.engine, ctx.deps.storage, ctx.stack, ctx.probe);
    this.byId.set(spec.id, server);
    ctx.emit({ type: "server-starting", at: ctx.at(), server: spec.id, image: spec.image });
    ctx.phase("storage", { server: spec.id });
    await ctx.time("storage", () => server.provision());
    for (const w of server.storage?.warnings ?? []) ctx.warn(`${spec.id}: ${w}`);
    ctx.phase("start", { server: spec.id });
    let readySeconds: number;
    try {
      readySeconds = await ctx.time("start", () => ctx.withProgress("start", spec.id, () => server.start(ctx.signal)));
    } catch (e) {
      if (e instanceof TwinbenchError)
        ctx.emit({ type: "server-failed", at: ctx.at(), server: spec.id, message: e.message, logTail: e.details });
      throw e;
    }
    const authPlugin = await ctx.probe.createBenchUser(server.rootEndpoint(), {
      user: BENCH_USER,
      password: benchPassword(server),
      db: BENCH_DB,
      charset: "utf8mb4",
      collation: "utf8mb4_general_ci",
    });
    const facts = await ctx.probe.readServerFacts(server.rootEndpoint());
    ctx.emit({ type: "server-ready", at: ctx.at(), server: spec.id, version: facts.version, seconds: readySeconds });
    const conn = await sidecar.connInfo(server);
    const m: ServerManifest = {
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
      host: ctx.engine.hostId,
    };
    out.push(m);
    await session.addServer(m);
    await session.writeRaw(`${spec.id}.startup.log`, await server.logs(2000));
    return server;
  }

  /** Prepare once per server and dataset, snapshot right after prepare (fresh: per-test, or server instances), then prewarm. */
  private async prepare(server: LabServer, sidecar: Sidecar): Promise<void> {
    const { ctx } = this;
    const { workload } = ctx.scenario;
    ctx.phase("prepare", { server: server.id });
    await ctx.time("prepare", () =>
      ctx.withProgress("prepare", server.id, (note) =>
        sidecar.command(server, "oltp_common", "prepare", Math.max(1, Math.min(workload.tables, 4)), "prepare", note),
      ),
    );
    // The scenario's own scripts prepare what they need after the stock tables, before the snapshot.
    for (const s of ctx.scripts) {
      const ran = await ctx.time("prepare", () =>
        ctx.withProgress("prepare", server.id, (note) =>
          sidecar.command(server, sidecarScriptPath(s.test, s), "prepare", 1, `prepare-${s.test}`, note),
        ),
      );
      this.session.action(
        "prepare",
        server.id,
        ran ? `custom test ${s.test}: its prepare ran` : `custom test ${s.test} has no prepare`,
      );
    }
    if (workload.fresh === "per-test" || plannedInstances(workload) > 1) {
      ctx.phase("snapshot", { server: server.id });
      await ctx.time("snapshot", () =>
        ctx.withProgress("snapshot", server.id, async (note) => {
          await server.stopAndRemove();
          note("copying the data dir to the snapshot volume");
          await server.snapshot();
          note("starting the server again");
          await server.start(ctx.signal);
        }),
      );
      this.session.action("snapshot", server.id, "data dir copied to a snapshot volume right after prepare");
    }
    await this.prewarm(server, sidecar);
    if (workload.quiesce) await ctx.time("quiesce", () => quiesce(ctx, this.session, server, "after prepare"));
    await this.pauseIdle(server);
  }

  private async prewarm(server: LabServer, sidecar: Sidecar): Promise<void> {
    if (!this.ctx.scenario.workload.prewarm) return;
    this.ctx.phase("prewarm", { server: server.id });
    await this.ctx.time("prewarm", () =>
      this.ctx.withProgress("prewarm", server.id, (note) =>
        sidecar.command(server, "oltp_common", "prewarm", 1, "prewarm", note),
      ),
    );
  }

  /**
   * A new server instance (workload.instances): every server stopped, its data dir restored from the post-prepare
   * snapshot and started again as a new process, then prewarmed like after prepare; idle ones frozen again.
   */
  async newInstance(instance: number, sidecar: Sidecar): Promise<void> {
    const { ctx } = this;
    for (const server of this.byId.values()) {
      ctx.throwIfAborted();
      ctx.phase("restore", { server: server.id, detail: `instance ${instance}` });
      await this.restartWarm(server, sidecar, { restore: true, timing: "instance", quiesce: `instance ${instance}` });
      this.session.action(
        "instance",
        server.id,
        `instance ${instance}: restarted fresh from the post-prepare snapshot`,
      );
      await this.pauseIdle(server);
    }
    await this.session.save();
  }

  /**
   * The one restart path after prepare (so every measured cell starts from the same state): the container
   * removed, the post-prepare snapshot put back when `restore`, a new server process started and ready, then
   * prewarmed as after prepare (workload.prewarm), and with workload.quiesce settled when `quiesce` names the moment.
   * A new instance, a write test's fresh data and the recovery after a crash all come through here.
   */
  private async restartWarm(
    server: LabServer,
    sidecar: Sidecar,
    o: { restore: boolean; timing: string; quiesce?: string },
  ): Promise<number> {
    const { ctx } = this;
    const seconds = await ctx.time(o.timing, () =>
      ctx.withProgress(o.restore ? "restore" : "start", server.id, async (note) => {
        await server.stopAndRemove();
        if (o.restore) {
          note("putting the post-prepare snapshot back");
          await server.restore();
        }
        note("starting the server");
        return server.start(ctx.signal);
      }),
    );
    await this.prewarm(server, sidecar);
    if (o.quiesce !== undefined && ctx.scenario.workload.quiesce)
      await ctx.time("quiesce", () => quiesce(ctx, this.session, server, o.quiesce!));
    return seconds;
  }

  /** Only `active` runs: every other server is frozen, `active` is thawed. */
  /**
   * After the last cell: each custom script's own cleanup, where it defines one, on every server still up. The
   * servers are removed next anyway, so a failed cleanup is a warning with its log, not a failed run.
   */
  async cleanupScripts(sidecar: Sidecar): Promise<void> {
    const { ctx } = this;
    if (!ctx.scripts.length) return;
    for (const server of this.all()) {
      if (!server.containerId) continue; // never started (or already gone): nothing to clean
      await this.focus(server);
      for (const s of ctx.scripts) {
        const log = `cleanup-${s.test}`;
        try {
          const path = sidecarScriptPath(s.test, s);
          if (await sidecar.command(server, path, "cleanup", 1, log))
            this.session.action("cleanup", server.id, `custom test ${s.test}: its cleanup ran`);
        } catch (e) {
          if (!(e instanceof TwinbenchError && e.code === "PREPARE_FAILED")) throw e;
          // Only the script's own cleanup failed: the server is removed right after, the cells stand.
          ctx.warn(
            `${server.id}: custom test ${s.test}'s cleanup failed (raw/${server.id}.${log}.log): ${(e as Error).message}`,
          );
        }
      }
    }
  }

  async focus(active: LabServer): Promise<void> {
    for (const other of this.byId.values()) if (other !== active) await this.pauseIdle(other);
    await active.unpause();
  }

  /** Freeze an idle server; when the freezer refuses, say so once per server and carry on with it running. */
  async pauseIdle(server: LabServer): Promise<void> {
    if (this.ctx.scenario.resources.pauseIdle === false) {
      // The lever is off: idle servers keep running; say so once per server.
      if (!this.pausedOnce.has(server.id)) {
        this.pausedOnce.add(server.id);
        this.session.action(
          "no-pause",
          server.id,
          "idle servers keep running while another server is measured (resources.pauseIdle: false)",
        );
      }
      return;
    }
    const wasPaused = server.paused;
    if (await server.pause()) {
      if (!wasPaused && !this.pausedOnce.has(server.id)) {
        this.pausedOnce.add(server.id);
        this.session.action(
          "pause",
          server.id,
          "idle servers are frozen (docker pause) while another server is measured",
        );
      }
      return;
    }
    if (!this.pauseFailed.has(server.id)) {
      this.pauseFailed.add(server.id);
      const msg = `could not freeze idle server ${server.id} (the cgroup freezer refused, e.g. tasks in uninterruptible I/O); it keeps running while other servers are measured`;
      this.session.action("pause-failed", server.id, msg);
      this.ctx.warn(msg);
    }
  }

  /**
   * Fresh data for a write test: the post-prepare snapshot back in place, prewarmed like after prepare (the cell
   * loop settles InnoDB before a write cell itself when workload.quiesce).
   */
  async restoreSnapshot(server: LabServer, test: string, sidecar: Sidecar): Promise<void> {
    this.ctx.phase("restore", { server: server.id, test });
    await this.restartWarm(server, sidecar, { restore: true, timing: "restore" });
    this.session.action(
      "restore",
      server.id,
      `snapshot restored before ${test}${this.ctx.scenario.workload.prewarm ? ", then prewarmed" : ""}`,
    );
  }

  /**
   * After a failure: when the server died (its container stopped, or `lost`: sysbench lost the connection), keep
   * its log and restart it from the current data dir, prewarmed like after prepare. `attempt` > 1 names the crash
   * log of a retried cell.
   */
  async recoverIfDead(
    server: LabServer,
    cell: Cell,
    sidecar: Sidecar,
    o: { lost?: boolean; attempt?: number } = {},
  ): Promise<boolean> {
    const { ctx, session } = this;
    const running = await server.isRunning();
    if (running && !o.lost) return false;
    const logs = await server.logs(300).catch((e: Error) => `(could not read the server's log: ${e.message})`);
    await session.writeRaw(
      `${cell.server}.crash-${cell.index}${(o.attempt ?? 1) > 1 ? `-a${o.attempt}` : ""}.log`,
      logs,
    );
    const why = running
      ? `sysbench lost its connection to the server during ${cell.key}`
      : `server died during ${cell.key}`;
    ctx.emit({ type: "server-restarted", at: ctx.at(), server: cell.server, reason: why });
    await ctx.time("start", () => ctx.withProgress("start", cell.server, () => server.restart(ctx.signal)));
    let warmed = ctx.scenario.workload.prewarm ? ", then prewarmed" : "";
    try {
      await this.prewarm(server, sidecar);
    } catch (e) {
      if (e instanceof CancelledError) throw e;
      // A server that fails its prewarm right after a crash is likely to fail its next cell too; that cell's failure
      // is recorded, so the run carries on, and the action and a warning say the server is not warm.
      warmed = `; its prewarm failed (${(e as Error).message}), so it runs cold`;
      ctx.warn(`${cell.server}: prewarm after the restart failed: ${(e as Error).message}`);
    }
    session.action("restart", cell.server, `${why}; restarted from the current data dir${warmed}`);
    return true;
  }
}
