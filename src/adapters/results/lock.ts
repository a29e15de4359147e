/**
 * The lock of a results folder: `<dir>/.twinbench.lock`, created exclusively (O_EXCL) by the run that writes the
 * folder and held until it ends, resumes included. It names its owner (pid, hostname, pid namespace, boot id, start
 * time), so a second run or resume of the folder is refused with the owner named. A lock whose owner is provably
 * gone (same host, namespace and boot, and no such process: src/core/base/labels.ts ownerStatus) is taken over; any
 * other lock stays, and the refusal says how to remove it by hand.
 */
import { link, open, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { TwinbenchError } from "../../core/base/errors.ts";
import { describeOwner, ownerStatus, type Owner, type OwnerStatus, type ProcessProbe } from "../../core/base/labels.ts";
import { fsyncDir } from "../durable-file.ts";
import { probeProcess, selfOwner } from "../host/process-identity.ts";

export const LOCK_FILE = ".twinbench.lock";

/** What a lock file holds. */
export interface LockRecord extends Owner {
  version: 1;
  /** When the lock was taken (ISO time). */
  lockedAt: string;
  /** What holds it, e.g. "run" or "resume". */
  purpose: string;
}

export interface LockDeps {
  self?: Owner;
  probe?: (pid: number) => ProcessProbe;
  now?: () => Date;
}

/** A held lock; `release` removes it (only if it is still this holder's). */
export class FolderLock {
  private released = false;
  constructor(
    readonly file: string,
    readonly record: LockRecord,
    private readonly text: string,
  ) {}

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    let cur: string;
    try {
      cur = await readFile(this.file, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return; // removed by hand or with its folder: nothing to release
      throw e;
    }
    if (cur !== this.text) return; // not ours any more (taken over by hand): leave the new holder's lock alone
    await unlink(this.file);
    await fsyncDir(join(this.file, ".."));
  }
}

function parseLock(text: string): LockRecord | undefined {
  try {
    const r = JSON.parse(text) as Partial<LockRecord> | null;
    if (r && r.version === 1 && Number.isInteger(r.pid) && typeof r.hostname === "string") return r as LockRecord;
  } catch {
    return undefined; // not JSON: a lock torn by a crash between create and write; judged below as unknown
  }
  return undefined;
}

export function lockedError(
  dir: string,
  owner: LockRecord | undefined,
  status: OwnerStatus | "damaged",
): TwinbenchError {
  const file = join(dir, LOCK_FILE);
  const who = owner
    ? `twinbench ${describeOwner(owner)}, ${owner.purpose} since ${owner.lockedAt}`
    : "an unreadable lock";
  const hint =
    status === "alive"
      ? `wait for that run to end (or stop it), then try again; a second writer would mix its cells with the first's`
      : `twinbench cannot tell from here whether that process still runs (another host, container or boot); if it is gone, remove ${file} and try again`;
  return new TwinbenchError(`results folder ${dir} is in use by ${who}`, {
    code: "RESULTS_LOCKED",
    hint,
    details: owner ? [`lock file ${file}: ${JSON.stringify(owner)}`] : [`lock file ${file}`],
  });
}

/**
 * Take the lock of results folder `dir` (which exists). Refused with RESULTS_LOCKED naming the holder while the
 * holder runs or cannot be judged; a lock of a provably dead owner is taken over. Safe against another twinbench
 * taking it at the same moment: only one exclusive create wins, and a takeover checks that the lock it moved
 * aside is the stale one it judged (and puts back anything else).
 */
export async function lockResultsFolder(dir: string, purpose: string, deps: LockDeps = {}): Promise<FolderLock> {
  const self = deps.self ?? selfOwner();
  const probe = deps.probe ?? ((pid: number) => probeProcess(pid));
  const file = join(dir, LOCK_FILE);
  const record: LockRecord = {
    version: 1,
    ...self,
    lockedAt: (deps.now ?? (() => new Date()))().toISOString(),
    purpose,
  };
  const text = JSON.stringify(record) + "\n";
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const fh = await open(file, "wx", 0o644);
      try {
        await fh.writeFile(text);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await fsyncDir(dir);
      return new FolderLock(file, record, text);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    let held: string;
    try {
      held = await readFile(file, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") continue; // released meanwhile: try the create again
      throw e;
    }
    const owner = parseLock(held);
    if (!owner) throw lockedError(dir, undefined, "damaged");
    const status = ownerStatus(owner, self, probe);
    if (status !== "dead") throw lockedError(dir, owner, status);
    await takeOverStale(file, held);
  }
  throw new TwinbenchError(
    `results folder ${dir}: could not take its lock (other twinbench processes keep taking it)`,
    {
      code: "RESULTS_LOCKED",
      hint: `see who holds ${file}, and try again once it is gone`,
    },
  );
}

/**
 * The RESULTS_LOCKED error naming who holds `dir`'s lock while its owner runs or cannot be judged; undefined when
 * the folder has no lock or its owner is gone (then the folder is simply not empty).
 */
export async function heldLockError(dir: string, deps: LockDeps = {}): Promise<TwinbenchError | undefined> {
  let held: string;
  try {
    held = await readFile(join(dir, LOCK_FILE), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined; // no lock: nobody writes the folder
    throw e;
  }
  const owner = parseLock(held);
  if (!owner) return lockedError(dir, undefined, "damaged");
  const status = ownerStatus(owner, deps.self ?? selfOwner(), deps.probe ?? ((pid: number) => probeProcess(pid)));
  return status === "dead" ? undefined : lockedError(dir, owner, status);
}

/** Move a stale lock out of the way, unless what was moved is not the lock judged stale (then it goes back). */
async function takeOverStale(file: string, judged: string): Promise<void> {
  const aside = `${file}.stale.${process.pid}.${randomBytes(4).toString("hex")}`;
  try {
    await rename(file, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return; // another process took it over first: try again
    throw e;
  }
  const moved = await readFile(aside, "utf8");
  if (moved !== judged) {
    // Another process took the stale lock over between our read and our rename: put its lock back. link() never
    // replaces a file, so if a third process locked meanwhile, its lock stays and this one's holder is refused later.
    await link(aside, file).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== "EEXIST") throw e; // EEXIST: a newer lock is in place; the loop reads and judges it
    });
  }
  await unlink(aside);
}
