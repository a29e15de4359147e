import { describe, expect, it } from "vitest";
import {
  defaultTestName,
  luaPathFor,
  notImplemented,
  readScriptCheck,
  scriptHash,
  scriptPathProblem,
  sidecarScriptPath,
} from "../../../../src/core/model/scenario/custom.ts";
import { validateScenario } from "../../../../src/core/model/scenario/validate.ts";
import { resolveTest, testWrites } from "../../../../src/core/model/scenario/legacy.ts";
import { planRun } from "../../../../src/core/plan/plan.ts";
import { importCmd } from "../../../../src/core/model/scenario/import-cmd.ts";
import { sysbenchArgv } from "../../../../src/core/model/scenario/argv.ts";
import { scenario, scenarioDoc, TEST_CONTEXT } from "../../../support/scenario.ts";

const errorsOf = (doc: unknown) => {
  const r = validateScenario(doc, "s.yaml", TEST_CONTEXT);
  return "errors" in r ? r.errors : [];
};
const withTests = (...tests: unknown[]) =>
  scenarioDoc((d) => {
    d.workload.tests = tests;
  });

describe("custom test entries", () => {
  it("lifts { script, writes } into workload.scripts under the file's name, and keeps stock tests", () => {
    const s = scenario((d) => {
      d.workload.tests = [
        "oltp_read_only",
        { script: "My Join.lua", writes: true },
        { script: "mix/", writes: false, name: "mix", main: "run.lua" },
      ];
    });
    expect(s.workload.tests).toEqual(["oltp_read_only", "my_join", "mix"]);
    expect(s.workload.scripts).toEqual({
      my_join: { path: "My Join.lua", writes: true },
      mix: { path: "mix/", writes: false, main: "run.lua" },
    });
    // The resolved form validates again as it is (run.json holds it).
    const again = validateScenario(structuredClone(s), "run.json", TEST_CONTEXT);
    expect("scenario" in again && again.scenario.workload).toEqual(s.workload);
  });

  it("resolves a custom test to its main script in the sidecar, and knows whether it writes", () => {
    const s = scenario((d) => {
      d.workload.tests = [
        { script: "a/b.lua", writes: true },
        { script: "dir", writes: false },
      ];
    });
    expect(resolveTest("b", s.workload.scripts)?.script).toBe("/usr/share/sysbench/twinbench/b/b.lua");
    expect(resolveTest("dir", s.workload.scripts)?.script).toBe("/usr/share/sysbench/twinbench/dir/main.lua");
    expect(testWrites("b", s.workload.scripts)).toBe(true);
    expect(testWrites("dir", s.workload.scripts)).toBe(false);
    expect(testWrites("oltp_read_only", s.workload.scripts)).toBe(false);
    expect(luaPathFor("dir")).toBe(
      "/usr/share/sysbench/twinbench/dir/?.lua;/usr/share/sysbench/twinbench/dir/?/init.lua;;",
    );
    const plan = planRun(s);
    expect(plan.cells.map((c) => c.script)).toContain("/usr/share/sysbench/twinbench/b/b.lua");
  });

  it("a writing custom test gets a restore under fresh: per-test, a reading one none", () => {
    const s = scenario((d) => {
      d.workload.tests = [
        { script: "w.lua", writes: true },
        { script: "r.lua", writes: false },
      ];
      d.workload.fresh = "per-test";
    });
    expect(planRun(s).restores.map((r) => r.test)).toEqual(["w", "w"]);
  });

  it("names the field of each bad entry", () => {
    expect(errorsOf(withTests({ script: "x.lua" }))).toEqual([
      "s.yaml: workload.tests.0.writes: expected writes: true or false (does the script change the data?)",
    ]);
    expect(errorsOf(withTests({ script: "x.lua", writes: true, mode: 1 }))).toEqual([
      's.yaml: workload.tests.0: unknown key "mode": a custom test takes script, writes, name, main and checks',
    ]);
    expect(errorsOf(withTests("oltp_read_only", { script: "../up.lua", writes: true }))).toEqual([
      `s.yaml: workload.tests.1.script: "../up.lua" leaves the scenario's folder: the script must be in that folder or below it`,
    ]);
    expect(errorsOf(withTests({ script: "/etc/x.lua", writes: true }))[0]).toMatch(
      /workload\.tests\.0\.script: "\/etc\/x\.lua" is absolute/,
    );
    expect(errorsOf(withTests({ script: "x.lua", main: "y.lua", writes: true }))[0]).toMatch(
      /workload\.tests\.0\.main: main names the script of a folder, and "x\.lua" is a file/,
    );
    expect(errorsOf(withTests({ script: "a/x.lua", writes: true }, { script: "b/x.lua", writes: true }))).toEqual([
      `s.yaml: workload.tests.1.name: two custom tests are named "x": give one a name of its own`,
    ]);
    expect(errorsOf(withTests({ script: "x.lua", writes: true, name: "oltp_read_only" }))).toEqual([
      `s.yaml: workload.scripts.oltp_read_only: "oltp_read_only" is a stock test's name: give the custom test a name of its own`,
    ]);
  });

  it("mentions custom scripts in the unknown-test error", () => {
    expect(errorsOf(withTests("mine.lua"))[0]).toMatch(
      /or your own script as \{ script: FILE\.lua, writes: true\|false \}/,
    );
  });

  it("passes options it cannot check to the scenario's own scripts; refuses them without one", () => {
    const doc = scenarioDoc((d) => {
      d.workload.tests = [{ script: "x.lua", writes: false }];
      d.workload.sysbench = { customers: 50 };
    });
    const r = validateScenario(doc, "s.yaml", TEST_CONTEXT);
    expect("scenario" in r && r.scenario.workload.sysbench).toEqual({ customers: 50 });
    expect("warnings" in r && r.warnings).toEqual([]);
    expect(errorsOf(scenarioDoc((d) => (d.workload.sysbench = { customers: 50 })))[0]).toMatch(
      /unknown sysbench 1\.0\.20 option --customers/,
    );
  });
});

describe("script paths and hashes", () => {
  it("keeps a script inside the scenario's folder", () => {
    expect(scriptPathProblem("a/b.lua")).toBeUndefined();
    expect(scriptPathProblem("a/../b.lua")).toBeUndefined();
    expect(scriptPathProblem("a/../../b.lua")).toMatch(/leaves the scenario's folder/);
    expect(scriptPathProblem("..")).toMatch(/leaves/);
    expect(scriptPathProblem("/abs.lua")).toMatch(/is absolute/);
    expect(scriptPathProblem("a\\b.lua")).toMatch(/write the path with \//);
  });

  it("names a test after its file or folder", () => {
    expect(defaultTestName("dir/Join-Update.lua")).toBe("join-update");
    expect(defaultTestName("tpcc/")).toBe("tpcc");
    expect(defaultTestName("_.lua")).toBe("custom");
    expect(sidecarScriptPath("t", { path: "x/", main: "sub/../m.lua" })).toBe("/usr/share/sysbench/twinbench/t/m.lua");
  });

  it("hashes paths and contents, in path order", () => {
    const a = scriptHash([
      { rel: "main.lua", content: "x" },
      { rel: "h.lua", content: "y" },
    ]);
    expect(a).toBe(
      scriptHash([
        { rel: "h.lua", content: "y" },
        { rel: "main.lua", content: "x" },
      ]),
    );
    expect(a).not.toBe(
      scriptHash([
        { rel: "h.lua", content: "y" },
        { rel: "main.lua", content: "x " },
      ]),
    );
    expect(a).not.toBe(
      scriptHash([
        { rel: "g.lua", content: "y" },
        { rel: "main.lua", content: "x" },
      ]),
    );
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("sysbench's verdict on a script (sysbench SCRIPT help)", () => {
  const back = (p: string) => p.replace("/usr/share/sysbench/twinbench/t/", "my/");
  const banner = "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\n";

  it("a script that loads: with options, or without a help command", () => {
    expect(readScriptCheck(`${banner}t.lua options:\n  --foo=N a foo [1]\n`, 0, back)).toEqual({ ok: true });
    expect(readScriptCheck(`${banner}'main.lua' test does not implement the 'help' command.\n`, 1, back)).toEqual({
      ok: true,
    });
  });

  it("a syntax error: the scenario's file and the line", () => {
    const out = `${banner}FATAL: /usr/share/sysbench/twinbench/t/main.lua:2: unexpected symbol near '='\n`;
    expect(readScriptCheck(out, 1, back)).toEqual({
      ok: false,
      file: "my/main.lua",
      line: 2,
      message: "unexpected symbol near '='",
    });
  });

  it("an error in a helper raised while loading, and a missing module", () => {
    const helper = `${banner}FATAL: /usr/share/sysbench/twinbench/t/lib.lua:7: attempt to call global 'nope' (a nil value)\n`;
    expect(readScriptCheck(helper, 1, back)).toMatchObject({ file: "my/lib.lua", line: 7 });
    const missing = `${banner}FATAL: /usr/share/sysbench/twinbench/t/main.lua:1: module 'gone' not found:\n\tno field package.preload['gone']\n`;
    expect(readScriptCheck(missing, 1, back)).toEqual({
      ok: false,
      file: "my/main.lua",
      line: 1,
      message: "module 'gone' not found:",
    });
  });

  it("a failure with no Lua place says what sysbench said", () => {
    expect(
      readScriptCheck(
        `${banner}FATAL: Cannot find benchmark '/x.lua': no such built-in test, file or module\n`,
        1,
        back,
      ),
    ).toEqual({
      ok: false,
      file: null,
      line: null,
      message: "Cannot find benchmark '/x.lua': no such built-in test, file or module",
    });
    expect(readScriptCheck("", 137, back)).toMatchObject({ ok: false, message: "sysbench exited 137: no output" });
  });

  it("tells a missing command from a failed one", () => {
    expect(notImplemented("'m.lua' test does not implement the 'cleanup' command.\n", "cleanup")).toBe(true);
    expect(notImplemented("'m.lua' test does not implement the 'cleanup' command.\n", "prepare")).toBe(false);
    expect(notImplemented("FATAL: `prepare' function failed: /x.lua:3: boom\n", "prepare")).toBe(false);
  });
});

describe("a custom script's command line", () => {
  const connection = { socket: "/s.sock", user: "u", password: "p", db: "sbtest" };
  const workload = {
    engine: "innodb" as const,
    tables: 2,
    tableSize: 9,
    sysbench: { customers: 50, "point-selects": 3, "rand-type": "uniform" },
  };
  const argv = (script: string) =>
    sysbenchArgv({ script, command: "prepare", workload, threads: 2, connection, percentile: 95, histogram: false });

  it("gets sysbench's own options and its own, never the stock scripts' (a script with options refuses others)", () => {
    const a = argv("/usr/share/sysbench/twinbench/t/main.lua");
    expect(a).toContain("--customers=50");
    expect(a).toContain("--rand-type=uniform");
    expect(a.filter((x) => /^--(tables|table-size|mysql-storage-engine|point-selects)=/.test(x))).toEqual([]);
  });

  it("a stock script never gets a custom script's options", () => {
    const a = argv("oltp_read_only");
    expect(a).toEqual(
      expect.arrayContaining(["--tables=2", "--table-size=9", "--point-selects=3", "--rand-type=uniform"]),
    );
    expect(a).not.toContain("--customers=50");
  });
});

describe("import-cmd with a script of one's own", () => {
  it("keeps the script's path as a custom test entry, and its own options", () => {
    const r = importCmd("sysbench ./lua/join.lua --threads=4 --customers=10 --time=30 run", {});
    expect(r.yaml).toMatch(/tests:\n\s+- script: lua\/join\.lua\n\s+writes: true/);
    expect(r.yaml).toMatch(/customers: 10/);
    expect(r.warnings.join("\n")).toMatch(/cannot tell whether it writes/);
  });
});
