/**
 * Server versions as the dialect table compares them: "11.8.9", "11.8.9-MariaDB-4", "9.7.4-2", "8.0" → numbers.
 */
import { InputError } from "../base/errors.ts";

export interface Version {
  major: number;
  minor: number;
  patch: number;
}

/** Parse the leading "MAJOR.MINOR[.PATCH]" of a version string; anything after it (package suffixes) is ignored. */
export function parseVersion(text: string): Version {
  const m = /^\s*(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  if (!m) {
    throw new InputError(`server version "${text}" is not MAJOR.MINOR[.PATCH]`, {
      code: "CONFIG_BAD_VERSION",
      hint: 'pass the server version as reported by the server or its package, e.g. "11.8.9" or "9.7.4"',
    });
  }
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0) };
}

/** Compare versions ("11.8.9", "1.41", parsed or not) numerically: -1, 0 or 1. */
export function compareVersions(a: Version | string, b: Version | string): number {
  const x = typeof a === "string" ? parseVersion(a) : a;
  const y = typeof b === "string" ? parseVersion(b) : b;
  return Math.sign(x.major - y.major || x.minor - y.minor || x.patch - y.patch);
}

/** True when `from <= v < until` (either bound may be absent). */
export function inRange(v: Version, from?: string, until?: string): boolean {
  if (from !== undefined && compareVersions(v, from) < 0) return false;
  if (until !== undefined && compareVersions(v, until) >= 0) return false;
  return true;
}

export function formatVersion(v: Version): string {
  return `${v.major}.${v.minor}.${v.patch}`;
}
