/**
 * Stages 6 and 7: one runScenario per host, concurrently, each on its guarded engine (a lost host rejects every
 * call); then, for a shard, the cells of lost hosts go to the survivors, whole groups at a time, pass after pass,
 * until done or nobody is left.
 */
import { join } from "node:path";
import type { Cell } from "../../core/results.ts";
import type { Plan } from "../../core/plan/plan.ts";
import { missingCells, redistribute } from "../../core/hosts/shard.ts";
import { DeadlineError, withDeadline } from "../../core/deadline.ts";
import { guardedEngine, HostGuard } from "../../adapters/docker/guard.ts";
import { runScenario } from "../run.ts";
import type { RunDeps } from "../run/types.ts";
import { msg, type HostsContext, type HostState } from "./context.ts";
import type { HostImages } from "./images.ts";
import { hostRunId } from "./types.ts";

export class HostRuns {
  constructor(
    private readonly ctx: HostsContext,
    private readonly images: HostImages,
  ) {}

  /** Pass 1: every live host runs its own cells. */
  async firstPass(): Promise<void> {
    await Promise.all(this.ctx.live().map((s) => this.runOn(s, 1, (c) => c.host === s.t.spec.id)));
  }

  /** Shard only: move the cells of lost hosts to the survivors until none is missing or nobody is left. */
  async takeOverLostCells(plan: Plan): Promise<void> {
    const { ctx } = this;
    if (ctx.mode !== "shard") return;
    const assigned = new Map(plan.cells.map((c) => [c.key, c.host ?? ""]));
    for (let pass = 2; pass <= ctx.states.length + 1 && !ctx.signal.aborted; pass++) {
      const missing = missingCells(plan.cells, await ctx.folder.readCells(ctx.parts.map((p) => p.folder), ctx.damaged));
      const survivors = ctx.live().map((s) => s.t.spec.id);
      if (missing.length === 0 || survivors.length === 0) break;
      // Only cells whose current host was lost move; a survivor's own failed cells are cell failures, not moved.
      const lostCells = missing.filter((c) => !survivors.includes(assigned.get(c.key) ?? ""));
      if (lostCells.length === 0) break;
      const moved = redistribute(lostCells, survivors);
      for (const [h, cs] of moved) for (const c of cs) assigned.set(c.key, h);
      ctx.info(`moving ${lostCells.length} cells of lost host(s) ${[...new Set(lostCells.map((c) => c.host))].join(", ")} to ${[...moved].filter(([, cs]) => cs.length).map(([h, cs]) => `${h} (${cs.length})`).join(", ")}`, undefined, "warning");
      await Promise.all(
        [...moved].filter(([, cs]) => cs.length > 0).map(([h, cs]) => {
          const keys = new Set(cs.map((c) => c.key));
          return this.runOn(ctx.states.find((x) => x.t.spec.id === h)!, pass, (c) => keys.has(c.key));
        }),
      );
    }
  }

  private async runOn(s: HostState, pass: number, filter: (c: Cell) => boolean): Promise<void> {
    const { ctx } = this;
    const id = s.t.spec.id;
    const folder = pass === 1 ? id : `${id}.pass${pass}`;
    const guard = new HostGuard(id);
    guard.watch(() => s.t.engine.ping(), { everyMs: ctx.deps.watchEveryMs });
    const hostDeps: RunDeps = { ...s.t.deps, engine: guardedEngine(s.t.engine, s.facts!, guard), ensureImage: (name) => this.images.ensureOn(s, name) };
    ctx.parts.push({ host: id, pass, folder });
    try {
      const selfContainerId = ctx.opts.selfContainerId ? await ctx.opts.selfContainerId(s.t.engine).catch(() => undefined) : undefined; // unknown: probes go without it
      const run = (ctx.deps.runOne ?? runScenario)(hostDeps, {
        ...ctx.opts,
        scenario: ctx.scenario,
        outDir: ctx.folder.partDir(folder),
        runId: hostRunId(ctx.opts.runId, id, pass),
        resume: false,
        sessionId: ctx.sessionId,
        cellFilter: filter,
        onEvent: (e) => ctx.opts.onEvent?.(id, e),
        selfContainerId,
      });
      const r = await guard.orLost(run, ctx.deps.lostGraceMs ?? 30_000);
      if (s.run.status === "running" || s.run.status === "ok") s.run.status = r.status;
      s.run.dir = join("hosts", id);
      if (r.status === "cancelled") s.alive = false;
    } catch (e) {
      if (ctx.signal.aborted) {
        s.run.status = "cancelled";
        s.alive = false;
        return;
      }
      const reachable = !guard.lost && (await answers(s));
      s.run.dir = join("hosts", id);
      ctx.lose(s, reachable ? "failed" : "unreachable", reachable ? msg(e) : `its engine (${s.run.engine}) stopped answering during the run (${guard.lostWhy ?? msg(e)})`);
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
