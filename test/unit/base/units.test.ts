/** Byte counts and durations for people (src/core/base/units.ts), table-driven. */
import { describe, expect, it } from "vitest";
import { formatBytes, formatSeconds } from "../../../src/core/base/units.ts";

describe("formatBytes", () => {
  it.each([
    [undefined, "exact", "?"],
    [0, "exact", "0 B"],
    [1023, "exact", "1023 B"],
    [1024, "exact", "1 KiB"],
    [1572864, "exact", "1.5 MiB"],
    [2147483648, "exact", "2 GiB"],
    [5 * 1024 ** 4, "exact", "5 TiB"],
    [2048 * 1024 ** 4, "exact", "2048 TiB"], // TiB is the largest unit
    [2147483648, "coarse", "2.0 GiB"],
    [1024 ** 3, "coarse", "1.0 GiB"],
    [1024 ** 3 - 1, "coarse", "1024 MiB"],
    [512 * 1024 ** 2, "coarse", "512 MiB"],
  ] as const)("%s (%s) → %s", (n, style, want) => expect(formatBytes(n, style)).toBe(want));
});

describe("formatSeconds", () => {
  it.each([
    [0, "0s"],
    [0.4, "0s"],
    [59.6, "1m 00s"],
    [312, "5m 12s"],
    [3599, "59m 59s"],
    [3600, "1h 00m"],
    [3661, "1h 01m"],
    [90061, "25h 01m"],
  ])("%s s → %s", (s, want) => expect(formatSeconds(s)).toBe(want));
});
