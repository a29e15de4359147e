import { describe, expect, it } from "vitest";
import {
  MIN_CONNECTIONS,
  derivedMaxConnections,
  flushMethodOf,
  formatSize,
  onOff,
  sizeOf,
  storageNote,
} from "../../../src/core/config/dialect-rules.ts";

describe("value helpers", () => {
  it.each([
    [null, "ON"],
    ["0", "OFF"],
    [" Off ", "OFF"],
    ["false", "OFF"],
    ["1", "ON"],
    ["TRUE", "ON"],
    ["on", "ON"],
    ["demand", "DEMAND"],
  ])("onOff(%j) = %s", (v, want) => {
    expect(onOff(v)).toBe(want);
  });

  it.each([
    [2 ** 30, "1G"],
    [3 * 2 ** 30, "3G"],
    [1536 * 2 ** 20, "1536M"],
    [64 * 1024, "64K"],
    [1000, "1000"],
    [0, "0"],
  ])("formatSize(%d) = %s", (bytes, want) => {
    expect(formatSize(bytes)).toBe(want);
  });

  it.each([
    ["1G", 2 ** 30],
    ["512m", 512 * 2 ** 20],
    ["4096", 4096],
  ])("sizeOf(x, %s) = %d", (v, want) => {
    expect(sizeOf("x", v)).toBe(want);
  });

  it.each([null, "big"])("sizeOf refuses %j, naming the option", (v) => {
    expect(() => sizeOf("innodb_log_buffer_size", v)).toThrow(
      `innodb_log_buffer_size: expected a size, got ${JSON.stringify(v)}`,
    );
  });

  it.each([
    ["0", "FSYNC"],
    ["4", "O_DIRECT"],
    ["5", "O_DIRECT_NO_FSYNC"],
    ["fdatasync", "FSYNC"],
    [" o_direct ", "O_DIRECT"],
    [null, ""],
  ])("flushMethodOf(%j) = %s", (v, want) => {
    expect(flushMethodOf(v)).toBe(want);
  });

  it.each([
    [1, MIN_CONNECTIONS],
    [141, 151],
    [142, 152],
    [500, 510],
  ])("derivedMaxConnections(%d) = %d", (threads, want) => {
    expect(derivedMaxConnections(threads)).toBe(want);
  });

  it.each([
    ["tmpfs", /^; on tmpfs O_DIRECT needs Linux ≥6\.6/],
    ["volume", /^$/],
  ] as const)("storageNote(%s)", (kind, want) => {
    expect(storageNote(kind as never)).toMatch(want);
  });
});
