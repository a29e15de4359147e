/**
 * `twinbench calibrate [SCENARIO]`: measure this host's noise (a per-second series and A/A pairs on fresh server
 * instances) and keep it as the host's calibration; `--show` prints the stored one.
 */
import type { Command } from "commander";
import { randomBytes } from "node:crypto";
import { InputError } from "../../core/base/errors.ts";
import type { RunEvent } from "../../core/model/events.ts";
import { calibrationLines } from "../../core/report/calibration.ts";
import { parseDuration } from "../../core/model/scenario/schema.ts";
import { calibrate, type CalibrateResult } from "../../app/calibrate.ts";
import { trapSignals } from "../../app/signals.ts";
import { prepareLab, resolveRunInput } from "../../app/start.ts";
import { calibrationFile, hostCalibration } from "../../adapters/calibration-store.ts";
import { selfContainerId } from "../../adapters/docker/self.ts";
import { plainLine } from "../plain.ts";
import type { CliContext } from "../context.ts";

/** The options of `twinbench calibrate`. */
export interface CalibrateCliOptions {
  set: string[];
  maxTime: string;
  show?: boolean;
  out: string;
  pairs?: string;
  instances?: string;
  series?: string;
  lengths?: string;
  jsonEvents?: boolean;
}

const collect = (v: string, prev: string[]) => [...prev, v];

/** `--lengths 10,30,90`: whole seconds from 2, comma-separated. */
export function parseLengths(v: string | undefined): number[] | undefined {
  if (v === undefined) return undefined;
  const parts = v.split(",").map((x) => x.trim());
  const n = parts.map(Number);
  if (!parts.length || n.some((x, i) => !/^\d+$/.test(parts[i]) || x < 2))
    throw new InputError(`--lengths ${v}: expected whole seconds from 2, comma-separated`, {
      code: "CALIBRATION_OPTION_INVALID",
      hint: "e.g. --lengths 10,30,90",
    });
  return n;
}

function positiveInt(v: string | undefined, flag: string, min: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min)
    throw new InputError(`${flag} ${v} is not a whole number ≥ ${min}`, {
      code: "CALIBRATION_OPTION_INVALID",
      hint: `e.g. ${flag} ${Math.max(min, 3)}`,
    });
  return n;
}

/** Register `calibrate`. */
export function registerCalibrateCommand(program: Command, ctx: CliContext): void {
  program
    .command("calibrate")
    .description("measure this host's noise (per-second series, A/A pairs on fresh server instances) for plan and run")
    .argument(
      "[scenario]",
      "scenario whose first server, config, storage and cells the A/A runs use",
      "scenarios/quick.yaml",
    )
    .option("--max-time <duration>", "time for the whole calibration", "10m")
    .option("--show", "print this host's stored calibration and exit")
    .option("--out <dir>", "folder under which calibrate-<id>/ keeps the runs' results", "results")
    .option("--set <path=value>", "override a scenario value (repeatable), VALUE parsed as YAML", collect, [])
    .option("--pairs <n>", "A/A pairs to aim for in all (default 30)")
    .option("--instances <n>", "fresh server instances, one A/A run each (default 3)")
    .option("--series <seconds>", "length of the one-server per-second series (default 90, at most 15% of --max-time)")
    .option(
      "--lengths <seconds,...>",
      "also measure pair sd against cell length: one A/A run per length (e.g. 10,30,90), stored as the calibration's curve",
    )
    .option("--json-events", "print the runs' events as NDJSON on stdout")
    .action(async (file: string, o: CalibrateCliOptions) => {
      ctx.exitCode = o.show ? await showCommand(ctx) : await calibrateCommand(ctx, file, o);
    });
}

async function showCommand(ctx: CliContext): Promise<0 | 1> {
  const { key, calibration } = await hostCalibration(ctx.engine());
  if (!calibration) {
    ctx.err(`no calibration for this host (${calibrationFile(key)}): run \`twinbench calibrate\``);
    return 1;
  }
  for (const l of calibrationLines(calibration, calibrationFile(key))) ctx.out(l);
  return 0;
}

/** Run calibrate from the CLI: plain progress lines (or NDJSON events), then the calibration. */
export async function calibrateCommand(ctx: CliContext, file: string, o: CalibrateCliOptions): Promise<0 | 1 | 130> {
  const maxSeconds = parseDuration(o.maxTime);
  if (maxSeconds === undefined || !(maxSeconds > 0))
    throw new InputError(`--max-time ${o.maxTime} is not a duration`, {
      code: "CALIBRATION_OPTION_INVALID",
      hint: "e.g. --max-time 10m or --max-time 300s",
    });
  const input = await resolveRunInput({ file, sets: o.set });
  for (const w of input.warnings) ctx.err(`warning: ${w}`);
  const lab = await prepareLab(input.scenario, { log: ctx.err, engine: ctx.engine() });
  for (const n of lab.notices) ctx.err(`notice: ${n}`);
  const trap = trapSignals();
  const onEvent = o.jsonEvents
    ? (e: RunEvent) => ctx.out(JSON.stringify(e))
    : (e: RunEvent) => {
        const l = plainLine(e);
        if (l !== undefined) ctx.out(l);
      };
  let r: CalibrateResult;
  try {
    r = await calibrate({
      deps: lab.deps,
      scenario: input.scenario,
      scenarioFile: file,
      neutralCnf: lab.neutralCnf,
      maxSeconds,
      outRoot: o.out,
      pairs: positiveInt(o.pairs, "--pairs", 4),
      instances: positiveInt(o.instances, "--instances", 1),
      seriesSeconds: positiveInt(o.series, "--series", 4),
      lengths: parseLengths(o.lengths),
      sessionId: randomBytes(6).toString("hex"),
      selfContainerId: await selfContainerId(lab.deps.engine),
      signal: trap.signal,
      onEvent,
      log: o.jsonEvents ? ctx.err : ctx.out,
    });
  } finally {
    trap.dispose();
  }
  if (trap.signal.aborted) return 130;
  const log = o.jsonEvents ? ctx.err : ctx.out;
  log("");
  for (const l of calibrationLines(r.calibration, r.file)) log(l);
  log(`runs: ${r.dir} (${r.runs.length} results folders)`);
  return 0;
}
