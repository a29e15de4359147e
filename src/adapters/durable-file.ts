/**
 * Crash-safe files. Every state, manifest (run.json), known-hosts and report file is written through
 * `writeFileAtomic`: a temp file in the same folder, write, fsync the file, rename over the target, fsync the folder.
 * A reader (or a run after a crash or power loss) sees the old content or the new one, never a mix or an empty file.
 *
 * Append-only logs (cells.jsonl) use `appendDurable` (write, fsync, and fsync the folder when the file is new), and
 * `setAsideTornTail` moves a torn last line (a crash mid-append) out of the way before anything is appended again.
 *
 * Kept over write-file-atomic: it fsyncs the temp file but not the folder after the rename, so the
 * rename itself can be lost on power loss, and it writes with one fs.write (a short write goes unnoticed).
 */
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { TwinbenchError } from "../core/base/errors.ts";

/** fsync a folder, so that a rename or a new name in it survives a crash. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, "r");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * `mkdir -p` that survives a crash: each missing folder is created on its own and its parent fsynced, so that a
 * new folder's name is on disk before anything inside it is. Returns the first folder it created (undefined: none).
 */
export async function mkdirDurable(dir: string, mode = 0o755): Promise<string | undefined> {
  const missing: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    try {
      await stat(d);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      missing.unshift(d);
      if (dirname(d) === d) break;
    }
  }
  for (const d of missing) {
    try {
      await mkdir(d, { mode });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e; // made by another process meanwhile: it is there
    }
    await fsyncDir(dirname(d));
  }
  return missing[0];
}

/** Write a whole file atomically and durably (temp file beside it, fsync, rename, fsync the folder). */
export async function writeFileAtomic(
  path: string,
  content: string | Uint8Array,
  opts: { mode?: number } = {},
): Promise<void> {
  const dir = dirname(path);
  await mkdirDurable(dir);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    const fh = await open(tmp, "w", opts.mode ?? 0o644);
    try {
      await fh.writeFile(content);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  await fsyncDir(dir);
}

/** Append text and fsync it (and the folder, when this append created the file). */
export async function appendDurable(path: string, text: string): Promise<void> {
  const fh = await open(path, "a");
  let created: boolean;
  try {
    created = (await fh.stat()).size === 0;
    await fh.writeFile(text); // loops over short writes; a full disk throws instead of leaving a silent stub
    await fh.sync();
  } finally {
    await fh.close();
  }
  if (created) await fsyncDir(dirname(path));
}

export interface TornTail {
  /** The torn text, as it was in the file (without a newline of its own). */
  text: string;
  /** Where it went. */
  movedTo: string;
}

/**
 * A line-per-record file whose last line is torn (no trailing newline, or not valid JSON): move that line to
 * `aside` (appended, one line per tear) and cut the file back to the end of its last whole line. Both files are
 * fsynced before this returns, so the next append starts on a line of its own. Undefined when the tail is whole
 * (or the file does not exist).
 */
export async function setAsideTornTail(path: string, aside: string): Promise<TornTail | undefined> {
  let fh;
  try {
    fh = await open(path, "r+");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined; // nothing recorded yet: nothing torn
    throw e;
  }
  try {
    const buf = await fh.readFile();
    let end = buf.length;
    while (end > 0 && buf[end - 1] === 0x0a) end--; // trailing blank lines are harmless
    if (end === 0) return undefined;
    const start = buf.lastIndexOf(0x0a, end - 1) + 1;
    const last = buf.subarray(start, end).toString("utf8");
    const whole = end < buf.length && parsesAsJson(last);
    if (whole) return undefined;
    await appendDurable(aside, last + "\n");
    await fh.truncate(start);
    await fh.sync();
    return { text: last, movedTo: aside };
  } finally {
    await fh.close();
  }
}

function parsesAsJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false; // the question asked: not JSON
  }
}

/** ENOSPC (no space) and EDQUOT (quota): the filesystem refused to grow a file. */
export function isDiskFull(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOSPC" || code === "EDQUOT";
}

/** A disk-full error from writing inside `folder`, as a TwinbenchError that names the folder; others unchanged. */
export function diskFullError(e: unknown, folder: string, what: string, hint: string): unknown {
  if (!isDiskFull(e)) return e;
  const code = (e as NodeJS.ErrnoException).code;
  return new TwinbenchError(`${folder}: the filesystem is full (${code}) while writing ${what}`, {
    code: "DISK_FULL",
    hint,
    cause: e,
  });
}
