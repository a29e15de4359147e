/**
 * Runs one scenario on one engine, as a pipeline of stages (src/app/run/):
 *
 *   host fit (memory, cpusets) → storage preflight → results session → images → servers (storage, start, facts, prepare, snapshot)
 *   → config identity → cells (scheduler rounds, load sidecar)
 *   → teardown, always → the run's pairs folded into the host calibration → run-finished
 * (the forecast before the cells comes from the host calibration: a run never calibrates first)
 *
 * Emits typed events only; front ends own the screen and the exit code.
 */
import { CancelledError, TwinbenchError } from "../core/base/errors.ts";
import { planRun } from "../core/plan/plan.ts";
import { resumeTodo } from "../core/plan/cells.ts";
import { loadBoundWarnings } from "../core/plan/loadbound.ts";
import { engineError, isEngineConnectionError } from "../adapters/docker/engine-errors.ts";
import { guardedEngine, HostGuard } from "../adapters/docker/guard.ts";
import { RunContext } from "./run/context.ts";
import { ResultsSession } from "./run/session.ts";
import { ensureImages, LOAD_IMAGE } from "./run/images.ts";
import { probeHost } from "./run/host-facts.ts";
import { checkFit } from "./run/fit.ts";
import { Servers } from "./run/servers.ts";
import { Sidecar } from "./run/sidecar.ts";
import { checkConfigIdentity } from "./run/identity.ts";
import { CellLoop, type CellTally } from "./run/cells.ts";
import { StaticScheduler } from "./run/scheduler.ts";
import { AdaptiveScheduler } from "./run/adaptive.ts";
import { adaptiveRepeats } from "../core/model/scenario/schema.ts";
import { teardown } from "./run/teardown.ts";
import { withSpeedWatch } from "./run/speed.ts";
import { checkRunScripts, readRunScripts } from "./run/scripts.ts";
import { announceForecast, readHostCalibration, updateHostCalibration } from "./run/calibration.ts";
import { recordRunHistory } from "./run/history.ts";
import { withConfinedDaemons } from "./run/confine.ts";
import { exitCodeOf, type RunDeps, type RunOptions, type RunStatus, type RunSummary } from "./run/types.ts";

export {
  TWINBENCH_VERSION,
  RunControl,
  type ImageInfo,
  type RunDeps,
  type RunOptions,
  type RunSummary,
} from "./run/types.ts";
export { newRunId } from "./run/session.ts";
export { StaticScheduler, type Scheduler } from "./run/scheduler.ts";

/** Run a scenario end to end. Never throws for cell failures; throws only for set-up errors (after teardown). */
export async function runScenario(deps: RunDeps, opts: RunOptions): Promise<RunSummary> {
  // A single-host run watches its engine too: once it stops answering pings (a stopped or hung dockerd), every call
  // fails at once with HOST_LOST instead of waiting for ever, and the run unwinds.
  const guard = opts.engineWatched ? undefined : new HostGuard(deps.engine.hostId);
  if (guard) {
    const engine = deps.engine;
    guard.watch(() => engine.ping(), { everyMs: deps.watchEveryMs ?? ENGINE_WATCH_EVERY_MS });
    deps = guardedDeps(deps, guardedEngine(engine, undefined, guard), guard);
  }
  let release: (() => Promise<void>) | undefined;
  try {
    const run = runGuarded(deps, {
      ...opts,
      onFolderLocked: (r) => {
        release = r;
        opts.onFolderLocked?.(r);
      },
    });
    // Whatever still waits on the lost engine, the run ends a grace after the loss: its teardown has that long to
    // write the results folder.
    return await (guard ? guard.orLost(run, deps.lostGraceMs ?? LOST_GRACE_MS) : run);
  } catch (e) {
    // The grace ended the run while its teardown still waits on the lost engine: the process ends before that
    // teardown's `finally` gives the folder's lock back, so it is given back here (a no-op when it already was).
    if (guard?.lost && release) await releaseAfterLoss(release, e);
    throw e;
  } finally {
    guard?.stop();
  }
}

/** Give a results folder's lock back after the host's loss; a failure to do so becomes a detail of the error. */
export async function releaseAfterLoss(release: () => Promise<void>, e: unknown): Promise<void> {
  try {
    await release();
  } catch (why) {
    if (e instanceof TwinbenchError)
      e.details.push(
        `the results folder's lock could not be given back (${(why as Error).message}): the next --resume takes it over`,
      );
  }
}

/** How often a single-host run pings its engine (three misses in a row end the run). */
export const ENGINE_WATCH_EVERY_MS = 5000;
/** How long a run whose host was lost has to unwind before it ends with HOST_LOST all the same. */
export const LOST_GRACE_MS = 30_000;

/**
 * A run's ports on its guarded engine: the storage provider's engine calls (volumes, probe containers) and the
 * calibration's engine facts are raced against the host's loss too, so that teardown never waits on a lost engine.
 */
export function guardedDeps(deps: RunDeps, engine: RunDeps["engine"], guard: HostGuard): RunDeps {
  const { calibrations } = deps;
  return {
    ...deps,
    engine,
    storage: deps.storage.onEngine?.(engine) ?? deps.storage,
    ...(calibrations
      ? { calibrations: { read: () => guard.guard(calibrations.read()), write: (c) => calibrations.write(c) } }
      : {}),
  };
}

async function runGuarded(deps: RunDeps, opts: RunOptions): Promise<RunSummary> {
  const ctx = new RunContext(deps, opts, planRun(opts.scenario));
  // The scenario's own Lua scripts, read (and checked to be there) before anything is created.
  ctx.scripts = opts.scripts ?? (await readRunScripts(opts));
  // Memory and cpusets against the engine host's facts, before anything is created.
  await checkFit(ctx);
  // Storage preflight (tools, privileges) for every server before anything is created, results folder included.
  for (const s of ctx.scenario.servers) await deps.storage.preflight(s.storage ?? ctx.scenario.storage);
  const session = await ResultsSession.open(ctx);
  opts.onFolderLocked?.(() => session.store.release());
  // The folder's lock is held from here to the end, whatever the outcome (a crash leaves it to be taken over).
  try {
    return await runOpened(ctx, session);
  } finally {
    await session.store.release();
  }
}

/** The run once its results folder is open (and locked): every stage, teardown, the calibration, run-finished. */
async function runOpened(ctx: RunContext, session: ResultsSession): Promise<RunSummary> {
  const { opts } = ctx;
  session.announce();
  for (const w of loadBoundWarnings(ctx.scenario)) ctx.warn(w);
  // A run never calibrates first: it forecasts from the host's calibration, or says there is none (and forecasts
  // from its own pairs after the first round).
  const calibration =
    adaptiveRepeats(ctx.scenario.workload) && !opts.identityOnly ? await readHostCalibration(ctx) : null;
  announceForecast(ctx, session, calibration);

  const servers = new Servers(ctx, session);
  const tally: CellTally = {
    ok: session.previous.filter((r) => r.phase === "measure" && r.status === "ok").length,
    failed: 0,
  };
  let status: RunStatus = "ok";
  let fatal: unknown;
  try {
    await ctx.engine.ping();
    session.manifest.hosts = [await ctx.engine.facts()];
    const images = await ensureImages(ctx, session);
    // A custom script that sysbench cannot load fails here, before any server exists.
    await checkRunScripts(ctx, images.get(LOAD_IMAGE)!);
    await probeHost(ctx, session, images.get(LOAD_IMAGE)!);
    const sidecar = new Sidecar(ctx, session, images.get(LOAD_IMAGE)!, () =>
      servers.all().flatMap((s) => (s.containerId ? [s.containerId] : [])),
    );
    const started = await servers.startAll(images, sidecar);
    await checkConfigIdentity(ctx, session, started);
    if (!opts.identityOnly) {
      const todo = resumeTodo(ctx.plan.cells, session.previous).filter((c) => opts.cellFilter?.(c) ?? true);
      const scheduler =
        opts.scheduler?.(todo) ??
        (adaptiveRepeats(ctx.scenario.workload)
          ? new AdaptiveScheduler(ctx, session, calibration)
          : new StaticScheduler(todo));
      const loop = new CellLoop(ctx, session, servers, sidecar, tally);
      await withConfinedDaemons(ctx, session, () =>
        withSpeedWatch(
          ctx,
          servers.all().map((s) => s.init.cpuset),
          () => loop.run(scheduler),
        ),
      );
      await servers.cleanupScripts(sidecar);
    }
    if (tally.failed > 0) status = "partial";
  } catch (e) {
    fatal = e;
    status = e instanceof CancelledError || ctx.signal.aborted ? "cancelled" : tally.ok > 0 ? "partial" : "failed";
    if (status === "cancelled") ctx.emit({ type: "cancelling", at: ctx.at(), reason: "cancelled by the user" });
  } finally {
    await teardown(ctx, session, servers, status);
  }
  // After teardown (its time is one of the costs kept): the run's pairs go into the host's calibration.
  if (status === "ok" || status === "partial") {
    await updateHostCalibration(ctx, session);
    await recordRunHistory(ctx, session);
  }

  const exitCode = exitCodeOf(status);
  ctx.emit({
    type: "run-finished",
    at: ctx.at(),
    status,
    dir: session.dir,
    exitCode,
    cellsOk: tally.ok,
    cellsFailed: tally.failed,
    message: fatal instanceof Error ? fatal.message : undefined,
  });
  if (fatal && !(fatal instanceof CancelledError)) {
    // Engine refusals (docker-modem errors carry statusCode) are the lab's failures, not bugs: say what was refused.
    if (!(fatal instanceof TwinbenchError) && typeof fatal === "object" && fatal !== null && "statusCode" in fatal)
      throw engineError(
        "the Docker engine refused a request",
        fatal,
        `the run was torn down; results so far are in ${session.dir}`,
      );
    if (isEngineConnectionError(fatal))
      throw engineError(
        "the Docker engine stopped answering",
        fatal,
        `the cells finished so far are in ${session.dir}; once the engine is back (\`twinbench doctor --fix\`): \`twinbench clean --run ${session.runId}\`, then \`twinbench run --resume ${session.dir}\``,
      );
    throw fatal;
  }
  return { status, exitCode, dir: session.dir, runId: session.runId, cellsOk: tally.ok, cellsFailed: tally.failed };
}
