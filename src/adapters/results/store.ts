/**
 * The results folder: run.json (rewritten atomically), cells.jsonl (appended and fsynced per cell), raw/ logs.
 * A full filesystem is a DISK_FULL error naming the folder; nothing already written is rewritten or truncated
 * (run.json is replaced by rename only, cells.jsonl is only appended to; the one exception is a torn last line,
 * which `--resume` copies to cells.jsonl.torn before cutting it off).
 */
import { mkdir, readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { TwinbenchError, InputError } from "../../core/base/errors.ts";
import type { CellRecord, RunManifest } from "../../core/model/results.ts";
import { appendDurable, diskFullError, setAsideTornTail, writeFileAtomic, type TornTail } from "../durable-file.ts";

/** One implementation of the atomic write for the whole results folder (src/adapters/durable-file.ts). */
export { writeFileAtomic };

export const CELLS_FILE = "cells.jsonl";
export const TORN_FILE = "cells.jsonl.torn";

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
    const file = join(dir, "run.json");
    try {
      await readFile(file, "utf8");
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // Only a missing file (or folder) is "no run.json"; a run.json that is there but cannot be read is a failure.
      if (code === "ENOENT" || code === "ENOTDIR")
        throw new InputError(`${dir} is not a twinbench results folder (no run.json)`, {
          code: "RESULTS_NOT_FOUND",
          hint: "pass the folder a run wrote, e.g. results/<run-id>",
        });
      throw new InputError(`cannot read ${file}: ${(e as Error).message}`, {
        code: "RESULTS_UNREADABLE",
        hint:
          code === "EISDIR"
            ? `${file} is a directory, not a file: move it aside`
            : `check the permissions of ${file} (and its folder) for the user running twinbench`,
      });
    }
    await mkdir(join(dir, "raw"), { recursive: true });
    return new ResultsStore(dir);
  }

  async writeManifest(m: RunManifest): Promise<void> {
    await this.guard("run.json", () => writeFileAtomic(join(this.dir, "run.json"), JSON.stringify(m, null, 2) + "\n"));
  }

  async readManifest(): Promise<RunManifest> {
    return JSON.parse(await readFile(join(this.dir, "run.json"), "utf8")) as RunManifest;
  }

  /** Append one cell line and fsync it: a crash loses at most the cell in flight. */
  async appendCell(rec: CellRecord): Promise<void> {
    await this.guard(CELLS_FILE, () => appendDurable(join(this.dir, CELLS_FILE), JSON.stringify(rec) + "\n"));
  }

  /**
   * Before appending to an existing cells.jsonl (--resume): a torn last line (a crash mid-append) is moved to
   * cells.jsonl.torn, so the next record starts on a line of its own. Returns what was moved, if anything.
   */
  async setAsideTornLine(): Promise<TornTail | undefined> {
    return this.guard(TORN_FILE, () => setAsideTornTail(join(this.dir, CELLS_FILE), join(this.dir, TORN_FILE)));
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
          throw new TwinbenchError(`${join(this.dir, "cells.jsonl")}: line ${i + 1} is not valid JSON`, {
            code: "RESULTS_CORRUPT",
            hint: "restore the file or remove that line",
          });
      }
    }
    return out;
  }

  /** Write a raw log under raw/ atomically; returns its path relative to the results folder. */
  async writeRaw(name: string, text: string): Promise<string> {
    const rel = join("raw", name);
    await this.guard(rel, () => writeFileAtomic(join(this.dir, rel), text));
    return rel;
  }

  async writeFile(rel: string, text: string): Promise<void> {
    await this.guard(rel, () => writeFileAtomic(join(this.dir, rel), text));
  }

  /** A full filesystem becomes an error that names the results folder; what is recorded stays as it was. */
  private async guard<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw diskFullError(
        e,
        `results folder ${this.dir}`,
        what,
        `free space on the filesystem holding ${this.dir} (df ${this.dir}), then continue with \`twinbench run --resume ${this.dir}\`; the cells recorded so far are kept`,
      );
    }
  }
}
