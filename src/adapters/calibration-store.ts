/**
 * The per-host calibration store: one JSON file per host key, `/var/lib/twinbench/calibration/<hostKey>.json`
 * (`TWINBENCH_CALIBRATION_DIR` overrides the folder), written atomically and durably. A damaged file is a
 * CALIBRATION_FILE_CORRUPT error naming it: never read as missing (a run would then calibrate again and overwrite it).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { TwinbenchError } from "../core/base/errors.ts";
import { hostKey } from "../core/plan/calibration/host-key.ts";
import { isCellLengthCurve, isCellSpread, type Calibration } from "../core/plan/calibration/schema.ts";
import type { HostFacts } from "../core/model/results.ts";
import type { Engine } from "../core/model/engine/engine.ts";
import { writeFileAtomic } from "./durable-file.ts";

/** The CPU model of the machine twinbench runs on (/proc/cpuinfo's first "model name"), as the host probe reads it. */
export async function localCpuModel(): Promise<string | undefined> {
  const text = await readFile("/proc/cpuinfo", "utf8").catch(() => ""); // not Linux: the key says "cpu?"
  const m = /^model name\s*:\s*(.+)$/m.exec(text);
  return m ? m[1].trim().replace(/\s+/g, " ") : undefined;
}

/**
 * The facts a local engine's calibration is keyed by: the engine's info, and the CPU model read here (the engine
 * does not report it). calibrate, plan and the run stage all key by this, so they find the same file.
 */
export async function localHostFacts(engine: Engine): Promise<HostFacts> {
  return { ...(await engine.facts()), cpuModel: await localCpuModel() };
}

/** The local engine's host key and its latest calibration (null when it was never calibrated). */
export async function hostCalibration(
  engine: Engine,
  dir?: string,
): Promise<{ key: string; facts: HostFacts; calibration: Calibration | null }> {
  const facts = await localHostFacts(engine);
  const key = hostKey(facts);
  return { key, facts, calibration: await readCalibration(key, dir) };
}

/** The folder of the calibration files. */
export function calibrationDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.TWINBENCH_CALIBRATION_DIR ?? "/var/lib/twinbench/calibration";
}

/** The file of one host's calibration. */
export function calibrationFile(key: string, dir = calibrationDir()): string {
  return join(dir, `${key}.json`);
}

const NUMBERS = ["cellSeconds", "pairSdPct", "pairDf", "instanceDf", "updates"] as const;

/** What is wrong with a parsed calibration file, or null when it has the fields the planner and runs use. */
function problemOf(v: unknown, key: string): string | null {
  if (!v || typeof v !== "object" || Array.isArray(v)) return "not a JSON object";
  const c = v as Record<string, unknown>;
  if (c.version !== 1) return `version ${JSON.stringify(c.version)}, expected 1`;
  if (c.hostKey !== key) return `hostKey ${JSON.stringify(c.hostKey)} does not match the file name`;
  for (const f of NUMBERS) if (typeof c[f] !== "number" || !Number.isFinite(c[f])) return `${f} is not a number`;
  if (!((c.pairSdPct as number) > 0)) return "pairSdPct is not positive";
  if (c.instanceSdPct !== null && typeof c.instanceSdPct !== "number")
    return "instanceSdPct is neither a number nor null";
  if (c.secondsPerPair !== null && typeof c.secondsPerPair !== "number")
    return "secondsPerPair is neither a number nor null";
  // Optional: older files have no curve and still load.
  if (c.cellLengthCurve !== undefined && !isCellLengthCurve(c.cellLengthCurve))
    return "cellLengthCurve is not a list of { cellSeconds, pairSdPct, pairDf }";
  if (c.cellSpread !== undefined && !isCellSpread(c.cellSpread))
    return "cellSpread is not a list of { at, cells: [{ s2, df }] }";
  return null;
}

/** The host's calibration, or null when none was made. A damaged file is a loud error with its path. */
export async function readCalibration(key: string, dir = calibrationDir()): Promise<Calibration | null> {
  const file = calibrationFile(key, dir);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null; // this host was never calibrated
    throw e;
  }
  let v: unknown;
  let reason: string | null;
  try {
    v = JSON.parse(text);
    reason = problemOf(v, key);
  } catch (e) {
    reason = text.trim() === "" ? "empty" : `invalid JSON: ${(e as Error).message}`;
  }
  if (reason !== null)
    throw new TwinbenchError(`the calibration file ${file} is damaged (${reason})`, {
      code: "CALIBRATION_FILE_CORRUPT",
      hint: `delete ${file} and run \`twinbench calibrate\` again (it holds only this host's noise figures), or fix it by hand`,
    });
  return v as Calibration;
}

/** Write a host's calibration (atomically, durably). Returns the file. */
export async function writeCalibration(cal: Calibration, dir = calibrationDir()): Promise<string> {
  const file = calibrationFile(cal.hostKey, dir);
  await writeFileAtomic(file, JSON.stringify(cal, null, 2) + "\n");
  return file;
}

/** The host calibration a run reads before it starts and updates at its end (injected into RunDeps). */
export interface CalibrationStore {
  /** The host's key, facts and calibration (null when there is none). */
  read(): Promise<{ key: string; facts: HostFacts; calibration: Calibration | null }>;
  /** Write the host's calibration; returns the file. */
  write(cal: Calibration): Promise<string>;
}

/** The local engine's calibration store, in {@link calibrationDir} (or `dir`). */
export function localCalibrationStore(engine: Engine, dir?: string): CalibrationStore {
  return {
    read: () => hostCalibration(engine, dir),
    write: (cal) => writeCalibration(cal, dir),
  };
}
