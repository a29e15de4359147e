/**
 * The cells stage: the scheduler's rounds, one cell at a time on its server (the others frozen), with the
 * snapshot restored before each new write test when fresh: per-test, a warm-up per server and test, and a dead
 * server restarted after a failed cell. Every record goes to cells.jsonl as it is made.
 */
import { TwinbenchError } from "../../core/base/errors.ts";
import type { Cell, CellRecord } from "../../core/model/results.ts";
import { parseDuration } from "../../core/model/scenario/schema.ts";
import { testWrites } from "../../core/model/scenario/legacy.ts";
import { withTpccChecks } from "./tpcc.ts";
import { formatBytes } from "../../core/base/units.ts";
import type { LabServer } from "../lab-server.ts";
import type { RunContext } from "./context.ts";
import type { ResultsSession } from "./session.ts";
import type { Servers } from "./servers.ts";
import { type Sidecar } from "./sidecar.ts";
import { dataDirFull, dataDirFullText, pastLimit, serverLost } from "./cell-outcome.ts";
import type { Scheduler } from "./scheduler.ts";
import { quiesce } from "./quiesce.ts";
import { waitForQuiet } from "./quiet.ts";
import { withSpeedCheck } from "../../core/measure/speed.ts";
import { quietWaitSeconds } from "../../core/model/scenario/schema.ts";

export interface CellTally {
  ok: number;
  failed: number;
}

export class CellLoop {
  private readonly warmedUp = new Set<string>();
  private readonly lastTest = new Map<string, string>();
  /** Measured records of this run, resumed ones first: what the scheduler decides from. */
  private readonly recorded: CellRecord[];
  /** The warm-ups recorded so far (resumed ones included): the scheduler's cost model times them. */
  private readonly warmups: CellRecord[];
  /** Attempts so far per cell key, resumed ones included (a resumed cell's next attempt continues the count). */
  private readonly attempts = new Map<string, number>();
  /** The server instance running now; undefined until the first cell (the servers are fresh from prepare then). */
  private instance: number | undefined;
  /** Servers whose data is fresh from a new instance's restore, so a write test needs no restore of its own. */
  private readonly fresh = new Set<string>();

  constructor(
    private readonly ctx: RunContext,
    private readonly session: ResultsSession,
    private readonly servers: Servers,
    private readonly sidecar: Sidecar,
    readonly tally: CellTally,
  ) {
    this.recorded = session.previous.filter((r) => r.phase === "measure");
    this.warmups = session.previous.filter((r) => r.phase === "warmup");
    for (const r of this.recorded) this.attempts.set(r.key, Math.max(this.attempts.get(r.key) ?? 0, r.attempt ?? 1));
  }

  async run(scheduler: Scheduler): Promise<void> {
    for (
      let round = scheduler.nextRound(this.recorded, this.warmups);
      round.length > 0;
      round = scheduler.nextRound(this.recorded, this.warmups)
    ) {
      for (const [i, cell] of round.entries()) {
        await this.one(cell, this.partnerOf(round, i));
        await this.rerunIfDisturbed(round, i);
      }
    }
  }

  /**
   * Where the group of cell i of the round starts: the cells just before it with the same test, threads, repeat and
   * host, each on another server (a pair with two servers, one cell per server of a ladder).
   */
  private groupStart(round: readonly Cell[], i: number): number {
    const cell = round[i];
    const same = (c: Cell | undefined) =>
      c !== undefined &&
      c.test === cell.test &&
      c.threads === cell.threads &&
      c.repeat === cell.repeat &&
      c.host === cell.host;
    let j = i;
    while (j > 0 && same(round[j - 1]) && !round.slice(j, i + 1).some((c) => c.server === round[j - 1].server)) j--;
    return j;
  }

  /** The record of the first cell of cell i's group, when i is not that cell: the cell whose CPU speed i's must match. */
  private partnerOf(round: readonly Cell[], i: number): CellRecord | undefined {
    const j = this.groupStart(round, i);
    return j < i ? this.recorded.findLast((r) => r.key === round[j].key) : undefined;
  }

  /**
   * When cell i of the round completes a group (the cells before it with the same test, threads and repeat, other
   * servers: a pair with two servers, one cell per server of a ladder) and outside work disturbed any of them
   * (src/core/measure/interference.ts), run the whole group once more, same order, as new attempts of the same keys: the
   * report uses each key's last attempt and counts the re-runs. A group disturbed again is kept, flagged, and left
   * out of the estimate. Before the re-run, the loop waits (workload.quietWait, at most) for the machine to go quiet:
   * a re-run started at once lands in the same burst of outside work.
   */
  private async rerunIfDisturbed(round: readonly Cell[], i: number): Promise<void> {
    const { ctx } = this;
    const cell = round[i];
    if (!ctx.scenario.workload.rerunDisturbed) return;
    // Not complete yet: the next cell is of the same group.
    if (i + 1 < round.length && this.groupStart(round, i + 1) < i + 1) return;
    const group = round.slice(this.groupStart(round, i), i + 1);
    if (group.length < 2) return;
    const last = (key: string) => this.recorded.findLast((r) => r.key === key);
    const recs = group.map((c) => last(c.key));
    if (recs.some((r) => r?.status !== "ok") || !recs.some((r) => r!.interference?.disturbed)) return;
    const reasons = recs.flatMap((r) =>
      r!.interference?.disturbed ? [`${r!.server}: ${r!.interference.reasons.join("; ")}`] : [],
    );
    const lab = () => this.servers.all().flatMap((s) => (s.containerId ? [s.containerId] : []));
    const wait = await ctx.time("quiet", () => waitForQuiet(ctx, lab, quietWaitSeconds(ctx.scenario.workload)));
    const waited =
      wait.quiet === null
        ? ""
        : wait.quiet
          ? ` after ${Math.round(wait.waitedS)} s, once the machine was quiet`
          : ` after ${Math.round(wait.waitedS)} s; the machine did not go quiet`;
    ctx.warn(
      `${cell.test} t${cell.threads} r${cell.repeat} was disturbed (${reasons.join(" | ")}): running the ${group.length === 2 ? "pair" : "group"} once more${waited}`,
    );
    // The re-run's attempts replace these in the tally, as they do in the report.
    this.tally.ok -= group.length;
    let first: CellRecord | undefined;
    for (const [k, c] of group.entries()) {
      await this.one(c, first);
      if (k === 0) first = last(c.key);
    }
  }

  /** One cell; `partner` is the record of the first cell of its group, whose CPU speed this cell's must match. */
  private async one(cell: Cell, partner?: CellRecord): Promise<void> {
    const { ctx, session } = this;
    ctx.throwIfAborted();
    await this.switchInstance(cell);
    const server = this.servers.get(cell.server);
    await this.servers.focus(server);
    // Fresh data for write tests when asked: restore the post-prepare snapshot before each new write test.
    const freshNow = this.fresh.delete(cell.server);
    if (
      ctx.scenario.workload.fresh === "per-test" &&
      testWrites(cell.test, ctx.scenario.workload.scripts) &&
      this.lastTest.get(cell.server) !== cell.test &&
      !freshNow
    ) {
      await this.servers.restoreSnapshot(server, cell.test, this.sidecar);
      this.warmedUp.delete(`${cell.server}/${cell.test}`);
    }
    this.lastTest.set(cell.server, cell.test);
    await this.warmUp(server, cell);
    // workload.quiesce: InnoDB's purge and flushing settled before a write-test cell (recorded per cell).
    const quiesceSeconds =
      ctx.scenario.workload.quiesce && testWrites(cell.test, ctx.scenario.workload.scripts)
        ? await ctx.time("quiesce", () => quiesce(ctx, session, server, `before ${cell.key}`))
        : undefined;
    await this.measure(server, cell, quiesceSeconds, partner);
    await session.save();
  }

  /** Before the first cell of a new instance: every server restarted fresh from the snapshot, and warmed up again. */
  private async switchInstance(cell: Cell): Promise<void> {
    if (cell.instance === undefined || cell.instance === this.instance) return;
    const first = this.instance === undefined;
    this.instance = cell.instance;
    // The servers were just prepared: they are the first cell's instance already.
    if (first) return;
    await this.servers.newInstance(cell.instance, this.sidecar);
    this.warmedUp.clear();
    for (const id of this.servers.byId.keys()) this.fresh.add(id);
  }

  /**
   * The measured cell, retried up to `retries` times (default 1) when it fails: after a restart when its server
   * died, at once when it is alive. Every attempt goes to cells.jsonl; a skipped cell is not retried, nor one whose
   * server was OOM-killed or whose data dir is full (the same cell would meet the same limit).
   */
  private async measure(server: LabServer, cell: Cell, quiesceSeconds?: number, partner?: CellRecord): Promise<void> {
    const { ctx, session } = this;
    const retries = ctx.opts.retries ?? 1;
    for (let tries = 0; ; tries++) {
      const attempt = (this.attempts.get(cell.key) ?? 0) + 1;
      this.attempts.set(cell.key, attempt);
      ctx.phase("measure", { server: cell.server, test: cell.test, threads: cell.threads });
      const rec = await ctx.time("measure", () =>
        withTpccChecks(ctx, server, cell, () => this.sidecar.cell(server, cell, "measure", undefined, attempt)),
      );
      if (quiesceSeconds !== undefined) rec.quiesceSeconds = quiesceSeconds;
      // Its pair's first cell ran at another CPU speed: the pair is disturbed (core/measure/speed.ts).
      if (partner?.status === "ok" && rec.status === "ok" && rec.interference)
        rec.interference = withSpeedCheck(rec.interference, partner.interference, partner.server);
      if (cell.instance !== undefined) rec.instance = cell.instance;
      // A server the OOM killer ended fails its cell once, named as such: the same cell would reach the same limit
      // again, so it is not retried (the server is restarted for the cells after it).
      const oom = rec.status === "failed" && (await server.oomKilled());
      if (oom) {
        const limit = server.init.memoryBytes;
        rec.serverOomKilled = true;
        rec.error = `server ${cell.server} was OOM-killed${limit ? ` at its memory limit of ${formatBytes(limit)}` : ""}: ${rec.error ?? "the cell failed"}`;
      }
      // A full data dir fails its cell at once, named as such: not transient, the same cell would fill it again.
      const full = !oom && dataDirFull(rec);
      if (full) {
        const t = dataDirFullText(cell.server, server.init.storage);
        rec.errorCode = "SERVER_DATA_DIR_FULL";
        rec.error = `${t.where}: ${rec.error ?? "the cell failed"}`;
        rec.hint = t.hint;
      }
      await session.appendCell(rec);
      this.recorded.push(rec);
      if (rec.status === "ok") {
        this.tally.ok++;
        ctx.emit({ type: "cell-finished", at: ctx.at(), cell, record: rec });
        return;
      }
      // A cell stopped at its limit on a server that still runs: the server must answer now, or the run ends here
      // (SERVER_HUNG) rather than wait out every cell after it.
      if (pastLimit(rec) && (await server.isRunning()))
        await server.assertAnswers(`after cell ${cell.key} ran past its limit`);
      const retry = rec.status === "failed" && !oom && !full && tries < retries && !ctx.signal.aborted;
      ctx.emit({ type: "cell-failed", at: ctx.at(), cell, record: rec, ...(retry ? { retry: attempt + 1 } : {}) });
      ctx.throwIfAborted();
      if (!retry) this.tally.failed++;
      if (rec.status !== "failed") return;
      if (!retry && ctx.opts.failFast)
        throw new TwinbenchError(`cell ${cell.key} failed: ${rec.error}`, {
          code: "CELL_FAILED",
          hint: "run without --fail-fast to carry on after failures",
        });
      const restarted = await this.servers.recoverIfDead(server, cell, this.sidecar, {
        lost: serverLost(rec),
        attempt,
      });
      if (restarted) this.warmedUp.delete(`${cell.server}/${cell.test}`);
      if (!retry) return;
      // A restarted server is cold: warm it up again before the retry, as before the first attempt.
      await this.warmUp(server, cell);
    }
  }

  /** Once per server and test (again after a restore or a restart): the warm-up at the highest thread count. */
  private async warmUp(server: LabServer, cell: Cell): Promise<void> {
    const { ctx } = this;
    const warmupSeconds = parseDuration(ctx.scenario.workload.warmup) ?? 0;
    const wkey = `${cell.server}/${cell.test}`;
    if (warmupSeconds <= 0 || this.warmedUp.has(wkey)) return;
    this.warmedUp.add(wkey);
    const maxThreads = Math.max(...ctx.scenario.workload.threads);
    const wcell: Cell = { ...cell, key: `${cell.server}/${cell.test}/warmup`, threads: maxThreads, repeat: 0 };
    ctx.phase("warmup", { server: cell.server, test: cell.test, threads: maxThreads });
    const rec = await ctx.time("warmup", () => this.sidecar.cell(server, wcell, "warmup", warmupSeconds));
    await this.session.appendCell(rec);
    this.warmups.push(rec);
    if (rec.status === "failed") {
      ctx.throwIfAborted();
      if (pastLimit(rec) && (await server.isRunning()))
        await server.assertAnswers(`after the warm-up of ${cell.test} ran past its limit`);
      ctx.warn(`warm-up of ${cell.server} ${cell.test} failed: ${rec.error}`);
      await this.servers.recoverIfDead(server, wcell, this.sidecar, { lost: serverLost(rec) });
    }
  }
}
