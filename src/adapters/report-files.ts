/**
 * Reads a results folder (`run.json` + `cells.jsonl`) and writes its report files (`report.md`, `report.html`,
 * `comparison.csv`, `costs.csv`, `report.json`), each atomically (src/adapters/durable-file.ts).
 */
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { checkRunManifest } from "../core/model/manifest.ts";
import { InputError } from "../core/base/errors.ts";
import type { CellRecord, RunManifest } from "../core/model/results.ts";
import { buildRunReport, type ReportOptions } from "../core/report/model.ts";
import { renderMarkdown } from "../core/report/markdown.ts";
import { renderCostCsv, renderCsv } from "../core/report/csv.ts";
import { renderJson } from "../core/report/json.ts";
import { renderHtml } from "../core/report/html.ts";
import { buildHtmlData } from "../core/report/html-data.ts";

/** A results folder as read back: its manifest (run.json), its cell records (cells.jsonl) and any unreadable lines. */
export interface ResultsFolder {
  dir: string;
  manifest: RunManifest;
  cells: CellRecord[];
  /** Lines of cells.jsonl that could not be read (a torn last line of an interrupted run, say). */
  warnings: string[];
}

/** Parse cells.jsonl text. A bad line is skipped with a warning (the last one is often torn by a crash). */
export function parseCellsJsonl(text: string, file = "cells.jsonl"): { cells: CellRecord[]; warnings: string[] } {
  const cells: CellRecord[] = [];
  const warnings: string[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      const v = JSON.parse(line) as CellRecord;
      if (typeof v !== "object" || v === null || typeof v.server !== "string" || typeof v.test !== "string") {
        warnings.push(`${file}:${i + 1}: not a cell record, skipped`);
        return;
      }
      cells.push(v);
    } catch {
      // A torn or foreign line: skipped, and the warning names it.
      warnings.push(`${file}:${i + 1}: invalid JSON, skipped`);
    }
  });
  return { cells, warnings };
}

/** Read a results folder (`run.json` and `cells.jsonl`). Throws InputError RESULTS_NOT_FOUND or RESULTS_INVALID. */
export async function readResultsFolder(dir: string): Promise<ResultsFolder> {
  const runPath = join(dir, "run.json");
  let runText: string;
  try {
    runText = await readFile(runPath, "utf8");
  } catch (e) {
    throw new InputError(`no results folder at ${dir}: cannot read ${runPath}`, {
      code: "RESULTS_NOT_FOUND",
      hint: "pass a folder written by `twinbench run` (results/<run-id>/ with run.json and cells.jsonl)",
      cause: e,
    });
  }
  let manifest: RunManifest;
  try {
    manifest = JSON.parse(runText) as RunManifest;
  } catch (e) {
    throw new InputError(`${runPath} is not valid JSON`, {
      code: "RESULTS_INVALID",
      hint: "the file is damaged; re-run the scenario",
      cause: e,
    });
  }
  // The same schema the run's scenario was validated with, and the fields a report reads.
  checkRunManifest(manifest, runPath);
  manifest.servers ??= [];
  manifest.hosts ??= [];
  manifest.cells ??= [];
  let cellsText = "";
  try {
    cellsText = await readFile(join(dir, "cells.jsonl"), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  const { cells, warnings } = parseCellsJsonl(cellsText, join(dir, "cells.jsonl"));
  return { dir, manifest, cells, warnings };
}

/** One atomic, durable write for every file twinbench keeps (temp file, fsync, rename, fsync the folder). */
export { writeFileAtomic } from "./durable-file.ts";
import { diskFullError, writeFileAtomic } from "./durable-file.ts";

let chartJsCache: string | undefined;

/** The Chart.js UMD bundle from node_modules, to inline in report.html. */
export async function loadChartJsSource(): Promise<string> {
  if (chartJsCache !== undefined) return chartJsCache;
  const require = createRequire(import.meta.url);
  const main = require.resolve("chart.js"); // …/chart.js/dist/chart.cjs
  chartJsCache = await readFile(join(dirname(main), "chart.umd.js"), "utf8");
  return chartJsCache;
}

export const REPORT_FILES = ["report.md", "report.html", "comparison.csv", "costs.csv", "report.json"] as const;

/** (Re)write the five report files of a results folder. Returns their paths. */
export async function writeReports(dir: string, opts: ReportOptions = {}): Promise<string[]> {
  const folder = await readResultsFolder(dir);
  const report = buildRunReport(folder.manifest, folder.cells, opts);
  const chartJs = await loadChartJsSource();
  const outputs: Array<[string, string]> = [
    ["report.md", renderMarkdown(report)],
    ["report.html", renderHtml(buildHtmlData(folder.manifest, folder.cells, report), chartJs)],
    ["comparison.csv", renderCsv(report)],
    ["costs.csv", renderCostCsv(report.costs)],
    ["report.json", renderJson(report)],
  ];
  const paths: string[] = [];
  for (const [name, content] of outputs) {
    const p = join(dir, name);
    try {
      await writeFileAtomic(p, content);
    } catch (e) {
      throw diskFullError(
        e,
        `results folder ${dir}`,
        name,
        `free space on the filesystem holding ${dir}, then \`twinbench report ${dir}\` writes the reports again`,
      );
    }
    paths.push(p);
  }
  return paths;
}

export interface ResultsFolderEntry {
  dir: string;
  name: string;
  status: string;
  startedAt?: string;
}

/** The results folders directly under `dir` (those with a readable run.json), newest name first. */
export async function listResultsFolders(dir: string): Promise<ResultsFolderEntry[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return []; // no results yet
    throw e;
  });
  const out: ResultsFolderEntry[] = [];
  for (const n of entries
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .reverse()) {
    const folder = join(dir, n);
    try {
      const m = JSON.parse(await readFile(join(folder, "run.json"), "utf8")) as RunManifest;
      out.push({ dir: folder, name: m.scenario?.name ?? n, status: m.status, startedAt: m.startedAt });
    } catch {
      // No readable run.json: a host comparison folder (hosts.json) is listed; anything else is not a results folder.
      const h = await readFile(join(folder, "hosts.json"), "utf8").then(
        (t) => JSON.parse(t) as { hosts?: Array<{ id: string; status: string }> },
        () => undefined, // neither file: not listed
      );
      if (h?.hosts)
        out.push({
          dir: folder,
          name: `${n} (hosts ${h.hosts.map((x) => x.id).join(", ")})`,
          status: h.hosts.every((x) => x.status === "ok") ? "ok" : "partial",
        });
    }
  }
  return out;
}

/** The run.json of an earlier run, for `run --resume`. */
export async function readRunManifest(dir: string): Promise<RunManifest> {
  const file = join(dir, "run.json");
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, "utf8"));
  } catch (e) {
    throw new InputError(`cannot resume ${dir}: no readable run.json there`, {
      code: "RESULTS_NOT_FOUND",
      hint: "pass the results folder of an earlier run",
      cause: e,
    });
  }
  // Checked like any input: its scenario against the schema it was written with, its run id against the format.
  return checkRunManifest(raw, file, { resume: true });
}
