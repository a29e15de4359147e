import { describe, expect, it } from "vitest";
import {
  DEFAULT_MARGIN_PCT,
  StorageSchema,
  adaptiveRepeats,
  parseDuration,
  parsePercent,
  parseSize,
  plannedInstances,
  plannedRepeats,
  reportMarginPct,
  trimSeconds,
} from "../../../../src/core/model/scenario/schema.ts";

describe("value languages", () => {
  it.each([
    ["10s", 10],
    ["5m", 300],
    ["1h", 3600],
    ["300", 300],
    ["250ms", 0.25],
    [" 2 M ", 120],
    [12.5, 12.5],
    [-1, undefined],
    [Infinity, undefined],
    ["10d", undefined],
    ["", undefined],
  ])("parseDuration(%j) = %j", (v, want) => {
    expect(parseDuration(v)).toBe(want);
  });

  it.each([
    ["2g", 2 * 2 ** 30],
    ["512M", 512 * 2 ** 20],
    ["4GiB", 4 * 2 ** 30],
    ["1024", 1024],
    ["1.5k", 1536],
    ["1t", 2 ** 40],
    [4096, 4096],
    [1.5, undefined],
    [-1, undefined],
    ["2x", undefined],
  ])("parseSize(%j) = %j", (v, want) => {
    expect(parseSize(v)).toBe(want);
  });

  it.each([
    ["3%", 3],
    ["3", 3],
    [" -2.5 % ", -2.5],
    [3, 3],
    [NaN, undefined],
    ["3 percent", undefined],
  ])("parsePercent(%j) = %j", (v, want) => {
    expect(parsePercent(v)).toBe(want);
  });
});

describe("workload readings", () => {
  const adaptive = { min: 3, max: 9 } as never;
  it.each([
    ["a fixed count", { repeats: 5 }, undefined, 5, 1],
    ["a fixed count with instances", { repeats: 5, instances: 2 }, undefined, 5, 2],
    ["adaptive", { repeats: adaptive }, adaptive, 3, 3],
    ["adaptive with instances", { repeats: adaptive, instances: 1 }, adaptive, 3, 1],
  ])("%s", (_, w, adaptiveWant, repeats, instances) => {
    expect(adaptiveRepeats(w)).toBe(adaptiveWant);
    expect(plannedRepeats(w)).toBe(repeats);
    expect(plannedInstances(w)).toBe(instances);
  });

  it.each([
    [undefined, 0],
    ["2s", 2],
    [3, 3],
    ["1m", 60],
  ])("trim %j is %d s", (trim, want) => {
    expect(trimSeconds({ trim } as never)).toBe(want);
  });

  it.each([
    [{}, DEFAULT_MARGIN_PCT],
    [{ report: {} }, 5],
    [{ report: { margin: "3%" } }, 3],
    [{ report: { margin: 2.5 } }, 2.5],
    [{ report: { margin: 0 } }, 5],
    [{ report: { margin: "100" } }, 5],
    [{ report: { margin: "wide" } }, 5],
  ])("margin of %j is %d %", (s, want) => {
    expect(reportMarginPct(s)).toBe(want);
  });
});

describe("StorageSchema", () => {
  it.each([
    [{ kind: "tmpfs" }, { kind: "tmpfs", size: "2g" }],
    [{ kind: "volume" }, { kind: "volume", keep: false }],
    [
      { kind: "bind", path: "/data" },
      { kind: "bind", path: "/data" },
    ],
    [
      { kind: "raid0", loop: { members: 2, size: "1g" } },
      { kind: "raid0", loop: { members: 2, size: "1g" } },
    ],
  ])("%j gets its defaults", (input, want) => {
    expect(StorageSchema.parse(input)).toEqual(want);
  });

  it.each([
    [{ kind: "nfs" }],
    [{ kind: "tmpfs", size: "huge" }],
    [{ kind: "bind", path: "" }],
    [{ kind: "raid0", devices: ["/dev/sda"] }],
    [{ kind: "raid0", devices: ["sda", "sdb"] }],
    [{ kind: "raid0", loop: { members: 9, size: "1g" } }],
    [{ kind: "volume", extra: 1 }],
  ])("%j is refused", (input) => {
    expect(StorageSchema.safeParse(input).success).toBe(false);
  });
});
