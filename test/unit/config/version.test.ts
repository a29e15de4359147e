/** Server versions as the dialect table compares them (src/core/config/version.ts), table-driven. */
import { describe, expect, it } from "vitest";
import { compareVersions, formatVersion, inRange, parseVersion } from "../../../src/core/config/version.ts";

describe("parseVersion", () => {
  it.each([
    ["11.8.9", { major: 11, minor: 8, patch: 9 }],
    ["11.8.9-MariaDB-4", { major: 11, minor: 8, patch: 9 }],
    ["9.7.4-2", { major: 9, minor: 7, patch: 4 }],
    ["8.0", { major: 8, minor: 0, patch: 0 }],
    ["  10.11.14", { major: 10, minor: 11, patch: 14 }],
  ])("%j", (text, want) => expect(parseVersion(text)).toEqual(want));

  it.each(["", "11", "v11.8", "latest"])("%j is CONFIG_BAD_VERSION naming the text, with a hint", (text) => {
    expect(() => parseVersion(text)).toThrow(expect.objectContaining({ code: "CONFIG_BAD_VERSION" }));
    expect(() => parseVersion(text)).toThrow(`server version "${text}" is not MAJOR.MINOR[.PATCH]`);
  });
});

describe("compareVersions and inRange", () => {
  it.each([
    ["11.8.9", "11.8.9", 0],
    ["11.8", "11.8.0", 0],
    ["11.8.10", "11.8.9", 1],
    ["10.11.14", "11.4.0", -1],
    ["9.7.4-2", "8.4.6", 1],
    ["1.41", "1.44", -1],
  ])("%s vs %s → %i", (a, b, want) => expect(compareVersions(a, b)).toBe(want));

  it("inRange is from <= v < until, either bound optional", () => {
    const v = parseVersion("10.11.0");
    expect(inRange(v)).toBe(true);
    expect(inRange(v, "10.11")).toBe(true);
    expect(inRange(v, "10.11.1")).toBe(false);
    expect(inRange(v, undefined, "10.11")).toBe(false);
    expect(inRange(v, undefined, "10.11.1")).toBe(true);
    expect(inRange(v, "10.5", "11.0")).toBe(true);
  });

  it("formatVersion writes all three parts", () => expect(formatVersion(parseVersion("8.0"))).toBe("8.0.0"));
});
