/** The report builders' escapes: HTML text, JSON inside a <script> element, a Markdown table cell. */
import { describe, expect, it } from "vitest";
import { escapeHtml, escapeMarkdownCell, scriptJson } from "../../../src/core/report/escape.ts";

describe("escapeHtml", () => {
  it("turns the five special characters into entities, & first", () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;",
    );
  });
  it("writes other values as text, and null or undefined as nothing", () => {
    expect(escapeHtml(42)).toBe("42");
    expect(escapeHtml(null)).toBe("");
    expect(escapeHtml(undefined)).toBe("");
    expect(escapeHtml("MariaDB 11.8 – ±5%")).toBe("MariaDB 11.8 – ±5%");
  });
});

describe("scriptJson", () => {
  it("cannot close the script element or break a JavaScript string, and parses back to the value", () => {
    const v = { name: "</script><script>alert(1)</script>", sep: "a\u2028b\u2029c" };
    const s = scriptJson(v);
    expect(s).not.toMatch(/<\/script/i);
    expect(s).not.toContain("\u2028");
    expect(s).not.toContain("\u2029");
    expect(JSON.parse(s)).toEqual(v);
  });
});

describe("escapeMarkdownCell", () => {
  it("escapes the pipe that would end the cell, and nothing else", () => {
    expect(escapeMarkdownCell("a|b | c")).toBe("a\\|b \\| c");
    expect(escapeMarkdownCell("*x* <y>")).toBe("*x* <y>");
  });
});
