import { cp, mkdtemp, readdir, readFile, rm, writeFile, appendFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Command } from "commander";
import {
  parseCellsJsonl,
  readResultsFolder,
  writeFileAtomic,
  writeReports,
} from "../../../src/adapters/report-files.ts";
import { registerReportCommands } from "../../../src/cli/commands/report.ts";
import { InputError, TwinbenchError } from "../../../src/core/base/errors.ts";

const FIX = join(import.meta.dirname, "../../fixtures/results");
const temps: string[] = [];
async function copyFixture(name: string): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "tb-report-"));
  temps.push(d);
  await cp(join(FIX, name), d, { recursive: true });
  return d;
}
afterEach(async () => {
  for (const d of temps.splice(0)) await rm(d, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<{ out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const program = new Command("twinbench").exitOverride();
  registerReportCommands(program, { out: (s) => out.push(s), err: (s) => err.push(s) });
  await program.parseAsync(args, { from: "user" });
  return { out: out.join("\n"), err: err.join("\n") };
}

describe("results folder", () => {
  it("skips a torn last line with a warning", () => {
    const r = parseCellsJsonl('{"server":"a","test":"t","threads":1}\n{"server":"a","te');
    expect(r.cells).toHaveLength(1);
    expect(r.warnings).toEqual(["cells.jsonl:2: invalid JSON, skipped"]);
  });
  it("a missing folder is an InputError naming the path", async () => {
    await expect(readResultsFolder("/nonexistent/run-1")).rejects.toThrow(/no results folder at \/nonexistent\/run-1/);
    await expect(readResultsFolder("/nonexistent/run-1")).rejects.toBeInstanceOf(InputError);
  });
  it("reads a folder without cells.jsonl (a run that stopped before its first cell)", async () => {
    const d = await copyFixture("repeats");
    await rm(join(d, "cells.jsonl"));
    const f = await readResultsFolder(d);
    expect(f.cells).toEqual([]);
  });
});

describe("writeReports", () => {
  it("writes the five files atomically, leaving no temp files", async () => {
    const d = await copyFixture("repeats");
    await appendFile(join(d, "cells.jsonl"), '{"torn":'); // an interrupted run
    const paths = await writeReports(d);
    expect(paths.map((p) => p.slice(d.length + 1))).toEqual([
      "report.md",
      "report.html",
      "comparison.csv",
      "costs.csv",
      "report.json",
    ]);
    const files = await readdir(d);
    expect(files.filter((f) => f.endsWith(".tmp"))).toEqual([]);
    expect(await readFile(join(d, "costs.csv"), "utf8")).toMatch(/^test,threads,figure,/);
    const json = JSON.parse(await readFile(join(d, "report.json"), "utf8"));
    expect(json).toMatchObject({ metric: "qps", numerator: "mariadb", denominator: "mysql", threads: [1, 4, 8] });
    expect(json.run.partial).toBe(true);
    expect(await readFile(join(d, "report.md"), "utf8")).toContain(
      "| oltp_read_only | 1 | 109.7 | 87.5–137.6 | unclear |",
    );
    const html = await readFile(join(d, "report.html"), "utf8");
    expect(html).not.toMatch(/<script[^>]+src=|<link /);
    expect(html).toContain("Chart.js v");
  });
  it("writeFileAtomic replaces the content", async () => {
    const d = await mkdtemp(join(tmpdir(), "tb-atomic-"));
    temps.push(d);
    await writeFile(join(d, "x"), "old");
    await writeFileAtomic(join(d, "x"), "new");
    expect(await readFile(join(d, "x"), "utf8")).toBe("new");
    expect(await readdir(d)).toEqual(["x"]);
  });
});

describe("twinbench report / compare", () => {
  it("report --format json prints the fixed shape", async () => {
    const d = await copyFixture("repeats");
    const { out } = await cli(["report", d, "--format", "json", "--no-write"]);
    const j = JSON.parse(out);
    // scipy 1.17.1, the limma() snippet of test/unit/stats/estimate.test.ts on the fixture's 4 cells (see report.test.ts):
    // cell 2 is 102.00013203917679 [101.83277800825906, 102.16776110306733], here rounded to 4 decimals.
    expect(j.rows[0].cells[1]).toMatchObject({
      threads: 4,
      estimate: 102.0001,
      ratio: 102,
      low: 101.8328,
      high: 102.1678,
      verdict: "faster-within",
      direction: "faster",
      equivalence: "within",
      n: 3,
    });
    expect(await readdir(d)).not.toContain("report.json");
  });
  it("report writes the report files by default", async () => {
    const d = await copyFixture("repeats");
    const { out } = await cli(["report", d]);
    // A side's CV of 33% does not withhold a verdict: the interval does (too wide to tell).
    expect(out).toMatch(/oltp_read_only +8 +106\.3 +48\.1–234\.5 +unclear/);
    expect(await readdir(d)).toContain("report.html");
  });
  it("--margin sets the equivalence margin", async () => {
    const a = join(FIX, "compare-a");
    const b = join(FIX, "compare-b");
    expect((await cli(["compare", a, b])).out).toContain("100.0 [98.2–101.9] same");
    const narrow = (await cli(["compare", a, b, "--margin", "1%"])).out;
    expect(narrow).toContain("100.0 [98.2–101.9] unclear");
    expect(narrow).toContain("same within ±1%: the interval lies inside 99–101");
    expect(narrow).toContain(
      "oltp_read_only at 1 thread: 100.0 [98.2–101.9], 3 values: no clear difference (p 1.0, BH q 1.0); can't tell if within ±1%",
    );
  });
  it("report --summary", async () => {
    const { out } = await cli(["report", join(FIX, "repeats"), "--summary", "--no-write"]);
    expect(out).toContain("oltp_read_only @ 1 threads");
    expect(out).toMatch(/per sec\.\s+50\.00\s+55\.00\s+110\.0/);
    expect(out).toMatch(/effective concurrency \(event execution time \/ total time\)\s+1\.0\s+1\.0/);
  });
  it.each([
    [["report", "x", "--format", "pdf"], /unknown format "pdf"/],
    [["report", "x", "--metric", "iops"], /unknown metric "iops"/],
    [["report", "x", "--margin", "ten"], /--margin expects/],
    [["report", "x", "--margin", "0"], /--margin expects a percentage above 0/],
  ])("%j -> InputError", async (args, msg) => {
    await expect(cli(args)).rejects.toThrow(msg);
  });
  it("compare --fail-below: prints the table, then throws REGRESSION", async () => {
    const out: string[] = [];
    const program = new Command("twinbench").exitOverride();
    registerReportCommands(program, { out: (s) => out.push(s) });
    const p = program.parseAsync(["compare", join(FIX, "compare-a"), join(FIX, "compare-b"), "--fail-below", "95"], {
      from: "user",
    });
    await expect(p).rejects.toMatchObject({ code: "REGRESSION" });
    await expect(p).rejects.toBeInstanceOf(TwinbenchError);
    expect(out.join("\n")).toContain("Host and server facts that differ (BASE -> NEW):");
    await expect(
      cli(["compare", join(FIX, "compare-a"), join(FIX, "compare-b"), "--fail-below", "90"]),
    ).resolves.toBeDefined();
  });
  it("compare refuses runs of different scenarios", async () => {
    await expect(cli(["compare", join(FIX, "compare-a"), join(FIX, "repeats")])).rejects.toMatchObject({
      code: "COMPARE_MISMATCH",
    });
    const { out } = await cli([
      "compare",
      join(FIX, "compare-a"),
      join(FIX, "repeats"),
      "--force",
      "--server",
      "mariadb",
    ]);
    expect(out).toContain("FORCED");
    expect(out).toContain("scenario.workload.threads: [1,4] vs [1,4,8]");
  });
});
