/**
 * The per-host run history: one JSON line per run, `/var/lib/twinbench/history/<hostKey>.jsonl`
 * (`TWINBENCH_HISTORY_DIR` overrides the folder), appended and fsynced. Every line is read back against the schema it
 * was written with; a damaged line is named (file and line number) and skipped, never read as the end of the file.
 */
import { mkdir, readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { parseHistoryLine, type HistoryEntry } from "../core/stats/history.ts";
import type { HistoryRead } from "../core/stats/history-view.ts";
import { InputError } from "../core/base/errors.ts";
import { appendDurable } from "./durable-file.ts";

/** A history file's largest size that is read (a run's entry is a few KB). */
export const MAX_HISTORY_BYTES = 64 * 1024 * 1024;

/** The folder of the history files. */
export function historyDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.TWINBENCH_HISTORY_DIR ?? "/var/lib/twinbench/history";
}

/** The history file of one host. */
export function historyFile(hostKey: string, dir = historyDir()): string {
  return join(dir, `${hostKey}.jsonl`);
}

/** Append one run's entry to its host's history (the folder is made when missing). Returns the file. */
export async function appendHistory(entry: HistoryEntry, dir = historyDir()): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = historyFile(entry.hostKey, dir);
  await appendDurable(file, JSON.stringify(entry) + "\n");
  return file;
}

/** Read one history file; a file that is not there is an empty history (ENOENT only). */
export async function readHistoryFile(file: string): Promise<HistoryRead> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { entries: [], skipped: [] };
    throw e;
  }
  if (text.length > MAX_HISTORY_BYTES)
    return { entries: [], skipped: [{ file, line: 0, problem: `larger than ${MAX_HISTORY_BYTES} bytes` }] };
  const out: HistoryRead = { entries: [], skipped: [] };
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const r = parseHistoryLine(line);
    if ("entry" in r) out.entries.push(r.entry);
    else out.skipped.push({ file, line: i + 1, problem: r.problem });
  });
  return out;
}

/**
 * Read every history file of a folder (each host's), or one file. A folder that is not there holds none, unless it
 * is `required` (a path the user named): then it is an error naming it.
 */
export async function readHistoryDir(dir: string, opts: { required?: boolean } = {}): Promise<HistoryRead> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && opts.required)
      throw new InputError(`history folder or file ${JSON.stringify(dir)} does not exist`, {
        code: "HISTORY_NOT_FOUND",
        hint: "name folders or .jsonl files written by twinbench; a scenario goes before --hosts (twinbench history quick --hosts DIR…)",
      });
    if (code === "ENOENT") return { entries: [], skipped: [] };
    if (code === "ENOTDIR") return readHistoryFile(dir);
    throw e;
  }
  const out: HistoryRead = { entries: [], skipped: [] };
  for (const n of names.filter((x) => x.endsWith(".jsonl")).sort()) {
    const r = await readHistoryFile(join(dir, n));
    out.entries.push(...r.entries);
    out.skipped.push(...r.skipped);
  }
  return out;
}

/** The host key a history file belongs to (its name). */
export const hostKeyOfFile = (file: string): string => basename(file, ".jsonl");
