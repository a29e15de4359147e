import { describe, expect, it } from "vitest";
import { columnWidths, textTable } from "../../../src/core/base/text-table.ts";

describe("textTable", () => {
  it("pads every column to its widest cell, joined by two spaces, left-aligned by default", () => {
    expect(
      textTable([
        ["a", "bb", "c"],
        ["ccc", "d", "e"],
      ]),
    ).toEqual(["a    bb  c", "ccc  d   e"]);
  });

  it("right-aligns a column and pads a right-aligned last cell", () => {
    expect(
      textTable(
        [
          ["x", "1"],
          ["yy", "100"],
        ],
        { columns: [{}, { align: "right" }] },
      ),
    ).toEqual(["x     1", "yy  100"]);
  });

  it("does not pad a left-aligned last cell, even without trimming", () => {
    expect(
      textTable(
        [
          ["a", "b"],
          ["aaa", ""],
        ],
        { trimEnd: false },
      ),
    ).toEqual(["a    b", "aaa  "]);
  });

  it("trims trailing spaces by default and keeps them with trimEnd: false", () => {
    const rows = [
      ["a", "", "x"],
      ["b", "", ""],
    ];
    expect(textTable(rows, { columns: [{}, { width: 3 }, { align: "right" }] })).toEqual(["a       x", "b"]);
    expect(textTable(rows, { columns: [{}, { width: 3 }, { align: "right" }], trimEnd: false })).toEqual([
      "a       x",
      "b        ",
    ]);
  });

  it("writes head rows first, measured with the rest, and a rule under them", () => {
    expect(
      textTable(
        [
          ["xyz", "1"],
          ["q", "22"],
        ],
        { head: [["a", "bb"]], rule: "-", columns: [{}, { align: "right" }] },
      ),
    ).toEqual(["a    bb", "---  --", "xyz   1", "q    22"]);
  });

  it("indents every line, the rule too, and honours a per-column gap", () => {
    expect(textTable([["ok", "docker", "answers"]], { columns: [{ width: 4 }, { gap: " " }], indent: "  " })).toEqual([
      "  ok   docker  answers",
    ]);
    expect(textTable([["a", "b"]], { head: [["h", "i"]], rule: "=", indent: "> ", gap: " | " })).toEqual([
      "> h | i",
      "> = | =",
      "> a | b",
    ]);
  });

  it("fixed widths win over content: a longer cell overflows, a shorter one is padded", () => {
    expect(
      textTable(
        [
          ["translated", "x"],
          ["kept", "y"],
        ],
        { columns: [{ width: 9 }], trimEnd: false },
      ),
    ).toEqual(["translated  x", "kept       y"]);
  });

  it("minWidth sets a floor", () => {
    expect(textTable([["a", "b"]], { columns: [{ minWidth: 5 }] })).toEqual(["a      b"]);
  });

  it("writes a plain-string row as a line of its own, unmeasured", () => {
    expect(textTable([["a", "1"], "  a long sub-heading line", ["bb", "2"]])).toEqual([
      "a   1",
      "  a long sub-heading line",
      "bb  2",
    ]);
  });

  it("lets rows have fewer cells than the table has columns", () => {
    expect(textTable([["a", "b", "c"], ["dd"]])).toEqual(["a   b  c", "dd"]);
  });

  it("returns no lines for no rows", () => {
    expect(textTable([])).toEqual([]);
  });
});

describe("columnWidths", () => {
  it("takes fixed widths as given and measures the rest", () => {
    expect(columnWidths([["abc", "d"], "ignored line", ["e", "fghij"]], [{ width: 2 }, { minWidth: 1 }])).toEqual([
      2, 5,
    ]);
  });
});
