/**
 * Storage state on disk: `<runDir>/storage-state.json` (every server of the run) and a per-server copy in the global
 * state dir (`/var/lib/twinbench/state/<run>-<server>.json`), both rewritten atomically and durably
 * (src/adapters/durable-file.ts) each time an entry is added.
 *
 * A state file that cannot be read (not JSON, or not a state record) is never taken for "no state": that would let
 * `clean` forget a mounted array or an attached loop device. It is a STORAGE_STATE_CORRUPT error naming the file;
 * `twinbench clean --force` moves it aside (`<file>.corrupt`) and removes what the mount and loop tables show.
 */
import { randomBytes } from "node:crypto";
import { access, link, readdir, readFile, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { TwinbenchError } from "../../core/base/errors.ts";
import { fsyncDir, mkdirDurable, writeFileAtomic } from "../durable-file.ts";
import {
  readRecord,
  readRunState,
  removeRecord,
  upsertRecord,
  type RunStorageState,
  type StateEntry,
  type StorageStateRecord,
} from "../../core/storage/state.ts";
import { safeComponent } from "../../core/storage/plan.ts";
import { describeOwner, runIdInRun, type Owner } from "../../core/base/labels.ts";

export const RUN_STATE_FILE = "storage-state.json";
/** A damaged state file is renamed to `<file>.corrupt` by `clean --force` (kept for a post-mortem). */
export const CORRUPT_SUFFIX = ".corrupt";

/** Serialises read-modify-write of one file inside this process (several servers share a run's file). */
const locks = new Map<string, Promise<unknown>>();
function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const prev = locks.get(key) ?? Promise.resolve();
  const next = prev.then(fn, fn);
  const tail = next.catch(() => undefined); // the caller gets the failure through `next`; the queue only waits its turn
  locks.set(key, tail);
  void tail.then(() => {
    if (locks.get(key) === tail) locks.delete(key);
  });
  return next;
}

export function corruptStateError(files: Array<{ file: string; reason: string }>, runId?: string): TwinbenchError {
  const first = files[0]!;
  const more = files.length > 1 ? ` (and ${files.length - 1} more)` : "";
  return new TwinbenchError(
    `storage state file ${first.file} is damaged (${first.reason})${more}: twinbench cannot tell what it mounted or attached there`,
    {
      code: "STORAGE_STATE_CORRUPT",
      hint: `\`twinbench clean --force${runId ? ` --run ${runId}` : ""}\` moves the damaged file aside (to <file>${CORRUPT_SUFFIX}) and removes twinbench's mounts and loop devices as the mount and loop tables show them`,
      details: files.map((f) => `${f.file}: ${f.reason}`),
    },
  );
}

/** The parsed JSON, undefined when the file does not exist, `{ damaged }` when it is not JSON. */
async function readJson(path: string): Promise<{ value: unknown } | { damaged: string } | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined; // no state: nothing recorded
    throw e;
  }
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    return { damaged: text.trim() === "" ? "empty" : `invalid JSON: ${(e as Error).message}` };
  }
}

/** A run's state file, or the reason it cannot be read. */
async function loadRunState(file: string): Promise<{ state?: RunStorageState; damaged?: string }> {
  const j = await readJson(file);
  if (!j) return {};
  if ("damaged" in j) return { damaged: j.damaged };
  const state = readRunState(j.value);
  const raw = (j.value as { records?: unknown[] } | null)?.records;
  if (!state || state.records.length !== raw?.length) return { damaged: "not a twinbench run storage state" };
  return { state };
}

async function loadRunStateOrThrow(file: string): Promise<RunStorageState | undefined> {
  const r = await loadRunState(file);
  if (r.damaged) throw corruptStateError([{ file, reason: r.damaged }]);
  return r.state;
}

async function loadRecord(file: string): Promise<{ rec?: StorageStateRecord; damaged?: string }> {
  const j = await readJson(file);
  if (!j) return {};
  if ("damaged" in j) return { damaged: j.damaged };
  const rec = readRecord(j.value);
  return rec ? { rec } : { damaged: "not a twinbench storage state record" };
}

export function globalStatePath(stateDir: string, runId: string, serverId: string): string {
  return join(stateDir, `${safeComponent(runId)}-${safeComponent(serverId)}.json`);
}

/** A run folder's storage-state.json; undefined when there is none; STORAGE_STATE_CORRUPT when it is damaged. */
export async function readRunStateFile(runDir: string): Promise<RunStorageState | undefined> {
  return loadRunStateOrThrow(join(runDir, RUN_STATE_FILE));
}

/** The state files of the global state dir (of one run, when given), sorted. */
async function globalFiles(stateDir: string, runId?: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(stateDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return []; // no state dir: nothing was ever recorded
    throw e;
  }
  const prefix = runId !== undefined ? `${safeComponent(runId)}-` : "";
  return names
    .filter((x) => x.endsWith(".json") && x.startsWith(prefix))
    .sort()
    .map((n) => join(stateDir, n));
}

/**
 * Every record in the global state dir (only `runId`'s, when given), with the file it came from. Any damaged file
 * is a STORAGE_STATE_CORRUPT error naming each one.
 */
export async function readGlobalRecords(
  stateDir: string,
  runId?: string,
): Promise<Array<{ file: string; rec: StorageStateRecord }>> {
  const out: Array<{ file: string; rec: StorageStateRecord }> = [];
  const damaged: Array<{ file: string; reason: string }> = [];
  for (const file of await globalFiles(stateDir, runId)) {
    const r = await loadRecord(file);
    if (r.damaged) damaged.push({ file, reason: r.damaged });
    else if (r.rec && (runId === undefined || runIdInRun(r.rec.runId, runId))) out.push({ file, rec: r.rec }); // a multi-host run's id takes its hosts' runs too
  }
  if (damaged.length > 0) throw corruptStateError(damaged, runId);
  return out;
}

/**
 * `clean --force`: rename every damaged state file (global ones, only `runId`'s when given, and the run folder's) to
 * `<file>.corrupt`, keeping it. Returns one line per file moved, naming where it went.
 */
export async function setAsideDamagedStateFiles(
  stateDir: string,
  opts: { runId?: string; runDir?: string } = {},
): Promise<string[]> {
  const lines: string[] = [];
  const moveAside = async (file: string, reason: string) => {
    let to = `${file}${CORRUPT_SUFFIX}`;
    for (
      let i = 1;
      // a free name: access fails when nothing is there
      await access(to).then(
        () => true,
        () => false,
      );
      i++
    )
      to = `${file}${CORRUPT_SUFFIX}.${i}`; // keep earlier ones
    await rename(file, to);
    await fsyncDir(join(file, ".."));
    lines.push(`moved the damaged state file ${file} (${reason}) aside to ${to}`);
  };
  for (const file of await globalFiles(stateDir, opts.runId)) {
    const r = await loadRecord(file);
    if (r.damaged) await moveAside(file, r.damaged);
  }
  if (opts.runDir) {
    const file = join(opts.runDir, RUN_STATE_FILE);
    const r = await loadRunState(file);
    if (r.damaged) await moveAside(file, r.damaged);
  }
  return lines;
}

/** Writes one server's record to both places. */
export class StateWriter {
  readonly globalFile: string;
  readonly runFile: string | undefined;
  /** Whether the global file is known to be this writer's (created or checked by it). */
  private claimed = false;

  constructor(
    readonly rec: StorageStateRecord,
    readonly runDir: string | undefined,
    readonly stateDir: string,
  ) {
    this.globalFile = globalStatePath(stateDir, rec.runId, rec.serverId);
    this.runFile = runDir ? join(runDir, RUN_STATE_FILE) : undefined;
  }

  async add(entry: StateEntry): Promise<void> {
    this.rec.entries.push(entry);
    await this.flush();
  }

  async setEntries(entries: StateEntry[]): Promise<void> {
    this.rec.entries = entries;
    if (entries.length === 0) await this.drop();
    else await this.flush();
  }

  async flush(): Promise<void> {
    const text = JSON.stringify(this.rec, null, 2) + "\n";
    await mkdirDurable(this.stateDir);
    await withLock(this.globalFile, async () => {
      await this.assertOwn();
      if (this.claimed) await writeFileAtomic(this.globalFile, text);
      else await createExclusive(this.globalFile, text, () => this.assertOwn());
      this.claimed = true;
    });
    if (this.runFile) {
      const f = this.runFile;
      await mkdirDurable(this.runDir!);
      await withLock(f, async () => {
        const cur = await loadRunStateOrThrow(f);
        await writeFileAtomic(f, JSON.stringify(upsertRecord(cur, this.rec), null, 2) + "\n");
      });
    }
  }

  /**
   * The global file is this record's, or absent: a record of the same run and server written by another process
   * (a second twinbench given the same run id) is never overwritten or removed; STORAGE_STATE_OWNED names it.
   */
  private async assertOwn(): Promise<void> {
    const cur = await loadRecord(this.globalFile);
    if (cur.damaged) throw corruptStateError([{ file: this.globalFile, reason: cur.damaged }], this.rec.runId);
    if (cur.rec && !sameOwner(cur.rec.owner, this.rec.owner))
      throw new TwinbenchError(
        `storage of run ${this.rec.runId}, server ${this.rec.serverId} is already recorded by twinbench ${describeOwner(cur.rec.owner)}`,
        {
          code: "STORAGE_STATE_OWNED",
          hint: `another twinbench uses run id ${this.rec.runId}, or one that was killed left its storage: \`twinbench clean --run ${this.rec.runId}\` undoes it once that process is gone`,
          details: [`state file ${this.globalFile}`],
        },
      );
  }

  /** Everything undone: remove the record from both files (the run file goes when it holds no record). */
  async drop(): Promise<void> {
    await withLock(this.globalFile, async () => {
      const cur = await loadRecord(this.globalFile);
      // Another process's record (or a damaged file) is not this writer's to remove.
      if (cur.rec && sameOwner(cur.rec.owner, this.rec.owner)) await removeDurably(this.globalFile);
    });
    if (this.runFile) {
      const f = this.runFile;
      await withLock(f, async () => {
        const cur = await loadRunStateOrThrow(f);
        if (!cur) return;
        const next = removeRecord(cur, this.rec.runId, this.rec.serverId);
        if (next.records.length === 0) await removeDurably(f);
        else await writeFileAtomic(f, JSON.stringify(next, null, 2) + "\n");
      });
    }
  }
}

function sameOwner(a: Owner, b: Owner): boolean {
  return (
    a.pid === b.pid &&
    a.hostname === b.hostname &&
    a.pidNs === b.pidNs &&
    a.bootId === b.bootId &&
    a.startTime === b.startTime
  );
}

/**
 * Create `file` with `text` only if no file has that name: written to a temp file, then hard-linked into place
 * (link never replaces a file), so of two processes only one creates it. On EEXIST, `recheck` judges the file found.
 */
async function createExclusive(file: string, text: string, recheck: () => Promise<void>): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.new`;
  await writeFileAtomic(tmp, text);
  try {
    await link(tmp, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    await recheck(); // throws when another process's record is there; our own (a retry) is rewritten below
    await writeFileAtomic(file, text);
  } finally {
    await rm(tmp, { force: true });
  }
  await fsyncDir(dirname(file));
}

async function removeDurably(file: string): Promise<void> {
  await rm(file, { force: true });
  await fsyncDir(join(file, "..")).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== "ENOENT") throw e; // the folder went too: nothing left to make durable
  });
}
