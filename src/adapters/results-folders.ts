/**
 * Every folder `twinbench run` writes, read by one function, so that `report` and `compare` accept them all:
 * - a single run: `run.json` + `cells.jsonl`;
 * - a sharded run: the merged `run.json` + `cells.jsonl` at the top, each host's part under `hosts/<id>[.passN]/`;
 * - a host comparison (`compare: hosts`): `hosts.json` + `report-hosts.md` at the top, no `run.json`, each host's
 *   run under `hosts/<id>/`.
 * `describeFolder` says in one line what was read.
 */
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { InputError } from "../core/base/errors.ts";
import type { HostRun } from "../core/report/hosts.ts";
import { readResultsFolder, type ResultsFolder } from "./report-files.ts";

export type AnyResultsFolder =
  | { kind: "run"; dir: string; folder: ResultsFolder; warnings: string[] }
  | { kind: "shard"; dir: string; folder: ResultsFolder; parts: string[]; warnings: string[] }
  | { kind: "hosts"; dir: string; runId: string; runs: HostRun[]; notes: string[]; warnings: string[] };

/** The top of hosts.json (written by app/hosts.ts). */
interface HostsJson {
  runId?: string;
  hosts?: Array<Omit<HostRun, "manifest" | "cells">>;
  notes?: string[];
}

async function exists(p: string): Promise<boolean> {
  return readFile(p).then(
    () => true,
    (e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT" || e.code === "ENOTDIR") return false;
      throw e;
    },
  );
}

export async function readAnyResultsFolder(dir: string): Promise<AnyResultsFolder> {
  if (await exists(join(dir, "run.json"))) {
    const folder = await readResultsFolder(dir);
    // A sharded run's merged folder keeps each host's part under hosts/.
    const parts = await readdir(join(dir, "hosts")).catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT" || e.code === "ENOTDIR") return [] as string[];
      throw e;
    });
    if (parts.length > 0 && folder.manifest.scenario.shard)
      return { kind: "shard", dir, folder, parts: parts.sort(), warnings: folder.warnings };
    return { kind: "run", dir, folder, warnings: folder.warnings };
  }
  const hostsPath = join(dir, "hosts.json");
  if (!(await exists(hostsPath))) {
    throw new InputError(`no results folder at ${dir}: it has neither run.json nor hosts.json`, {
      code: "RESULTS_NOT_FOUND",
      hint: "pass a folder written by `twinbench run` (results/<run-id>/): a single run, a sharded run or a host comparison",
    });
  }
  let top: HostsJson;
  try {
    top = JSON.parse(await readFile(hostsPath, "utf8")) as HostsJson;
  } catch (e) {
    throw new InputError(`${hostsPath} is not valid JSON`, {
      code: "RESULTS_INVALID",
      hint: "the file is damaged; re-run the scenario",
      cause: e,
    });
  }
  if (!Array.isArray(top.hosts))
    throw new InputError(`${hostsPath} lists no hosts`, {
      code: "RESULTS_INVALID",
      hint: "pass a folder written by `twinbench run --host …`",
    });
  const warnings: string[] = [];
  const runs: HostRun[] = [];
  for (const h of top.hosts) {
    const { facts: _facts, ...run } = h as typeof h & { facts?: unknown };
    if (!run.dir) {
      runs.push(run);
      continue;
    }
    try {
      const f = await readResultsFolder(join(dir, run.dir));
      warnings.push(...f.warnings);
      runs.push({ ...run, manifest: f.manifest, cells: f.cells });
    } catch (e) {
      // A host whose folder cannot be read stays in the report as such, with the reason.
      warnings.push(`host ${run.id}: ${(e as Error).message}`);
      runs.push({ ...run, error: run.error ?? (e as Error).message });
    }
  }
  return { kind: "hosts", dir, runId: top.runId ?? "?", runs, notes: top.notes ?? [], warnings };
}

/** One line: what kind of folder, which run, which parts. */
export function describeFolder(f: AnyResultsFolder): string {
  const cells = (n: number) => `${n} cell record${n === 1 ? "" : "s"}`;
  switch (f.kind) {
    case "run":
      return `read: ${f.dir}: single run ${f.folder.manifest.runId} (run.json, ${cells(f.folder.cells.length)})`;
    case "shard":
      return `read: ${f.dir}: sharded run ${f.folder.manifest.runId} (merged run.json, ${cells(f.folder.cells.length)}; parts hosts/${f.parts.join(", hosts/")})`;
    case "hosts":
      return `read: ${f.dir}: host comparison ${f.runId} (hosts.json; ${f.runs.map((r) => (r.manifest ? `host ${r.id}: ${r.dir}, ${cells(r.cells!.length)}` : `host ${r.id}: no results (${r.status})`)).join("; ")})`;
  }
}
