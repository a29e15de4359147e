/**
 * The stage-size rule of the house (docs/architecture.md): no function in src/app/ is longer than 120 lines, so
 * the run stays a composition of stages anyone can read. Measured with the TypeScript compiler's own parser.
 */
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const MAX_LINES = 120;
const ROOT = new URL("../../../", import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
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

describe("stage size", () => {
  it("measures a function's lines", () => {
    const text = "function a() {\n  return 1;\n}\nconst b = () => {\n\n};\n";
    expect(functionLengths("x.ts", text)).toEqual([
      { name: "a", line: 1, lines: 3 },
      { name: "b", line: 4, lines: 3 },
    ]);
  });

  it(`no function in src/app/ is over ${MAX_LINES} lines`, () => {
    const long = sourceFiles(join(ROOT, "src/app")).flatMap((f) =>
      functionLengths(f, readFileSync(f, "utf8"))
        .filter((x) => x.lines > MAX_LINES)
        .map((x) => `${relative(ROOT, f)}:${x.line} ${x.name} (${x.lines} lines)`),
    );
    expect(long).toEqual([]);
  });
});
