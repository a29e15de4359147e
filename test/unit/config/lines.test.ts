import { describe, expect, it } from "vitest";
import { formatMustMatch, formatTranslation } from "../../../src/core/config/lines.ts";
import type { MustMatchRow, TranslationEntry } from "../../../src/core/model/results.ts";

const entry = (o: Partial<TranslationEntry>): TranslationEntry => ({
  option: "opt",
  fate: "keep",
  rendered: [],
  reason: "",
  ...o,
});

describe("formatTranslation", () => {
  it.each([
    ["no entries", [], []],
    [
      "kept, dropped with a reason, and translated to two lines",
      [
        entry({ option: "buffer_pool", fate: "translate", rendered: ["a=1", "b=2"] }),
        entry({ option: "x", fate: "drop", reason: "not in mysql" }),
        entry({ option: "max_connections", fate: "keep", rendered: ["max_connections=100"] }),
      ],
      [
        "  buffer_pool      translate  a=1, b=2",
        "  x                drop       -  (not in mysql)",
        "  max_connections  keep       max_connections=100",
      ],
    ],
  ])("%s", (_, entries, want) => {
    expect(formatTranslation(entries)).toEqual(want);
  });
});

describe("formatMustMatch", () => {
  const row = (o: Partial<MustMatchRow>): MustMatchRow => ({
    variable: "v",
    values: {},
    equal: true,
    deliberate: false,
    ...o,
  });

  it.each([
    ["equal", row({ variable: "sync", values: { a: "1", b: "1" } }), "  sync          1  1  same"],
    [
      "different",
      row({ variable: "buffer", values: { a: "1", b: "2" }, equal: false }),
      "  buffer        1  2  DIFFERENT",
    ],
    [
      "different, asked for, with a note",
      row({ variable: "io", values: { a: "on", b: "off" }, equal: false, deliberate: true, note: "set per server" }),
      "  io            on  off  DIFFERENT (asked for)  set per server",
    ],
    ["a value missing", row({ variable: "x", values: { a: "1", b: null } }), "  x             1  -  same"],
  ])("%s", (_, r, want) => {
    const [head, line] = formatMustMatch([r], ["a", "b"]);
    expect(head).toMatch(/^ {2}variable {6}a\s+b\s+verdict$/);
    expect(line).toBe(want);
  });
});
