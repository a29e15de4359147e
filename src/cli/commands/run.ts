/**
 * `twinbench run` and `twinbench clean`: wire adapters into the app, choose a front end, own the signals.
 */
import { historyForReports } from "../../app/history.ts";
import type { Command } from "commander";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import type { RunEvent } from "../../core/model/events.ts";
import { runScenario, newRunId, RunControl, type RunSummary } from "../../app/run.ts";
import { prepareLab, resolveRunRequest } from "../../app/start.ts";
import { assertRunnable } from "../../core/plan/plan.ts";
import { cleanResources, cleanSession } from "../../app/clean.ts";
import { trapSignals } from "../../app/signals.ts";
import { selfContainerId } from "../../adapters/docker/self.ts";
import { hostCalibration } from "../../adapters/calibration-store.ts";
import { parseModeChoice } from "../../adapters/images/index.ts";
import { plainLine } from "../plain.ts";
import { readResultsFolder } from "../../adapters/report-files.ts";
import { buildRunReport } from "../../core/report/model.ts";
import { levelOption } from "./report.ts";
import { renderText } from "../../core/report/text.ts";
import type { CliContext } from "../context.ts";
import { loadDeps } from "./shared.ts";
import { parseReadyTimeoutMs, parseRetries, type RunCliOptions } from "./run-options.ts";
import { cleanHostsCommand, resumeHostsCommand, runHostsCommand, wantsHosts } from "./run-hosts.ts";

export type { RunCliOptions };

const collect = (v: string, prev: string[]) => [...prev, v];

export function registerRunCommands(program: Command, ctx: CliContext): void {
  program
    .command("run")
    .description("run a scenario end to end (default scenarios/quick.yaml) and write a results folder")
    .argument("[scenario]", "scenario file", "scenarios/quick.yaml")
    .option("--out <dir>", "results folder (default results/<run-id>)")
    .option("--resume <dir>", "continue a run: only missing or failed cells run, with the same pins")
    .option("--set <path=value>", "override a scenario value (repeatable), VALUE parsed as YAML", collect, [])
    .option("--no-tui", "plain progress lines instead of the terminal UI")
    .option("--json-events", "print the event stream as NDJSON on stdout")
    .addOption(levelOption())
    .option("--fail-fast", "stop at the first failed cell")
    .option(
      "--retries <n>",
      "retry a failed cell up to N times, after restarting its server when it died (0: never)",
      "1",
    )
    .option(
      "--no-rerun-disturbed",
      "do not run a pair once more when outside work disturbed it (it is still left out of the estimate; sets workload.rerunDisturbed=false)",
    )
    .option("--strict", "a must-match config difference is an error before any measurement")
    .option("--wipe-devices", "allow raid0 on devices that hold a filesystem signature")
    .option("--image-mode <mode>", "auto | debian | official")
    .option("--ready-timeout <seconds>", "server readiness deadline", "180")
    .option("--host <id=url>", "run on this Docker engine (repeatable; replaces the scenario's hosts:)", collect, [])
    .option(
      "--image-transfer <how>",
      "images on other hosts: send (build once, stream over the API) | build (each host builds)",
      "send",
    )
    .option("--force", "shard over hosts whose facts differ (the report says the hosts were mixed)")
    .option(
      "--no-calibrate",
      "deprecated, does nothing: a run never calibrates first (`twinbench calibrate` is the explicit way)",
    )
    .option("--precision <pct>", "adaptive repeats: run rounds until each cell's interval is within ± this (e.g. 3%)")
    .option("--budget <duration>", "wall-time budget of an adaptive run (e.g. 30m): no round starts that would not fit")
    .option(
      "--design",
      "with --budget: let the budget-first design choose cell length, warm-up, rounds, instances and test order (as `plan --budget` prints it)",
    )
    .action(async (file: string, o: RunCliOptions) => {
      ctx.exitCode = await runCommand(ctx, file, o);
    });

  program
    .command("clean")
    .description("remove every Docker resource twinbench made, and undo storage left by killed runs")
    .option("--run <id>", "only that run's resources")
    .option(
      "--host <id[=url]>",
      "clean that host's engine instead (repeatable; URL remembered from its last run)",
      collect,
      [],
    )
    .option(
      "--force",
      "also when a storage state file is damaged: move it aside (<file>.corrupt) and undo twinbench's mounts and loop devices as the host's tables show them",
    )
    .action(async (o: { run?: string; host: string[]; force?: boolean }) => {
      if (o.host.length > 0) {
        ctx.exitCode = await cleanHostsCommand(ctx, o.host, o.run);
        return;
      }
      const deps = await loadDeps(ctx, {});
      const r = await cleanResources(deps.engine, {
        runId: o.run,
        storage: deps.storage,
        force: o.force,
        affinity: deps.engine.location().local || undefined,
      });
      ctx.out(`removed ${r.containers.length} containers, ${r.networks.length} networks, ${r.volumes.length} volumes`);
      for (const s of r.storage) ctx.out(`storage: ${s}`);
      for (const s of r.affinity) ctx.out(`CPU lists: ${s}`);
      for (const f of r.failed) ctx.err(`could not remove ${f}`);
      if (r.storageError) throw r.storageError;
      if (r.failed.length > 0) ctx.exitCode = 1;
    });
}

export async function runCommand(ctx: CliContext, file: string, o: RunCliOptions): Promise<0 | 1 | 2 | 130> {
  // Resolve the scenario first: an invalid scenario creates nothing.
  if (o.resume) {
    // A multi-host folder resumes on its hosts' engines; one host's part of it is refused (it is not the local engine's).
    const code = await resumeHostsCommand(ctx, o);
    if (code !== undefined) return code;
  }
  const retries = parseRetries(o.retries);
  const readyTimeoutMs = parseReadyTimeoutMs(o.readyTimeout);
  const sets = [...(o.rerunDisturbed === false ? ["workload.rerunDisturbed=false"] : []), ...o.set];
  const design = o.design
    ? { calibration: async () => (await hostCalibration(ctx.engine())).calibration, log: ctx.err }
    : undefined;
  const input = await resolveRunRequest({
    file,
    sets,
    resume: o.resume,
    hosts: o.host,
    precision: o.precision,
    budget: o.budget,
    design,
  });
  for (const w of input.warnings) ctx.err(`warning: ${w}`);
  if (o.calibrate === false)
    ctx.err(
      "warning: --no-calibrate is deprecated and does nothing: a run never calibrates first (it forecasts from the host's calibration, or from its own pairs after the first round)",
    );
  const { scenario, scenarioFile } = input;
  assertRunnable(scenario); // adaptive repeats over several hosts: refused before anything is created
  if (!o.resume && wantsHosts(scenario, o))
    return runHostsCommand(ctx, { scenario, scenarioFile, overrides: [...o.set, ...input.adaptive] }, o);
  const runId = newRunId(new Date());
  const outDir = resolve(o.resume ?? o.out ?? join("results", runId));

  const lab = await prepareLab(scenario, {
    log: ctx.err,
    engine: ctx.engine(),
    imageMode: o.imageMode === undefined ? undefined : parseModeChoice(o.imageMode),
  });
  const { deps, neutralCnf } = lab;
  for (const n of lab.notices) ctx.err(`notice: ${n}`);

  const useTui = o.tui && ctx.isTTY && !o.jsonEvents;
  const control = new RunControl();
  // Every resource of this process is labelled with its session id: a forced cleanup removes exactly those.
  const sessionId = randomBytes(6).toString("hex");
  const trap = trapSignals({
    graceful: () => {
      if (!useTui) ctx.err("cancelling: stopping sysbench and cleaning up (Ctrl-C again to force)...");
    },
    force: () => {
      if (!useTui) ctx.err("forced: removing this run's resources and exiting");
      void cleanSession([deps.engine], sessionId).finally(() => process.exit(130));
    },
  });

  let sink: (e: RunEvent) => void;
  let tuiDone: Promise<void> | undefined;
  let tuiClose: (() => void) | undefined;
  if (o.jsonEvents) sink = (e) => ctx.out(JSON.stringify(e));
  else if (useTui) {
    const { mountRunScreen } = await import("../../tui/run-screen.tsx");
    const screen = mountRunScreen({ onCancel: trap.interrupt, onSkip: () => control.skipCurrent() });
    sink = screen.dispatch;
    tuiDone = screen.done;
    tuiClose = screen.close;
  } else
    sink = (e) => {
      const l = plainLine(e);
      if (l !== undefined) ctx.out(l);
    };
  let sawFinished = false;
  const dispatch = (e: RunEvent) => {
    if (e.type === "run-finished") sawFinished = true;
    sink(e);
  };

  let summary: RunSummary;
  try {
    summary = await runScenario(deps, {
      scenario,
      scenarioFile,
      overrides: input.overrides,
      ...(input.design ? { design: input.design } : {}),
      neutralCnf,
      outDir,
      runId,
      sessionId,
      resume: Boolean(o.resume),
      failFast: o.failFast,
      retries,
      strict: o.strict,
      wipeDevices: o.wipeDevices,
      readyTimeoutMs,
      signal: trap.signal,
      control,
      onEvent: dispatch,
      selfContainerId: await selfContainerId(deps.engine),
    });
  } finally {
    trap.dispose();
    if (tuiDone) {
      // A run that threw before run-finished never ends the screen by itself; close() is idempotent.
      if (!sawFinished) tuiClose?.();
      await tuiDone;
    }
  }
  if (!o.jsonEvents && !useTui) {
    try {
      const folder = await readResultsFolder(summary.dir);
      ctx.out("");
      const { entries: history } = await historyForReports();
      ctx.out(renderText(buildRunReport(folder.manifest, folder.cells, { history, level: o.level })).trimEnd());
      ctx.out(`\nresults: ${summary.dir}  (report: ${join(summary.dir, "report.html")})`);
    } catch (e) {
      ctx.err(`warning: could not render the report: ${(e as Error).message}`);
    }
  }
  return summary.exitCode;
}
