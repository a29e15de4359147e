import { describe, expect, it } from "vitest";
import {
  LEGACY_OPTIONS,
  LEGACY_TESTS,
  resolveTest,
  scriptForOltpMode,
  testWrites,
} from "../../../../src/core/model/scenario/legacy.ts";
import { isKnownScript } from "../../../../src/core/model/sysbench/options.ts";

describe("resolveTest", () => {
  it.each([
    ["oltp_complex_ro", "oltp_read_only", true],
    ["oltp_simple", "oltp_point_select", false],
    ["update_non_index", "oltp_update_non_index", true],
    ["select", "select", false],
  ])("legacy %s runs %s (exact: %s)", (name, script, exact) => {
    const r = resolveTest(name);
    expect(r?.script).toBe(script);
    expect(r?.legacy?.exact).toBe(exact);
  });

  it.each(["oltp_read_write", "bulk_insert"])("script %s runs itself, no legacy note", (name) => {
    expect(resolveTest(name)).toEqual({ script: name });
  });

  it.each(["nope", "constructor", "toString", ""])("%j is neither", (name) => {
    expect(resolveTest(name)).toBeUndefined();
  });

  it("every legacy test runs a script twinbench knows", () => {
    for (const [name, t] of Object.entries(LEGACY_TESTS)) expect(isKnownScript(t.script), name).toBe(true);
  });
});

describe("scriptForOltpMode", () => {
  it.each([
    ["complex", true, "", "oltp_read_only", true],
    ["complex", false, "", "oltp_read_write", true],
    ["simple", false, "", "oltp_point_select", false],
    ["nontrx", false, "select", "oltp_point_select", false],
    ["nontrx", false, "update_key", "oltp_update_index", false],
    ["nontrx", false, "update_nokey", "oltp_update_non_index", false],
    ["nontrx", false, "insert", "oltp_insert", false],
    ["nontrx", false, "delete", "oltp_delete", false],
  ])("mode %s read-only %s nontrx %j → %s (exact %s)", (mode, ro, nontrx, script, exact) => {
    const r = scriptForOltpMode(mode, ro, nontrx);
    expect([r?.script, r?.exact]).toEqual([script, exact]);
    expect(r?.note).toContain(`--oltp-test-mode=${mode}`);
  });

  it.each([
    ["nontrx", "replace"],
    ["sp", ""],
  ])("mode %s / %j has no script", (mode, nontrx) => {
    expect(scriptForOltpMode(mode, false, nontrx)).toBeUndefined();
  });
});

describe("testWrites", () => {
  it.each([
    ["delete", true],
    ["insert", true],
    ["oltp_complex_rw", true],
    ["oltp_complex_ro", false],
    ["select", false],
    ["oltp_write_only", true],
    ["oltp_point_select", false],
    ["unknown_script", false],
  ])("%s → %s", (test, writes) => {
    expect(testWrites(test)).toBe(writes);
  });
});

describe("legacy options", () => {
  it("an option 1.0.20 lacks says so", () => {
    expect(LEGACY_OPTIONS["oltp-sp-name"]).toEqual({ kind: "none", note: "1.0.20 has no stored-procedure mode" });
  });
});
