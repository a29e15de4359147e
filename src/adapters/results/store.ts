/**
 * The results folder: run.json (rewritten atomically), cells.jsonl (appended and fsynced per cell), raw/ logs.
 */
import { mkdir, open, readFile, readdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { TwinbenchError, InputError } from "../../core/errors.ts";
import type { CellRecord, RunManifest } from "../../core/results.ts";

export async function writeFileAtomic(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  try {
    const fh = await open(tmp, "w");
    try {
      await fh.writeFile(content, "utf8");
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

export class ResultsStore {
  private constructor(readonly dir: string) {}

  /** Create a new results folder. Refuses a non-empty existing folder. */
  static async create(dir: string): Promise<ResultsStore> {
    try {
      const entries = await readdir(dir);
      if (entries.length > 0)
        throw new InputError(`results folder ${dir} already exists and is not empty`, {
          code: "RESULTS_EXISTS",
          hint: "choose another --out, or continue that run with `twinbench run --resume " + dir + "`",
        });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    await mkdir(join(dir, "raw"), { recursive: true });
    return new ResultsStore(dir);
  }

  /** Open an existing results folder (for --resume and reports). */
  static async open(dir: string): Promise<ResultsStore> {
    try {
      await readFile(join(dir, "run.json"), "utf8");
    } catch {
      throw new InputError(`${dir} is not a twinbench results folder (no run.json)`, {
        code: "RESULTS_NOT_FOUND",
        hint: "pass the folder a run wrote, e.g. results/<run-id>",
      });
    }
    await mkdir(join(dir, "raw"), { recursive: true });
    return new ResultsStore(dir);
  }

  async writeManifest(m: RunManifest): Promise<void> {
    await writeFileAtomic(join(this.dir, "run.json"), JSON.stringify(m, null, 2) + "\n");
  }

  async readManifest(): Promise<RunManifest> {
    return JSON.parse(await readFile(join(this.dir, "run.json"), "utf8")) as RunManifest;
  }

  /** Append one cell line and fsync it: a crash loses at most the cell in flight. */
  async appendCell(rec: CellRecord): Promise<void> {
    const fh = await open(join(this.dir, "cells.jsonl"), "a");
    try {
      await fh.write(JSON.stringify(rec) + "\n");
      await fh.sync();
    } finally {
      await fh.close();
    }
  }

  async readCells(): Promise<CellRecord[]> {
    let text: string;
    try {
      text = await readFile(join(this.dir, "cells.jsonl"), "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw e;
    }
    const out: CellRecord[] = [];
    const lines = text.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i]!.trim();
      if (!l) continue;
      try {
        out.push(JSON.parse(l) as CellRecord);
      } catch {
        // A torn last line from a crash is expected; anything earlier is corruption.
        if (i < lines.length - 2)
          throw new TwinbenchError(`${join(this.dir, "cells.jsonl")}: line ${i + 1} is not valid JSON`, { code: "RESULTS_CORRUPT", hint: "restore the file or remove that line" });
      }
    }
    return out;
  }

  /** Write a raw log under raw/ atomically; returns its path relative to the results folder. */
  async writeRaw(name: string, text: string): Promise<string> {
    const rel = join("raw", name);
    await writeFileAtomic(join(this.dir, rel), text);
    return rel;
  }

  async writeFile(rel: string, text: string): Promise<void> {
    await writeFileAtomic(join(this.dir, rel), text);
  }
}
