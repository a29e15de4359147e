import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { importCmd } from "../../../../src/core/model/scenario/import-cmd.ts";
import { validateScenario } from "../../../../src/core/model/scenario/validate.ts";
import { InputError } from "../../../../src/core/base/errors.ts";

const ctx = { lockImages: ["mariadb-11.8", "mariadb-10.11", "mysql-9.7", "sysbench-1.0"], hostCpus: 2 };

/** Seed 002's command, as the seed prints it (wrapped over lines). */
const SEED_002 = `/usr/local/site/sysbench/bin/sysbench --max-requests=20000
--num-threads=300 --test=oltp --db-ps-mode=disable
--mysql-table-type=myisam --oltp-read-only=on --oltp-test-mode=complex
--oltp-simple-ranges=0 --oltp-sum-ranges=0 --oltp-order-ranges=0
--oltp-distinct-ranges=0 --oltp-point-selects=50 run`;

function seedCommand(): string {
  const text = readFileSync(new URL("../../../fixtures/sysbench/legacy/seed-002.txt", import.meta.url), "utf8").replace(
    /\r/g,
    "",
  );
  const start = text.indexOf("/usr/local/site/sysbench/bin/sysbench");
  const end = text.indexOf(" run", start) + 4;
  return text.slice(start, end);
}

describe("importCmd on a command line with shell operators", () => {
  const base = "sysbench oltp_read_only --threads=4 --time=10 run";
  const cases: Array<[string, string, RegExp]> = [
    [`${base} | tee log`, "|", /"\|" \(a pipe\).*"\| tee log"/],
    [`${base} |& tee log`, "|&", /"\|&" \(a pipe\)/],
    [`${base}; echo done`, ";", /";" \(a command separator\)/],
    [`${base} && echo ok`, "&&", /"&&" \(a conditional list\)/],
    [`${base} || true`, "||", /"\|\|" \(a conditional list\)/],
    [`${base} > out.txt`, ">", /">" \(a redirection\)/],
    [`${base} >> out.txt`, ">>", /">>" \(a redirection\)/],
    [`${base} 2>&1`, ">&", /">&" \(a redirection\)/],
    [`${base} < /dev/null`, "<", /"<" \(a redirection\)/],
    [`${base} &`, "&", /"&" \(a background job\)/],
    [`(${base})`, "(", /"\(" \(a subshell\) at character 1/],
    ["sysbench oltp_read_only run|tee log", "|", /at character 28/],
  ];
  it.each(cases)("%s names %s", (cmd, op, re) => {
    let caught: unknown;
    try {
      importCmd(cmd);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(InputError);
    expect((caught as InputError).code).toBe("IMPORT_CMD_SHELL_OPERATOR");
    expect((caught as InputError).message).toContain(JSON.stringify(op));
    expect((caught as InputError).message).toMatch(re);
    expect((caught as InputError).message).not.toMatch(/more than one test/);
  });
  it("the same command without the pipe imports", () =>
    expect(importCmd(base).doc.workload).toMatchObject({ tests: ["oltp_read_only"], threads: [4] }));
});

describe("importCmd", () => {
  it("seed 002's command line gives seed-kernel-ro300.yaml's workload", () => {
    const cmd = (() => {
      try {
        return seedCommand();
      } catch {
        return SEED_002;
      }
    })();
    const imported = importCmd(cmd);
    const fromImport = validateScenario(parse(imported.yaml), "imported.yaml", ctx);
    const shipped = validateScenario(parse(readFileSync("scenarios/seed-kernel-ro300.yaml", "utf8")), "s.yaml", ctx);
    if ("errors" in fromImport) throw new Error(fromImport.errors.join("\n"));
    if ("errors" in shipped) throw new Error(shipped.errors.join("\n"));
    expect(fromImport.scenario.workload).toEqual(shipped.scenario.workload);
    expect(imported.doc.workload).toEqual({
      engine: "myisam",
      tables: 1,
      tableSize: 10000,
      tests: ["oltp_read_only"],
      threads: [300],
      events: 20000,
      sysbench: {
        "db-ps-mode": "disable",
        "simple-ranges": 0,
        "sum-ranges": 0,
        "order-ranges": 0,
        "distinct-ranges": 0,
        "point-selects": 50,
      },
    });
    expect(imported.warnings.some((w) => w.includes("LOCK TABLES"))).toBe(true);
    expect(imported.yaml).toMatch(/^# Imported by `twinbench import-cmd` from:/);
  });

  it("seeds 000/001's fixed parameters with a concrete test (backslash continuations)", () => {
    const r = importCmd(
      "sysbench --oltp-table-size=2000000 \\\n--max-time=300 \\\n--max-requests=0 \\\n--mysql-table-engine=InnoDB \\\n--mysql-user=root \\\n--mysql-engine-trx=yes \\\n--num-threads=16 --test=/src/sysbench/tests/db/oltp_simple.lua run",
    );
    expect(r.doc.workload).toEqual({
      engine: "innodb",
      tables: 1,
      tableSize: 2000000,
      tests: ["oltp_simple"],
      threads: [16],
      duration: "300s",
    });
    expect(r.warnings).toEqual([
      expect.stringMatching(/^test oltp_simple runs as oltp_point_select: /),
      expect.stringMatching(/^--mysql-engine-trx=yes dropped: no 1.0.20 equivalent/),
    ]);
    expect(r.notes).toContain(
      "--mysql-user ignored: set by twinbench itself (it creates a benchmark user with a random password)",
    );
  });

  const modes: Array<[string, string, string]> = [
    ["complex", "--test=oltp --oltp-test-mode=complex", "oltp_read_write"],
    ["complex read-only", "--test=oltp --oltp-read-only=on", "oltp_read_only"],
    ["simple", "--test=oltp --oltp-test-mode=simple", "oltp_point_select"],
    ["nontrx update_key", "--test=oltp --oltp-test-mode=nontrx --oltp-nontrx-mode=update_key", "oltp_update_index"],
    ["1.0 positional script", "oltp_write_only", "oltp_write_only"],
    ["legacy lua name", "--test=tests/db/update_non_index.lua", "update_non_index"],
  ];
  it.each(modes)("test mode: %s", (_n, args, test) => {
    expect((importCmd(`sysbench ${args} --time=5 run`).doc.workload as { tests: string[] }).tests).toEqual([test]);
  });

  it("0.4 defaults: 10000 requests when neither limit is given", () => {
    const r = importCmd("sysbench --test=oltp --num-threads=2 run");
    expect((r.doc.workload as { events: number }).events).toBe(10000);
    expect(r.warnings[0]).toMatch(/defaulted to --max-requests=10000/);
  });

  const bad: Array<[string, string, RegExp]> = [
    ["shell variable test", "sysbench --test=${TEST_DIR}/${SYSBENCH_TEST} run", /is a shell variable/],
    [
      "shell variable threads",
      "sysbench --test=oltp --num-threads=$THREADS run",
      /--threads=\$THREADS is a shell variable/,
    ],
    ["no test", "sysbench --num-threads=2 run", /no test in the command line/],
    ["non-db test", "sysbench --test=cpu run", /not a database test/],
    ["unknown test", "sysbench nosuch run", /unknown test "nosuch"/],
    ["unknown engine", "sysbench --test=oltp --mysql-table-engine=heap run", /storage engine heap/],
  ];
  it.each(bad)("refuses: %s", (_n, cmd, re) => {
    expect(() => importCmd(cmd)).toThrow(InputError);
    expect(() => importCmd(cmd)).toThrow(re);
  });
});
