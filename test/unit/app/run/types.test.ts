import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { RunControl, TWINBENCH_VERSION, exitCodeOf, type RunStatus } from "../../../../src/app/run/types.ts";

describe("exitCodeOf", () => {
  it.each([
    ["ok", 0],
    ["partial", 1],
    ["failed", 1],
    ["cancelled", 130],
  ] as Array<[RunStatus, number]>)("%s exits %d", (status, code) => {
    expect(exitCodeOf(status)).toBe(code);
  });
});

describe("RunControl", () => {
  it("skipping aborts the current cell's signal only", () => {
    const c = new RunControl();
    const first = c.arm();
    const second = c.arm();
    c.skipCurrent();
    expect([first.aborted, second.aborted]).toEqual([false, true]);
  });

  it("skipping before any cell is armed does nothing", () => {
    const c = new RunControl();
    c.skipCurrent();
    expect(c.arm().aborted).toBe(false);
  });
});

describe("TWINBENCH_VERSION", () => {
  it("is the package's version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    expect(TWINBENCH_VERSION).toBe(pkg.version);
  });
});
