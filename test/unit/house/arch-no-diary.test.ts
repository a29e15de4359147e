/**
 * History stays out of the code (docs/architecture.md): no comment or string in src/ names an internal issue number
 * or a date. The project's history lives in its CHANGELOG and git log. Measured data may carry the date it was
 * measured on: such files are named in {@link DATA_ALLOWED}, each with the reason.
 */
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const ROOT = new URL("../../../", import.meta.url).pathname;
const DIARY = /issue [0-9]+|20[0-9]{2}-[0-9]{2}-[0-9]{2}/i;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(dir, d.name)) : /\.tsx?$/.test(d.name) ? [join(dir, d.name)] : [],
  );
}

/** Files (relative to the repository) whose dates are part of their data, with why. */
const DATA_ALLOWED: Record<string, string> = {
  "src/core/hosts/node-support.ts": "each Node.js line's end-of-life date is the data doctor's Node check works from",
};

/** Where {@link DIARY} matches in the comments, string literals, template pieces and JSX text of a file. */
export function diaryIn(file: string, text: string): Array<{ line: number; match: string }> {
  const sf = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.ES2022,
    true,
    file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const out = new Map<number, string>();
  const comments = (ranges: ts.CommentRange[] | undefined): void => {
    for (const r of ranges ?? []) out.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node): void => {
    comments(ts.getLeadingCommentRanges(text, node.getFullStart()));
    comments(ts.getTrailingCommentRanges(text, node.getEnd()));
    if (
      ts.isStringLiteralLike(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node) ||
      ts.isJsxText(node)
    ) {
      out.set(node.getStart(sf), node.getText(sf));
    }
    node.getChildren(sf).forEach(visit);
  };
  visit(sf);
  return [...out.entries()]
    .sort(([a], [b]) => a - b)
    .flatMap(([pos, t]) => {
      const m = DIARY.exec(t);
      return m ? [{ line: sf.getLineAndCharacterOfPosition(pos + m.index).line + 1, match: m[0] }] : [];
    });
}

describe("no diary in the code", () => {
  it("reads comments and strings, not code", () => {
    const text = [
      "// issue 12: a comment",
      "const a = 1; /* 2026-01-02 */",
      'const b = "issue 3";',
      "const c = `at ${a} on 2025-05-05`;",
      "const issue = 4;",
      "",
    ].join("\n");
    expect(diaryIn("x.ts", text)).toEqual([
      { line: 1, match: "issue 12" },
      { line: 2, match: "2026-01-02" },
      { line: 3, match: "issue 3" },
      { line: 4, match: "2025-05-05" },
    ]);
  });

  it("no comment or string in src/ names an issue number or a date", () => {
    const found = sourceFiles(join(ROOT, "src")).flatMap((f) => {
      const file = relative(ROOT, f);
      if (file in DATA_ALLOWED) return [];
      return diaryIn(f, readFileSync(f, "utf8")).map((c) => `${file}:${c.line} ${c.match}`);
    });
    expect(found).toEqual([]);
  });
});
