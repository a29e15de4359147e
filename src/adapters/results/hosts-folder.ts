/**
 * The folder of a run over several hosts: DIR/hosts/<folder>/ holds each host's (and each pass's) results folder;
 * DIR/report-hosts.md and DIR/hosts.json the host-vs-host comparison; a sharded run also gets the merged
 * DIR/run.json, cells.jsonl and raw/.
 */
import { cp, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { InputError, TwinbenchError } from "../../core/errors.ts";
import type { CellRecord, RunManifest } from "../../core/results.ts";
import { readResultsFolder, type ResultsFolder } from "../report-files.ts";
import { writeFileAtomic } from "./store.ts";

export class HostsFolder {
  private constructor(readonly dir: string) {}

  /** Create DIR/hosts/; DIR must not exist or be empty. */
  static async create(dir: string): Promise<HostsFolder> {
    const entries = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return [] as string[];
      throw e;
    });
    if (entries.length > 0) throw new InputError(`results folder ${dir} already exists and is not empty`, { code: "RESULTS_EXISTS", hint: "choose another --out" });
    await mkdir(join(dir, "hosts"), { recursive: true });
    return new HostsFolder(dir);
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
  async readCells(folders: readonly string[], onDamaged?: (folder: string, why: string) => void): Promise<CellRecord[]> {
    const out: CellRecord[] = [];
    for (const f of folders) out.push(...((await this.readPart(f, onDamaged && ((why) => onDamaged(f, why))))?.cells ?? []));
    return out;
  }

  writeFile(name: string, text: string): Promise<void> {
    return writeFileAtomic(join(this.dir, name), text);
  }

  /**
   * The merged results folder of a sharded run, in DIR itself. Returns the raw logs that could not be copied, with
   * the reason (a log that was never written is not one).
   */
  async writeMerged(merged: { manifest: RunManifest; cells: CellRecord[]; rawCopies: Array<{ from: string; to: string }> }): Promise<string[]> {
    await mkdir(join(this.dir, "raw"), { recursive: true });
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
  return e instanceof TwinbenchError && e.code === "RESULTS_NOT_FOUND" && (e.cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}
