/**
 * The size rules of the house (docs/architecture.md): no function in src/ is longer than 120 lines, and no file in
 * src/ is longer than 400 lines unless its header comment says it is a "data table:". Functions are measured with the
 * TypeScript compiler's own parser; files in lines as written (the tree is formatted by prettier).
 */
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const MAX_FUNCTION_LINES = 120;
const MAX_FILE_LINES = 400;
const ROOT = new URL("../../../", import.meta.url).pathname;

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(dir, d.name)) : /\.tsx?$/.test(d.name) ? [join(dir, d.name)] : [],
  );
}

/** Every function-like node of a file with its length in lines (first to last line of its body). */
export function functionLengths(file: string, text: string): Array<{ name: string; line: number; lines: number }> {
  const sf = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.ES2022,
    true,
    file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const out: Array<{ name: string; line: number; lines: number }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const named = node as ts.FunctionLikeDeclaration;
      const name =
        named.name && ts.isIdentifier(named.name)
          ? named.name.text
          : ts.isVariableDeclaration(node.parent) && ts.isIdentifier(node.parent.name)
            ? node.parent.name.text
            : "(anonymous)";
      out.push({ name, line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** A file's lines as `wc -l` counts them (a final newline ends the last line, it does not start one). */
export function fileLines(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** Whether the comments that open a file (before its first statement) say it is a data table. */
export function isDataTable(text: string): boolean {
  const header = (ts.getLeadingCommentRanges(text, 0) ?? []).map((r) => text.slice(r.pos, r.end)).join("\n");
  return /data table:/.test(header);
}

describe("function size", () => {
  it("measures a function's lines", () => {
    const text = "function a() {\n  return 1;\n}\nconst b = () => {\n\n};\n";
    expect(functionLengths("x.ts", text)).toEqual([
      { name: "a", line: 1, lines: 3 },
      { name: "b", line: 4, lines: 3 },
    ]);
  });

  it(`no function in src/ is over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = sourceFiles(join(ROOT, "src")).flatMap((f) =>
      functionLengths(f, readFileSync(f, "utf8"))
        .filter((x) => x.lines > MAX_FUNCTION_LINES)
        .map((x) => `${relative(ROOT, f)}:${x.line} ${x.name} (${x.lines} lines)`),
    );
    expect(long).toEqual([]);
  });
});

describe("file size", () => {
  it("counts a file's lines and reads its header", () => {
    expect(fileLines("")).toBe(0);
    expect(fileLines("a\nb\n")).toBe(2);
    expect(fileLines("a\nb")).toBe(2);
    expect(isDataTable("/** data table: the options. */\nexport const a = 1;\n")).toBe(true);
    expect(isDataTable("// The options.\n// data table: one row per option.\nexport const a = 1;\n")).toBe(true);
    expect(isDataTable("/** The options. */\nexport const a = 1; // data table: no, not a header\n")).toBe(false);
    expect(isDataTable('export const a = "data table:";\n')).toBe(false);
  });

  it(`no file in src/ is over ${MAX_FILE_LINES} lines unless its header says "data table:"`, () => {
    const long = sourceFiles(join(ROOT, "src")).flatMap((f) => {
      const text = readFileSync(f, "utf8");
      const lines = fileLines(text);
      return lines > MAX_FILE_LINES && !isDataTable(text) ? [`${relative(ROOT, f)} (${lines} lines)`] : [];
    });
    expect(long).toEqual([]);
  });
});
