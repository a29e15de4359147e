/**
 * `report` and `compare` read every folder twinbench writes (a single run, a sharded run, a host comparison) and
 * say what they read; `--summary` on each. The host comparison folder is assembled from the compare fixtures the
 * way app/hosts.ts writes it (hosts.json + hosts/<id>/, no run.json at the top).
 */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Command } from "commander";
import { registerReportCommands } from "../../../src/cli/commands/report.ts";
import { readAnyResultsFolder } from "../../../src/adapters/results-folders.ts";

const FIX = join(import.meta.dirname, "../../fixtures/results");
let tmp: string;
let hostsDir: string;

async function cli(args: string[]): Promise<{ out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const program = new Command("twinbench").exitOverride();
  registerReportCommands(program, { out: (s) => out.push(s), err: (s) => err.push(s) });
  await program.parseAsync(args, { from: "user" });
  return { out: out.join("\n"), err: err.join("\n") };
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "tb-folders-"));
  hostsDir = join(tmp, "hosts-run");
  await mkdir(join(hostsDir, "hosts"), { recursive: true });
  await cp(join(FIX, "compare-a"), join(hostsDir, "hosts", "a"), { recursive: true });
  await cp(join(FIX, "compare-b"), join(hostsDir, "hosts", "b"), { recursive: true });
  await writeFile(
    join(hostsDir, "hosts.json"),
    JSON.stringify({
      runId: "hosts-run",
      notes: ["a note"],
      hosts: [
        { id: "a", engine: "unix:///var/run/docker.sock", status: "ok", dir: "hosts/a" },
        { id: "b", engine: "tcp://127.0.0.2:2375", status: "ok", dir: "hosts/b" },
      ],
    }),
  );
});
afterAll(async () => rm(tmp, { recursive: true, force: true }));

describe("every results folder", () => {
  it("a single run says what it read", async () => {
    const { out } = await cli(["report", join(FIX, "compare-a"), "--no-write"]);
    expect(out.split("\n")[0]).toBe(
      `read: ${join(FIX, "compare-a")}: single run compare-a (run.json, 24 cell records)`,
    );
  });
  it("a host comparison folder: each host's table, the host comparison, the summary", async () => {
    const { out } = await cli(["report", hostsDir]);
    expect(out).toContain(
      "read: " +
        hostsDir +
        ": host comparison hosts-run (hosts.json; host a: hosts/a, 24 cell records; host b: hosts/b, 24 cell records)",
    );
    expect(out).toContain("Host a (hosts/a):");
    expect(out).toContain("Host b (hosts/b):");
    expect(out).toContain("Server mariadb: host a / host b");
    expect(out).toContain("Test execution summary, side by side: A = b, B = a, and B/A × 100.");
    expect(out).toMatch(/effective concurrency \(event execution time \/ total time\)\s+1\.0\s+1\.0/);
    expect(out).toContain("note: a note");
    expect(await readFile(join(hostsDir, "report-hosts.md"), "utf8")).toContain("# Test execution summary");
    const html = await readFile(join(hostsDir, "report-hosts.html"), "utf8");
    expect(html).toContain("<h2>Test execution summary</h2>");
    expect(html).toContain("effective concurrency (event execution time / total time)");
  });
  it("report --summary on a host comparison prints only the summaries", async () => {
    const { out } = await cli(["report", hostsDir, "--summary", "--no-write"]);
    expect(out).toContain("mariadb: oltp_read_only @ 1 threads");
    expect(out).not.toContain("Host facts");
  });
  it("a host whose folder is damaged stays, with a warning that names it", async () => {
    const d = join(tmp, "damaged");
    await cp(hostsDir, d, { recursive: true });
    await writeFile(join(d, "hosts", "b", "run.json"), "{torn");
    const f = await readAnyResultsFolder(d);
    expect(f.kind).toBe("hosts");
    expect(f.warnings.join("\n")).toMatch(/host b: .*run\.json is not valid JSON/);
    const { out, err } = await cli(["report", d, "--no-write"]);
    expect(err).toMatch(/warning: host b:/);
    expect(out).toContain("host b: no results (ok)");
  });
  it("a folder that is none of them names both files it looked for", async () => {
    await expect(cli(["report", tmp])).rejects.toThrow(/neither run\.json nor hosts\.json/);
  });
});

describe("compare", () => {
  it("--summary: A = BASE, B = NEW, per server, with the facts diff", async () => {
    const { out } = await cli(["compare", join(FIX, "compare-a"), join(FIX, "compare-b"), "--summary"]);
    expect(out).toContain("read BASE: ");
    expect(out).toContain("Test execution summary, side by side: A, B, and B/A × 100.");
    expect(out).toContain(`A = BASE ${join(FIX, "compare-a")} (run compare-a)`);
    expect(out).toMatch(/mariadb: oltp_read_only @ 4 threads/);
    expect(out).toMatch(/Host and server facts/);
  });
  it("two host comparisons: hosts paired by id", async () => {
    const { out } = await cli(["compare", hostsDir, hostsDir, "--summary"]);
    expect(out).toContain("Host a:");
    expect(out).toContain("Host b:");
    expect(out).toContain("A = BASE " + hostsDir + " host a (run compare-a)");
  });
  it("a host comparison against one run needs --host", async () => {
    await expect(cli(["compare", hostsDir, join(FIX, "compare-b")])).rejects.toThrow(/is a host comparison with a, b/);
    const { out } = await cli(["compare", hostsDir, join(FIX, "compare-b"), "--host", "a"]);
    expect(out).toContain("Run comparison: NEW compare-b / BASE compare-a");
  });
});

describe("the TUI's results list and report view", () => {
  it("lists a host comparison folder and shows its tables and the side-by-side summary", async () => {
    const { defaultSessionDeps } = await import("../../../src/tui/session-deps.ts");
    const deps = defaultSessionDeps({ results: tmp });
    const list = await deps.listResults();
    expect(list).toContainEqual({ dir: hostsDir, name: "hosts-run (hosts a, b)", status: "ok" });
    const text = await deps.reportText(hostsDir);
    expect(text).toContain("Server mariadb: host a / host b");
    expect(text).toMatch(/derived:\n\s+effective concurrency/);
  });
});
