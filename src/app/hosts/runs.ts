/**
 * Stages 6 and 7: one runScenario per host, concurrently, each on its guarded engine (a lost host rejects every
 * call); then, for a shard, the cells of lost hosts go to the survivors, whole groups at a time, pass after pass,
 * until done or nobody is left.
 */
import { join } from "node:path";
import type { Cell } from "../../core/model/results.ts";
import type { Plan } from "../../core/plan/plan.ts";
import { doneKeys, missingCells, redistribute } from "../../core/hosts/shard.ts";
import { DeadlineError, withDeadline } from "../../core/base/deadline.ts";
import { guardedEngine, HostGuard } from "../../adapters/docker/guard.ts";
import { guardedDeps, releaseAfterLoss, runScenario } from "../run.ts";
import type { RunDeps } from "../run/types.ts";
import { msg, type HostsContext, type HostState } from "./context.ts";
import type { HostImages } from "./images.ts";
import { hostRunId } from "./types.ts";

export class HostRuns {
  constructor(
    private readonly ctx: HostsContext,
    private readonly images: HostImages,
  ) {}

  /** Resume: the part folders already written join the run (their cells count, the next pass gets a new number). */
  async adoptParts(): Promise<void> {
    for (const p of await this.ctx.folder.parts())
      if (this.ctx.states.some((s) => s.t.spec.id === p.host)) this.ctx.parts.push(p);
  }

  /**
   * Pass 1: every live host runs its own cells. On resume each host resumes its own folder (the single-run resume:
   * a torn last line set aside, done cells skipped); a shard's host also skips the cells a later pass already did.
   */
  async firstPass(): Promise<void> {
    const { ctx } = this;
    await Promise.all(
      ctx.live().map(async (s) => {
        const id = s.t.spec.id;
        const resume = Boolean(ctx.opts.resume) && (await ctx.folder.hasRun(id));
        const elsewhere = ctx.opts.resume
          ? doneKeys(
              await ctx.folder.readCells(
                ctx.parts.filter((p) => p.folder !== id).map((p) => p.folder),
                ctx.damaged,
              ),
            )
          : new Set<string>();
        return this.runOn(s, 1, (c) => c.host === id && !elsewhere.has(c.key), resume);
      }),
    );
  }

  /** Shard only: move the cells of lost hosts to the survivors until none is missing or nobody is left. */
  async takeOverLostCells(plan: Plan): Promise<void> {
    const { ctx } = this;
    if (ctx.mode !== "shard") return;
    const assigned = new Map(plan.cells.map((c) => [c.key, c.host ?? ""]));
    const first = Math.max(1, ...ctx.parts.map((p) => p.pass)) + 1; // a resume numbers its passes after the folder's
    for (let pass = first; pass < first + ctx.states.length && !ctx.signal.aborted; pass++) {
      const missing = missingCells(
        plan.cells,
        await ctx.folder.readCells(
          ctx.parts.map((p) => p.folder),
          ctx.damaged,
        ),
      );
      const survivors = ctx.live().map((s) => s.t.spec.id);
      if (missing.length === 0 || survivors.length === 0) break;
      // Only cells whose current host was lost move; a survivor's own failed cells are cell failures, not moved.
      const lostCells = missing.filter((c) => !survivors.includes(assigned.get(c.key) ?? ""));
      if (lostCells.length === 0) break;
      const moved = redistribute(lostCells, survivors);
      for (const [h, cs] of moved) for (const c of cs) assigned.set(c.key, h);
      ctx.info(
        `moving ${lostCells.length} cells of lost host(s) ${[...new Set(lostCells.map((c) => c.host))].join(", ")} to ${[
          ...moved,
        ]
          .filter(([, cs]) => cs.length)
          .map(([h, cs]) => `${h} (${cs.length})`)
          .join(", ")}`,
        undefined,
        "warning",
      );
      await Promise.all(
        [...moved]
          .filter(([, cs]) => cs.length > 0)
          .map(([h, cs]) => {
            const keys = new Set(cs.map((c) => c.key));
            return this.runOn(
              ctx.states.find((x) => x.t.spec.id === h)!,
              pass,
              (c) => keys.has(c.key),
            );
          }),
      );
    }
  }

  private async runOn(s: HostState, pass: number, filter: (c: Cell) => boolean, resume = false): Promise<void> {
    const { ctx } = this;
    const id = s.t.spec.id;
    const folder = pass === 1 ? id : `${id}.pass${pass}`;
    const guard = new HostGuard(id);
    guard.watch(() => s.t.engine.ping(), { everyMs: ctx.deps.watchEveryMs });
    const hostDeps: RunDeps = {
      ...guardedDeps(s.t.deps, guardedEngine(s.t.engine, s.facts!, guard), guard),
      ensureImage: (name) => this.images.ensureOn(s, name),
    };
    if (!ctx.parts.some((p) => p.folder === folder)) ctx.parts.push({ host: id, pass, folder });
    let release: (() => Promise<void>) | undefined;
    try {
      const selfContainerId = ctx.opts.selfContainerId
        ? // unknown: probes go without it
          await ctx.opts.selfContainerId(s.t.engine).catch(() => undefined)
        : undefined;
      const run = (ctx.deps.runOne ?? runScenario)(hostDeps, {
        ...ctx.opts,
        scenario: ctx.scenario,
        outDir: ctx.folder.partDir(folder),
        runId: hostRunId(ctx.opts.runId, id, pass),
        resume,
        sessionId: ctx.sessionId,
        cellFilter: filter,
        onEvent: (e) => ctx.opts.onEvent?.(id, e),
        selfContainerId,
        engineWatched: true,
        onFolderLocked: (r) => (release = r),
      });
      const r = await guard.orLost(run, ctx.deps.lostGraceMs ?? 30_000);
      if (s.run.status === "running" || s.run.status === "ok") s.run.status = r.status;
      s.run.dir = join("hosts", id);
      if (r.status === "cancelled") s.alive = false;
    } catch (e) {
      // The grace ended this host's run while its teardown still waits on the lost engine: its part folder's lock is
      // given back here (a no-op when the run gave it back itself).
      if (guard.lost && release) await releaseAfterLoss(release, e);
      if (ctx.signal.aborted) {
        s.run.status = "cancelled";
        s.alive = false;
        return;
      }
      const reachable = !guard.lost && (await answers(s));
      s.run.dir = join("hosts", id);
      ctx.lose(
        s,
        reachable ? "failed" : "unreachable",
        reachable
          ? msg(e)
          : `its engine (${s.run.engine}) stopped answering during the run (${guard.lostWhy ?? msg(e)})`,
      );
    } finally {
      guard.stop();
    }
  }
}

/** Whether a host's engine answers a ping within 5 s. */
export function answers(s: HostState): Promise<boolean> {
  return withDeadline(s.t.engine.ping(), 5000, () => new DeadlineError(5000)).then(
    () => true,
    () => false, // no answer (or not within 5 s) is the answer asked for
  );
}
