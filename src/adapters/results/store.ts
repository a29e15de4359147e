/**
 * The results folder: run.json (rewritten atomically), cells.jsonl (appended and fsynced per cell), raw/ logs.
 * A full filesystem is a DISK_FULL error naming the folder; nothing already written is rewritten or truncated
 * (run.json is replaced by rename only, cells.jsonl is only appended to; the one exception is a torn last line,
 * which `--resume` copies to cells.jsonl.torn before cutting it off).
 */
import { mkdir, readFile, readdir, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { TwinbenchError, InputError } from "../../core/base/errors.ts";
import type { CellRecord, RunManifest } from "../../core/model/results.ts";
import { checkRunManifest } from "../../core/model/manifest.ts";
import {
  appendDurable,
  diskFullError,
  fsyncDir,
  mkdirDurable,
  setAsideTornTail,
  writeFileAtomic,
  type TornTail,
} from "../durable-file.ts";
import { FolderLock, heldLockError, LOCK_FILE, lockResultsFolder, type LockDeps } from "./lock.ts";

/** One implementation of the atomic write for the whole results folder (src/adapters/durable-file.ts). */
export { writeFileAtomic };

export const CELLS_FILE = "cells.jsonl";
export const TORN_FILE = "cells.jsonl.torn";

function existsError(dir: string): InputError {
  return new InputError(`results folder ${dir} already exists and is not empty`, {
    code: "RESULTS_EXISTS",
    hint: "choose another --out, or continue that run with `twinbench run --resume " + dir + "`",
  });
}

export class ResultsStore {
  private constructor(
    readonly dir: string,
    private readonly lock?: FolderLock,
  ) {}

  /**
   * Create a new results folder and take its lock (held until {@link release}). The folder itself is created
   * without `-p` (its parents are, durably): an existing non-empty folder is refused, and of two runs given the same
   * empty folder only one gets the lock (the other is refused with RESULTS_LOCKED naming the first).
   */
  static async create(dir: string, lockDeps?: LockDeps): Promise<ResultsStore> {
    await mkdirDurable(dirname(dir));
    let made = false;
    try {
      await mkdir(dir, { mode: 0o755 });
      made = true;
      await fsyncDir(dirname(dir));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e; // an existing folder is used if it is empty
      if ((await readdir(dir)).length > 0) throw (await heldLockError(dir, lockDeps)) ?? existsError(dir);
    }
    let lock: FolderLock;
    try {
      lock = await lockResultsFolder(dir, "run", lockDeps);
    } catch (e) {
      // Nothing half-created: the folder goes again if this call made it (and it holds nothing).
      if (made) await rmdir(dir).catch(() => undefined); // another run's lock is in it: the folder is that run's now
      throw e;
    }
    try {
      if ((await readdir(dir)).some((n) => n !== LOCK_FILE)) throw existsError(dir);
      await mkdir(join(dir, "raw"));
      await fsyncDir(dir);
    } catch (e) {
      await lock.release();
      throw e;
    }
    return new ResultsStore(dir, lock);
  }

  /**
   * Open an existing results folder. `lock` (for --resume): take its lock first (held until {@link release}), so a
   * second resume of the same folder, or a resume of a folder a run still writes, is refused naming the holder.
   */
  static async open(dir: string, o: { lock?: boolean; lockDeps?: LockDeps } = {}): Promise<ResultsStore> {
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
    const lock = o.lock ? await lockResultsFolder(dir, "resume", o.lockDeps) : undefined;
    try {
      await mkdirDurable(join(dir, "raw"));
    } catch (e) {
      await lock?.release();
      throw e;
    }
    return new ResultsStore(dir, lock);
  }

  /** Give the folder's lock back (the run is over); a store opened without the lock has nothing to release. */
  async release(): Promise<void> {
    await this.lock?.release();
  }

  async writeManifest(m: RunManifest): Promise<void> {
    await this.guard("run.json", () => writeFileAtomic(join(this.dir, "run.json"), JSON.stringify(m, null, 2) + "\n"));
  }

  /** run.json, checked against the schema it was written with (`resume`: its run id must be a generated one). */
  async readManifest(o: { resume?: boolean } = {}): Promise<RunManifest> {
    const file = join(this.dir, "run.json");
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(file, "utf8"));
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
      throw new InputError(`${file} is not valid JSON: ${e.message}`, {
        code: "RESULTS_INVALID",
        hint: "restore run.json from a copy; a run writes it atomically, so a damaged one was changed by hand",
      });
    }
    return checkRunManifest(raw, file, o);
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
