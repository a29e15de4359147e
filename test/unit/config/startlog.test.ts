import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { findRefusedOption, startFailureTail } from "../../../src/core/config/startlog.ts";

const log = (name: string) => readFileSync(`test/fixtures/variables/startfail-${name}.log`, "utf8");

describe("findRefusedOption on real start failures", () => {
  it.each([
    ["bad-m118", "innodb_frobnicate", "3"],
    ["bad-my97", "innodb_frobnicate", "3"],
    ["bad2-m118", "innodb_doublewrite", "maybe"],
    ["bad2-my97", "innodb_doublewrite", "maybe"],
  ])("%s names %s=%s", (name, option, value) => {
    expect(findRefusedOption(log(name))).toMatchObject({ option, value });
  });

  it.each([
    [
      "2026-12-01  8:00:00 0 [ERROR] mariadbd: ambiguous option '--thread_c' (thread_cache_size, thread_concurrency)",
      "thread_c",
    ],
    ["[ERROR] [MY-000068] [Server] unknown option '--thread-cache'.", "thread_cache"],
  ])("%s", (line, option) => {
    expect(findRefusedOption(`noise\n${line}\n`)?.option).toBe(option);
  });

  it("returns undefined when the log names no option", () => {
    expect(findRefusedOption("[ERROR] Aborting\n")).toBeUndefined();
  });
});

describe("startFailureTail", () => {
  it("keeps the last lines and marks the ones naming the option", () => {
    const { lines, refused } = startFailureTail(log("bad2-m118"), 30);
    expect(refused?.option).toBe("innodb_doublewrite");
    // the error is line 2 of 35 (install-db prints its usage after it): it is put first
    expect(lines).toHaveLength(32);
    expect(lines[1]).toBe("   …");
    expect(lines.filter((l) => l.startsWith(">> "))).toEqual([
      expect.stringContaining("Error while setting value 'maybe' to 'innodb-doublewrite'"),
    ]);
  });
});
