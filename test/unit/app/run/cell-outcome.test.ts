/** How a finished sysbench container is read: ok, failed, skipped; whether its server was lost; its last FATAL lines. */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import {
  classifyCell,
  dataDirFull,
  dataDirFullText,
  isAbsence,
  lastFatal,
  serverLost,
} from "../../../../src/app/run/cell-outcome.ts";

const log = (name: string) =>
  readFileSync(new URL(`../../../fixtures/sysbench/1.0/${name}.log`, import.meta.url), "utf8");
const run = (output: string, over: { exitCode?: number; timedOut?: boolean; cancelled?: boolean } = {}) => ({
  exitCode: 0,
  output,
  timedOut: false,
  cancelled: false,
  ...over,
});
const opts = { userCancelled: false, timeoutMs: 60_000 };
const classify = (name: string) => classifyCell(run(log(name), { exitCode: 1 }), opts);

describe("classifyCell", () => {
  it("a clean log with exit code 0 is ok, with its figures", () => {
    const c = classifyCell(run(log("oltp_read_only-t1")), opts);
    expect(c.status).toBe("ok");
    expect(c.error).toBeUndefined();
    expect(c.metrics?.status).toBe("ok");
  });

  it("a clean log with a non-zero exit code fails, naming the code", () => {
    const c = classifyCell(run(log("oltp_read_only-t1"), { exitCode: 3 }), opts);
    expect(c).toMatchObject({ status: "failed", error: "sysbench exited with code 3" });
    expect(c.metrics).not.toBeNull();
  });

  it("a FATAL log fails with its FATAL lines as the error", () => {
    const c = classify("fail-bad-password");
    expect(c.status).toBe("failed");
    expect(c.error).toBe(c.metrics!.fatal.join(" | "));
    expect(c.error).toMatch(/Access denied/);
  });

  it("output that is not sysbench's fails as unparseable, with no figures", () => {
    const c = classifyCell(run("exec: sysbench: not found", { exitCode: 127 }), opts);
    expect(c.status).toBe("failed");
    expect(c.error).toMatch(/^unparseable sysbench output: /);
    expect(c.metrics).toBeNull();
  });

  it("a cancelled cell is skipped when the user skipped it, failed when the user cancelled the run", () => {
    const out = log("oltp_read_only-t1");
    expect(classifyCell(run(out, { cancelled: true }), opts)).toMatchObject({
      status: "skipped",
      error: "skipped by the user",
    });
    expect(classifyCell(run(out, { cancelled: true }), { ...opts, userCancelled: true })).toMatchObject({
      status: "failed",
      error: "cancelled by the user",
    });
  });

  it("a cell past its limit fails, naming the limit in seconds", () => {
    const c = classifyCell(run(log("oltp_read_only-t1"), { timedOut: true, exitCode: 137 }), {
      ...opts,
      timeoutMs: 90_400,
    });
    expect(c).toMatchObject({ status: "failed", error: "cell ran past its limit of 90 s and was stopped" });
  });
});

describe("serverLost", () => {
  it("is true for a lost connection (2013) and a refused one (2002)", () => {
    expect(serverLost(classify("fail-server-killed"))).toBe(true);
    expect(serverLost(classify("fail-connection-refused"))).toBe(true);
  });
  it("is true for the client's words without a code", () => {
    expect(serverLost({ status: "failed", error: "MySQL server has gone away", metrics: null })).toBe(true);
  });
  it("is false for failures of the workload or the login, and for cells that did not fail", () => {
    for (const f of ["fail-bad-password", "fail-missing-table", "fail-unknown-database", "fail-invalid-option"])
      expect(serverLost(classify(f)), f).toBe(false);
    expect(serverLost({ status: "skipped", error: "Lost connection to server", metrics: null })).toBe(false);
    expect(serverLost({ status: "ok", metrics: null })).toBe(false);
  });
});

describe("isAbsence", () => {
  it("only ENOENT and ENOTDIR mean absent; other errors and non-errors do not", () => {
    const err = (code: string) => Object.assign(new Error(code), { code });
    expect(isAbsence(err("ENOENT"))).toBe(true);
    expect(isAbsence(err("ENOTDIR"))).toBe(true);
    expect(isAbsence(err("EACCES"))).toBe(false);
    expect(isAbsence(new Error("x"))).toBe(false);
    expect(isAbsence(null)).toBe(false);
  });
});

describe("lastFatal", () => {
  it("keeps the last three FATAL lines", () => {
    const out = ["FATAL: one", "x", "FATAL: two", "FATAL: three", "FATAL: four", "y"].join("\n");
    expect(lastFatal(out)).toBe("FATAL: two | FATAL: three | FATAL: four");
  });
  it("without a FATAL line, the last three lines of the output", () => {
    expect(lastFatal("a\nb\nc\nd\n")).toBe("b | c | d");
  });
});

describe("dataDirFull", () => {
  const failed = (error: string) => ({ status: "failed" as const, error, metrics: null });
  it("is true for a full table (1114), a full disk (1021) and ENOSPC, in sysbench's words or the server's", () => {
    for (const e of [
      "mysql_drv_query() returned error 1114 (The table 'sbtest1' is full) for query 'INSERT INTO sbtest1 ...'",
      "mysql_drv_query() returned error 1021 (Disk full (./sbtest/sbtest1.ibd); waiting for someone to free some space...)",
      'mysql_drv_query() returned error 1030 (Got error 28 "No space left on device" from storage engine InnoDB)',
      "Error writing file './binlog.000002' (errno: 28 - No space left on device)",
    ])
      expect(dataDirFull(failed(e)), e).toBe(true);
    // sysbench's last FATAL lines, when the error names only the exit code
    expect(
      dataDirFull({
        ...failed("sysbench exited with code 1"),
        metrics: { fatal: ["FATAL: error 1114: The table 'sbtest1' is full"] } as never,
      }),
    ).toBe(true);
  });
  it("is false for an internal temporary table at its memory limit, other failures, and cells that did not fail", () => {
    expect(dataDirFull(failed("error 1114 (The table '/tmp/#sql1_2_3' is full)"))).toBe(false);
    expect(dataDirFull(failed("Lost connection to MySQL server during query"))).toBe(false);
    for (const f of ["fail-server-killed", "fail-bad-password", "fail-missing-table"])
      expect(dataDirFull(classify(f)), f).toBe(false);
    expect(dataDirFull({ status: "ok", error: "The table 'sbtest1' is full", metrics: null })).toBe(false);
  });
  it("names the server's data dir by its storage and says what gives it room", () => {
    expect(dataDirFullText("mariadb", { kind: "tmpfs", size: "1g" })).toEqual({
      where: "server mariadb's data dir (a tmpfs of 1g) is full",
      hint: "enlarge the tmpfs (storage.size, now 1g; it counts against the server's memory) or less data (workload.tables, workload.tableSize; a write test's duration)",
    });
    expect(dataDirFullText("b", { kind: "bind", path: "/srv/b" }).where).toBe(
      "server b's data dir (bind /srv/b) is full",
    );
    expect(dataDirFullText("b", { kind: "bind", path: "/srv/b" }).hint).toMatch(
      /^free space on the filesystem of \/srv\/b/,
    );
  });
});
