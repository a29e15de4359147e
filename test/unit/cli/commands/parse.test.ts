/** `twinbench parse FILE... [--json]` through commander, with an injected readFile and out. */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { InputError, TwinbenchError } from "../../../../src/core/base/errors.ts";
import { registerParseCommand } from "../../../../src/cli/commands/parse.ts";

const root = join(import.meta.dirname, "../../../fixtures/sysbench");
const F = {
  rw: join(root, "1.0", "oltp_read_write-t4.log"),
  ro: join(root, "1.0", "default-no-interval.log"),
  fail: join(root, "1.0", "fail-bad-password.log"),
  seed: join(root, "legacy", "seed-002.txt"),
};
const expected = async (p: string): Promise<unknown> =>
  JSON.parse(await readFile(p.replace(/\.(log|txt)$/, ".expected.json"), "utf8"));

async function run(args: string[], files: Record<string, string> = {}): Promise<string> {
  const out: string[] = [];
  const program = new Command("twinbench").exitOverride();
  registerParseCommand(program, {
    out: (s) => out.push(s),
    readFile: async (p) => (p in files ? files[p] : readFile(p, "utf8")),
  });
  await program.parseAsync(["parse", ...args], { from: "user" });
  return out.join("\n");
}

describe("parse --json", () => {
  it("one file with one output → that object, exactly the expected JSON", async () => {
    expect(JSON.parse(await run([F.rw, "--json"]))).toEqual(await expected(F.rw));
  });

  it("several files → an array in file order", async () => {
    const v = JSON.parse(await run(["--json", F.ro, F.rw, F.fail]));
    expect(v).toEqual([await expected(F.ro), await expected(F.rw), await expected(F.fail)]);
  });

  it("one file with several outputs (seed 002) → an array of its results", async () => {
    const v = JSON.parse(await run([F.seed, "--json"]));
    expect(v).toEqual(await expected(F.seed));
    expect(v).toHaveLength(2);
    expect(v[0]).toMatchObject({
      tps: 108.84,
      reads: 1000000,
      totalTime: 183.7486,
      latencyMs: { percentile: 95, percentileValue: 13569.7 },
    });
  });

  it("a multi-output file among several → a nested array at its position", async () => {
    const v = JSON.parse(await run(["--json", F.rw, F.seed]));
    expect(v).toHaveLength(2);
    expect(Array.isArray(v[1])).toBe(true);
    expect(v[1]).toHaveLength(2);
  });
});

describe("parse (readable summary)", () => {
  it("prints the key figures", async () => {
    const s = await run([F.rw]);
    expect(s).toContain("sysbench 1.0.20, 4 threads, ok");
    expect(s).toMatch(/tps 793\.11\s+qps 15862\.19/);
    expect(s).toContain("p99 23.10");
    expect(s).toMatch(/intervals 3: tps CV [\d.]+%\s+stalls 0/);
  });

  it("shows a failure with its FATAL lines", async () => {
    const s = await run([F.fail]);
    expect(s).toContain("failed");
    expect(s).toContain("FATAL: error 1045: Access denied for user 'sbtest'@'127.0.0.1' (using password: YES)");
  });

  it("numbers the outputs of a multi-output file", async () => {
    const s = await run([F.seed]);
    expect(s).toContain(`${F.seed} #1: sysbench 0.4, ok`);
    expect(s).toContain(`${F.seed} #2: sysbench 0.4, ok`);
    expect(s).toContain("legacy: read/write requests 1000000 (5442.22/s)");
  });
});

describe("parse errors", () => {
  it("an unreadable file is an InputError (exit 2) naming it", async () => {
    const err = await run(["/nonexistent/x.log"]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err).toMatchObject({ code: "PARSE_FILE_UNREADABLE", exitCode: 2 });
    expect((err as Error).message).toContain("/nonexistent/x.log");
    expect((err as Error).message).toContain("ENOENT");
  });

  it("a malformed log is SYSBENCH_PARSE naming file and line", async () => {
    const err = await run(["bad.log"], {
      "bad.log": "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n[ 1s ] thds: 1 tps: 3\n",
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TwinbenchError);
    expect(err).toMatchObject({ code: "SYSBENCH_PARSE", exitCode: 1 });
    expect((err as Error).message).toMatch(/^bad\.log: line 2: unreadable interval line/);
  });

  it("a text that is not sysbench output", async () => {
    await expect(run(["notes.txt"], { "notes.txt": "just some notes\n" })).rejects.toThrow(
      /notes\.txt: no sysbench output found/,
    );
  });
});
