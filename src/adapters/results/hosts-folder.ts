/**
 * The folder of a run over several hosts: DIR/hosts/<folder>/ holds each host's (and each pass's) results folder;
 * DIR/report-hosts.md and DIR/hosts.json the host-vs-host comparison; a sharded run also gets the merged
 * DIR/run.json, cells.jsonl and raw/.
 */
import { cp, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { InputError } from "../../core/errors.ts";
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

  /** One part's results folder, or undefined when that run wrote none (it failed before opening it). */
  readPart(folder: string): Promise<ResultsFolder | undefined> {
    return readResultsFolder(this.partDir(folder)).catch(() => undefined); // no run.json: the part produced nothing
  }

  /** Every cell record of these parts. */
  async readCells(folders: readonly string[]): Promise<CellRecord[]> {
    const out: CellRecord[] = [];
    for (const f of folders) out.push(...((await this.readPart(f))?.cells ?? []));
    return out;
  }

  writeFile(name: string, text: string): Promise<void> {
    return writeFileAtomic(join(this.dir, name), text);
  }

  /** The merged results folder of a sharded run, in DIR itself. */
  async writeMerged(merged: { manifest: RunManifest; cells: CellRecord[]; rawCopies: Array<{ from: string; to: string }> }): Promise<void> {
    await mkdir(join(this.dir, "raw"), { recursive: true });
    await writeFileAtomic(join(this.dir, "run.json"), JSON.stringify(merged.manifest, null, 2) + "\n");
    await writeFileAtomic(join(this.dir, "cells.jsonl"), merged.cells.map((c) => JSON.stringify(c) + "\n").join(""));
    // A raw log that is missing (its host died before writing it) leaves the merged folder without it; cells.jsonl says so.
    for (const c of merged.rawCopies) await cp(join(this.dir, c.from), join(this.dir, c.to), { recursive: true }).catch(() => undefined);
  }
}
