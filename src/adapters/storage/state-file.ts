/**
 * Storage state on disk: `<runDir>/storage-state.json` (every server of the run) and a per-server copy in the global
 * state dir (`/var/lib/twinbench/state/<run>-<server>.json`), both rewritten atomically (temp file + rename) each
 * time an entry is added.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
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

export const RUN_STATE_FILE = "storage-state.json";

/** Serialises read-modify-write of one file inside this process (several servers share a run's file). */
const locks = new Map<string, Promise<unknown>>();
function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const prev = locks.get(key) ?? Promise.resolve();
  const next = prev.then(fn, fn);
  const tail = next.catch(() => undefined);
  locks.set(key, tail);
  void tail.then(() => {
    if (locks.get(key) === tail) locks.delete(key);
  });
  return next;
}

export async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(tmp, text, { mode: 0o644 });
  await rename(tmp, path);
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as unknown;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    if (e instanceof SyntaxError) return undefined;
    throw e;
  }
}

export function globalStatePath(stateDir: string, runId: string, serverId: string): string {
  return join(stateDir, `${safeComponent(runId)}-${safeComponent(serverId)}.json`);
}

export async function readRunStateFile(runDir: string): Promise<RunStorageState | undefined> {
  return readRunState(await readJson(join(runDir, RUN_STATE_FILE)));
}

/** Every record in the global state dir, with the file it came from. */
export async function readGlobalRecords(stateDir: string): Promise<Array<{ file: string; rec: StorageStateRecord }>> {
  let names: string[];
  try {
    names = await readdir(stateDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
  const out: Array<{ file: string; rec: StorageStateRecord }> = [];
  for (const n of names.filter((x) => x.endsWith(".json")).sort()) {
    const rec = readRecord(await readJson(join(stateDir, n)));
    if (rec) out.push({ file: join(stateDir, n), rec });
  }
  return out;
}

/** Writes one server's record to both places. */
export class StateWriter {
  readonly globalFile: string;
  readonly runFile: string | undefined;

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
    await mkdir(this.stateDir, { recursive: true });
    await withLock(this.globalFile, () => writeAtomic(this.globalFile, text));
    if (this.runFile) {
      const f = this.runFile;
      await mkdir(this.runDir!, { recursive: true });
      await withLock(f, async () => {
        const cur = readRunState(await readJson(f));
        await writeAtomic(f, JSON.stringify(upsertRecord(cur, this.rec), null, 2) + "\n");
      });
    }
  }

  /** Everything undone: remove the record from both files (the run file goes when it holds no record). */
  async drop(): Promise<void> {
    await withLock(this.globalFile, () => rm(this.globalFile, { force: true }));
    if (this.runFile) {
      const f = this.runFile;
      await withLock(f, async () => {
        const cur = readRunState(await readJson(f));
        if (!cur) return;
        const next = removeRecord(cur, this.rec.runId, this.rec.serverId);
        if (next.records.length === 0) await rm(f, { force: true });
        else await writeAtomic(f, JSON.stringify(next, null, 2) + "\n");
      });
    }
  }
}
