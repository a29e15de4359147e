import { describe, expect, it } from "vitest";
import {
  MANAGED_OPTIONS,
  NOT_IN_1_0_20,
  SYSBENCH_OPTIONS,
  checkOptionValue,
  formatOptionValue,
  isKnownScript,
  isWriteTest,
  normalizeOptionName,
  own,
  scriptArg,
  type OptionKind,
} from "../../../../src/core/model/sysbench/options.ts";

describe("checkOptionValue", () => {
  const cases: Array<[OptionKind, string | number | boolean, string | undefined]> = [
    [{ type: "int", min: 1 }, 4, undefined],
    [{ type: "int", min: 1 }, " 4 ", undefined],
    [{ type: "int", min: 1 }, 0, "expected an integer ≥ 1"],
    [{ type: "int", min: 1 }, 1.5, "expected an integer ≥ 1"],
    [{ type: "int" }, 0, undefined],
    [{ type: "int" }, -1, "expected a non-negative integer"],
    [{ type: "int" }, "ten", "expected a non-negative integer"],
    [{ type: "int" }, true, "expected a non-negative integer"],
    [{ type: "number" }, "1.5", undefined],
    [{ type: "number" }, 2, undefined],
    [{ type: "number" }, " ", "expected a number"],
    [{ type: "number" }, "x", "expected a number"],
    [{ type: "bool" }, true, undefined],
    [{ type: "bool" }, "OFF", undefined],
    [{ type: "bool" }, "1", undefined],
    [{ type: "bool" }, "maybe", "expected on/off (or true/false)"],
    [{ type: "bool" }, 1, "expected on/off (or true/false)"],
    [{ type: "enum", values: ["a", "b"] }, "b", undefined],
    [{ type: "enum", values: ["a", "b"] }, "c", "expected one of a, b"],
    [{ type: "size" }, "64K", undefined],
    [{ type: "size" }, 1024, undefined],
    [{ type: "size" }, "64KB", 'expected a size like "64K"'],
    [{ type: "string" }, "x", undefined],
    [{ type: "string" }, false, "expected a string"],
    [{ type: "list" }, "a,b", undefined],
    [{ type: "list" }, true, "expected a string"],
  ];
  it.each(cases)("%j with %j → %j", (kind, value, want) => {
    expect(checkOptionValue(kind, value)).toBe(want);
  });
});

describe("names and values", () => {
  it.each([
    ["oltp_table_size", "oltp-table-size"],
    ["--Oltp-Table-Size", "oltp-table-size"],
    ["threads", "threads"],
  ])("normalizeOptionName(%s) = %s", (name, want) => {
    expect(normalizeOptionName(name)).toBe(want);
  });

  it.each([
    [true, "on"],
    [false, "off"],
    [64, "64"],
    ["disable", "disable"],
  ])("formatOptionValue(%j) = %s", (v, want) => {
    expect(formatOptionValue(v)).toBe(want);
  });

  it.each([
    ["threads", true],
    ["constructor", false],
    ["toString", false],
    ["no-such-option", false],
  ])("own(SYSBENCH_OPTIONS, %s) is found: %s", (key, found) => {
    expect(own(SYSBENCH_OPTIONS, key) !== undefined).toBe(found);
  });

  it("options twinbench sets itself and options of later versions are not plain 1.0.20 options", () => {
    expect(own(MANAGED_OPTIONS, "threads")).toBe("from workload.threads");
    expect(own(NOT_IN_1_0_20, "warmup-time")).toContain("workload.warmup");
    for (const k of Object.keys(NOT_IN_1_0_20)) expect(own(SYSBENCH_OPTIONS, k), k).toBeUndefined();
  });
});

describe("scripts", () => {
  it.each([
    ["oltp_read_write", true, "oltp_read_write", true],
    ["oltp_read_only", true, "oltp_read_only", false],
    ["bulk_insert", true, "bulk_insert", true],
    ["select", true, "/usr/share/sysbench/select.lua", false],
    ["oltp_common", false, "oltp_common", false],
    ["constructor", false, "constructor", false],
  ])("%s: known %s, argument %s, writes %s", (script, known, arg, writes) => {
    expect([isKnownScript(script), scriptArg(script), isWriteTest(script)]).toEqual([known, arg, writes]);
  });
});
