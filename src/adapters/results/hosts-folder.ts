/**
 * The folder of a run over several hosts: DIR/hosts-run.json says what was started (written first, so a killed run
 * can be resumed); DIR/hosts/<folder>/ holds each host's (and each pass's) results folder; DIR/report-hosts.md and
 * DIR/hosts.json the host-vs-host comparison; a sharded run also gets the merged DIR/run.json, cells.jsonl and raw/.
 */
import { cp, readFile, readdir } from "node:fs/promises";
import { mkdirDurable } from "../durable-file.ts";
import { join } from "node:path";
import { InputError, TwinbenchError } from "../../core/base/errors.ts";
import type { CellRecord, RunManifest } from "../../core/model/results.ts";
import type { Scenario } from "../../core/model/scenario/schema.ts";
import { checkHostsRunManifest, checkResumedRunId } from "../../core/model/manifest.ts";
import { readResultsFolder, type ResultsFolder } from "../report-files.ts";
import { writeFileAtomic } from "./store.ts";

/** DIR/hosts-run.json: what a multi-host run was started with, enough to resume it. */
export interface HostsRunManifest {
  runId: string;
  /** The scenario as run, its `hosts` the engines used. */
  scenario: Scenario;
  scenarioFile?: string;
  overrides: string[];
  imageTransfer?: "send" | "build";
  force?: boolean;
  startedAt?: string;
}

/** The file name of {@link HostsRunManifest} in DIR. */
export const HOSTS_MANIFEST = "hosts-run.json";

/** One part folder under DIR/hosts/: `<host>` (pass 1) or `<host>.pass<N>`. */
export interface PartFolder {
  host: string;
  pass: number;
  folder: string;
}

export class HostsFolder {
  private constructor(readonly dir: string) {}

  /** Create DIR/hosts/ and DIR/hosts-run.json; DIR must not exist or be empty. */
  static async create(dir: string, manifest: HostsRunManifest): Promise<HostsFolder> {
    const entries = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return [] as string[];
      throw e;
    });
    if (entries.length > 0)
      throw new InputError(`results folder ${dir} already exists and is not empty`, {
        code: "RESULTS_EXISTS",
        hint: "choose another --out",
      });
    await mkdirDurable(join(dir, "hosts"));
    await writeFileAtomic(join(dir, HOSTS_MANIFEST), JSON.stringify(manifest, null, 2) + "\n");
    return new HostsFolder(dir);
  }

  /** Reopen a multi-host folder to resume it (see {@link readHostsResume}). */
  static async open(dir: string): Promise<HostsFolder> {
    if (!(await isHostsFolder(dir)))
      throw new InputError(`cannot resume ${dir}: it is not the folder of a multi-host run (no hosts/ in it)`, {
        code: "RESULTS_NOT_FOUND",
        hint: "pass the folder `twinbench run --host …` wrote",
      });
    return new HostsFolder(dir);
  }

  /** The part folders already there, pass 1 first. */
  async parts(): Promise<PartFolder[]> {
    const names = await readdir(join(this.dir, "hosts"));
    return names
      .map((folder) => /^([a-z0-9][a-z0-9_-]*?)(?:\.pass(\d+))?$/.exec(folder))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ host: m[1]!, pass: m[2] ? Number(m[2]) : 1, folder: m[0] }))
      .sort((a, b) => a.pass - b.pass || a.host.localeCompare(b.host));
  }

  /** Whether a part folder has a run.json (a run that can be resumed rather than started). */
  async hasRun(folder: string): Promise<boolean> {
    return readFile(join(this.partDir(folder), "run.json")).then(
      () => true,
      (e: NodeJS.ErrnoException) => {
        if (e.code === "ENOENT") return false; // never opened: the part starts afresh
        throw e;
      },
    );
  }

  /** Where one host's run (one pass) writes its results folder. */
  partDir(folder: string): string {
    return join(this.dir, "hosts", folder);
  }

  /**
   * One part's results folder, or undefined when that run wrote none (no run.json: it failed before opening it).
   * A run.json that is there but cannot be read is damage: given `onDamaged`, it hears why and the part reads as
   * undefined; without it, the error is raised.
   */
  async readPart(folder: string, onDamaged?: (why: string) => void): Promise<ResultsFolder | undefined> {
    try {
      return await readResultsFolder(this.partDir(folder));
    } catch (e) {
      if (noRunJson(e)) return undefined; // the part produced nothing: its host's status says why
      if (!onDamaged) throw e;
      onDamaged((e as Error).message);
      return undefined;
    }
  }

  /** Every cell record of these parts (a damaged part, see {@link readPart}, adds none). */
  async readCells(
    folders: readonly string[],
    onDamaged?: (folder: string, why: string) => void,
  ): Promise<CellRecord[]> {
    const out: CellRecord[] = [];
    for (const f of folders)
      out.push(...((await this.readPart(f, onDamaged && ((why) => onDamaged(f, why))))?.cells ?? []));
    return out;
  }

  writeFile(name: string, text: string): Promise<void> {
    return writeFileAtomic(join(this.dir, name), text);
  }

  /**
   * The merged results folder of a sharded run, in DIR itself. Returns the raw logs that could not be copied, with
   * the reason (a log that was never written is not one).
   */
  async writeMerged(merged: {
    manifest: RunManifest;
    cells: CellRecord[];
    rawCopies: Array<{ from: string; to: string }>;
  }): Promise<string[]> {
    await mkdirDurable(join(this.dir, "raw"));
    await writeFileAtomic(join(this.dir, "run.json"), JSON.stringify(merged.manifest, null, 2) + "\n");
    await writeFileAtomic(join(this.dir, "cells.jsonl"), merged.cells.map((c) => JSON.stringify(c) + "\n").join(""));
    // A raw log that is missing (its host died before writing it) leaves the merged folder without it; cells.jsonl says so.
    const notCopied: string[] = [];
    for (const c of merged.rawCopies)
      await cp(join(this.dir, c.from), join(this.dir, c.to), { recursive: true }).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== "ENOENT") notCopied.push(`${c.from}: ${e.message}`);
      });
    return notCopied;
  }
}

/** readResultsFolder's "no run.json at all" (as opposed to one that is there but unreadable or damaged). */
function noRunJson(e: unknown): boolean {
  return (
    e instanceof TwinbenchError &&
    e.code === "RESULTS_NOT_FOUND" &&
    (e.cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT"
  );
}

/** Whether DIR is the folder of a multi-host run (compare hosts or shard): it has a hosts/ folder. */
export async function isHostsFolder(dir: string): Promise<boolean> {
  return readdir(join(dir, "hosts")).then(
    () => true,
    (e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT" || e.code === "ENOTDIR") return false; // a single run's folder (or nothing)
      throw e;
    },
  );
}

/**
 * What `run --resume DIR` needs of a multi-host folder: DIR/hosts-run.json, or (a folder written before that file
 * existed) the first readable part's run.json: its scenario lists the hosts, its run id is `<run>-<host>`.
 */
export async function readHostsResume(dir: string): Promise<HostsRunManifest> {
  const file = join(dir, HOSTS_MANIFEST);
  let text: string | undefined;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT")
      throw new InputError(`cannot resume ${dir}: ${HOSTS_MANIFEST} is unreadable (${(e as Error).message})`, {
        code: "RESULTS_INVALID",
        hint: "the file is damaged; start a new run",
        cause: e,
      });
  }
  if (text !== undefined) {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new InputError(`cannot resume ${dir}: ${HOSTS_MANIFEST} is not JSON (${(e as Error).message})`, {
        code: "RESULTS_INVALID",
        hint: "the file is damaged; start a new run",
        cause: e,
      });
    }
    // Checked like any input: its scenario against the schema, its run id against the generated format.
    return checkHostsRunManifest(raw, file) as HostsRunManifest;
  }
  const folder = await HostsFolder.open(dir);
  for (const p of await folder.parts()) {
    if (p.pass !== 1) continue;
    const part = await folder.readPart(p.folder, () => undefined).catch(() => undefined); // damaged: try the next host's
    if (!part?.manifest.scenario.hosts?.length || !part.manifest.runId.endsWith(`-${p.host}`)) continue;
    const m = part.manifest;
    return {
      runId: checkResumedRunId(m.runId.slice(0, -(p.host.length + 1)), join(folder.partDir(p.folder), "run.json")),
      scenario: m.scenario,
      scenarioFile: m.scenarioFile,
      overrides: m.overrides,
      startedAt: m.startedAt,
    };
  }
  throw new InputError(
    `cannot resume ${dir}: neither ${HOSTS_MANIFEST} nor any host's run.json says which hosts it used`,
    {
      code: "RESULTS_NOT_FOUND",
      hint: "the run stopped before any host started; start a new run",
    },
  );
}
