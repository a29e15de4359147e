/** serverLost: which failed cells mean that sysbench lost its server (a retry then restarts it first). */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { classifyCell, serverLost } from "../../../../src/app/run/sidecar.ts";

const log = (name: string) =>
  readFileSync(new URL(`../../../fixtures/sysbench/1.0/${name}.log`, import.meta.url), "utf8");
const classify = (name: string) =>
  classifyCell(
    { exitCode: 1, output: log(name), timedOut: false, cancelled: false },
    { userCancelled: false, timeoutMs: 60_000 },
  );

describe("serverLost", () => {
  it("is true for a lost connection (2013) and a refused one (2002)", () => {
    expect(serverLost(classify("fail-server-killed"))).toBe(true);
    expect(serverLost(classify("fail-connection-refused"))).toBe(true);
  });
  it("is false for failures of the workload or the login, and for cells that did not fail", () => {
    for (const f of ["fail-bad-password", "fail-missing-table", "fail-unknown-database", "fail-invalid-option"])
      expect(serverLost(classify(f)), f).toBe(false);
    expect(serverLost({ status: "skipped", error: "Lost connection to server", metrics: null })).toBe(false);
    expect(serverLost({ status: "ok", metrics: null })).toBe(false);
  });
});
