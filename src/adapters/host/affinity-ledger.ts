/**
 * The affinity ledger on disk: one file per confining process, `<state dir>/affinity/<run>.<pid>.json`, written
 * (atomically and durably) before a process is moved and removed once everything is put back. What a killed run
 * leaves is put back by `clean` and by the next run's start-up sweep (src/app/clean.ts).
 */
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { TwinbenchError } from "../../core/base/errors.ts";
import { readAffinityRecord, type AffinityRecord } from "../../core/measure/levers.ts";
import { GLOBAL_STATE_DIR, safeComponent } from "../../core/storage/plan.ts";
import { fsyncDir, writeFileAtomic } from "../durable-file.ts";

export interface AffinityLedger {
  /** Every record, with its file; a damaged file is an error naming it (never read as "nothing confined"). */
  readAll(): Promise<Array<{ file: string; rec: AffinityRecord }>>;
  /** The file a record of this run and process goes to. */
  fileOf(rec: Pick<AffinityRecord, "runId" | "owner">): string;
  write(rec: AffinityRecord): Promise<void>;
  remove(file: string): Promise<void>;
}

export function affinityLedger(dir = join(GLOBAL_STATE_DIR, "affinity")): AffinityLedger {
  return {
    async readAll() {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return []; // no ledger yet: nothing was ever confined
        throw e;
      }
      const out: Array<{ file: string; rec: AffinityRecord }> = [];
      for (const n of names.filter((x) => x.endsWith(".json")).sort()) {
        const file = join(dir, n);
        let text: string;
        try {
          text = await readFile(file, "utf8");
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === "ENOENT") continue; // removed by its run meanwhile: nothing left
          throw e;
        }
        const rec = readAffinityRecord(parseJson(text));
        if (!rec)
          throw new TwinbenchError(
            `affinity record ${file} is damaged: twinbench cannot tell which CPU lists to put back`,
            {
              code: "STORAGE_STATE_CORRUPT",
              hint: `look at it, put dockerd and containerd back with \`taskset -a -c -p <cpus> <pid>\` if needed, and remove ${file}`,
            },
          );
        out.push({ file, rec });
      }
      return out;
    },
    fileOf(rec) {
      return join(dir, `${safeComponent(rec.runId)}.${rec.owner.pid}.json`);
    },
    async write(rec) {
      await writeFileAtomic(this.fileOf(rec), JSON.stringify(rec, null, 2) + "\n");
    },
    async remove(file) {
      await rm(file, { force: true });
      await fsyncDir(dir).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== "ENOENT") throw e; // the folder is gone too: nothing left to make durable
      });
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined; // not JSON: the caller reports the file as damaged
  }
}
