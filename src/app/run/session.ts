/**
 * The results session: the folder a run writes (run.json, cells.jsonl, raw/). Opened before anything touches the
 * engine, new or resumed (same fingerprint only); the manifest is rewritten whenever it learns something, each
 * server's facts as soon as that server is up, so a later failure keeps what was learnt before it.
 */
import { randomBytes } from "node:crypto";
import { InputError } from "../../core/base/errors.ts";
import type { Cell, CellRecord, RunManifest, ServerManifest } from "../../core/model/results.ts";
import { RUN_ID_SAFE } from "../../core/model/manifest.ts";
import { scenarioFingerprint } from "../../core/plan/fingerprint.ts";
import { ResultsStore } from "../../adapters/results/store.ts";
import type { RunContext } from "./context.ts";
import { TWINBENCH_VERSION } from "./types.ts";
import { assertSameScripts, scriptRecords } from "./scripts.ts";
import { comparisonPairs } from "../../core/model/scenario/pairs.ts";
import { reportMarginPct } from "../../core/model/scenario/schema.ts";

export function newRunId(now: Date): string {
  const t = now.toISOString().replace(/[-:]/g, "").replace(/\..*/, "").replace("T", "-");
  return `${t}-${randomBytes(2).toString("hex")}`;
}

export class ResultsSession {
  private constructor(
    private readonly ctx: RunContext,
    readonly store: ResultsStore,
    readonly manifest: RunManifest,
    /** Cell records of the run being resumed (none for a new run). */
    readonly previous: CellRecord[],
    /** Where a resume moved a torn last line of cells.jsonl (a crash mid-write), if there was one. */
    readonly tornMovedTo?: string,
  ) {}

  get dir(): string {
    return this.store.dir;
  }
  get runId(): string {
    return this.manifest.runId;
  }

  /**
   * Create the folder, or reopen it for `resume` when the scenario, its pins and its config are the same. Either way
   * the folder's lock is taken first (released by `store.release()` when the run ends, or here on failure).
   */
  static async open(ctx: RunContext): Promise<ResultsSession> {
    const { opts } = ctx;
    if (!opts.resume && opts.runId !== undefined && !RUN_ID_SAFE.test(opts.runId))
      throw new InputError(`run id ${JSON.stringify(opts.runId)} is not a valid run id`, {
        code: "RUN_ID_INVALID",
        hint: "leave the run id out (twinbench makes one), or use letters, digits, - and _ only",
      });
    const store = opts.resume
      ? await ResultsStore.open(opts.outDir, { lock: true })
      : await ResultsStore.create(opts.outDir);
    try {
      const session = opts.resume ? await ResultsSession.resumed(ctx, store) : ResultsSession.fresh(ctx, store);
      ctx.runId = session.runId;
      await session.save();
      return session;
    } catch (e) {
      await store.release();
      throw e;
    }
  }

  private static async resumed(ctx: RunContext, store: ResultsStore): Promise<ResultsSession> {
    const { opts, scenario } = ctx;
    const old = await store.readManifest({ resume: true });
    if (old.fingerprint !== scenarioFingerprint(scenario, opts.neutralCnf))
      throw new InputError(
        `cannot resume ${opts.outDir}: the scenario, its pins or its config differ from the original run`,
        {
          code: "RESUME_MISMATCH",
          hint: "resume with the same scenario file, --set overrides and lab config; or start a new run",
        },
      );
    assertSameScripts({ manifest: old, dir: opts.outDir }, ctx.scripts);
    // A torn last line goes aside before anything is appended, so every later record starts on a line of its own.
    const torn = await store.setAsideTornLine();
    return new ResultsSession(
      ctx,
      store,
      { ...old, status: "running", endedAt: undefined },
      await store.readCells(),
      torn?.movedTo,
    );
  }

  private static fresh(ctx: RunContext, store: ResultsStore): ResultsSession {
    const { opts, scenario, plan } = ctx;
    const manifest: RunManifest = {
      runId: opts.runId ?? newRunId(ctx.now()),
      twinbenchVersion: TWINBENCH_VERSION,
      scenarioFile: opts.scenarioFile,
      scenario,
      overrides: opts.overrides ?? [],
      cells: plan.cells,
      estimateSeconds: plan.estimate.totalSeconds,
      hosts: [],
      servers: [],
      startedAt: ctx.at(),
      status: "running",
      actions: [],
      fingerprint: scenarioFingerprint(scenario, opts.neutralCnf),
      ...(ctx.scripts.length ? { customScripts: scriptRecords(ctx.scripts) } : {}),
    };
    return new ResultsSession(ctx, store, manifest, []);
  }

  /** Tell the front end what the run will do, and what a resumed run already did. */
  announce(): void {
    const { ctx, manifest } = this;
    const { scenario, plan } = ctx;
    const pairs = comparisonPairs(scenario);
    ctx.emit({
      type: "plan-ready",
      at: ctx.at(),
      runId: manifest.runId,
      dir: this.dir,
      scenario: scenario.name,
      cells: plan.cells,
      estimateSeconds: plan.estimate.totalSeconds,
      servers: scenario.servers.map((s) => ({ id: s.id, image: s.image })),
      storage: scenario.storage.kind,
      transport: scenario.load.transport,
      ...(pairs.length > 1 ? { pairs } : {}),
      marginPct: reportMarginPct(scenario),
    });
    if (this.tornMovedTo)
      ctx.warn(
        `cells.jsonl ended in a torn line (a crash mid-write): moved it to ${this.tornMovedTo}, so every later record starts on a line of its own`,
      );
    for (const r of this.previous)
      ctx.emit({
        type: r.status === "ok" ? "cell-finished" : "cell-failed",
        at: ctx.at(),
        cell: plan.cells.find((c) => c.key === r.key) ?? cellOf(r),
        record: r,
      });
  }

  /** Something the lab did, for reproducibility (snapshot restores, restarts, pauses). */
  action(action: string, server?: string, detail?: string): void {
    (this.manifest.actions ??= []).push({ at: this.ctx.at(), server, action, detail });
  }

  /** A server is up: its facts go into run.json now, replacing an earlier entry of the same id. */
  async addServer(m: ServerManifest): Promise<void> {
    this.manifest.servers = [...this.manifest.servers.filter((s) => s.id !== m.id), m];
    await this.save();
  }

  save(): Promise<void> {
    return this.store.writeManifest(this.manifest);
  }
  appendCell(rec: CellRecord): Promise<void> {
    return this.store.appendCell(rec);
  }
  writeRaw(name: string, text: string): Promise<string> {
    return this.store.writeRaw(name, text);
  }
}

function cellOf(r: CellRecord): Cell {
  return {
    index: -1,
    key: r.key,
    server: r.server,
    test: r.test,
    script: r.test,
    threads: r.threads,
    repeat: r.repeat,
  };
}
