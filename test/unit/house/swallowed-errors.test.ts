/**
 * "Every catch is accounted for": an error that is swallowed says why. Every `catch` clause that drops
 * the error (its body does nothing, or never reads the error and never throws), and every `.catch(handler)` or
 * `.then(ok, handler)` whose handler ignores the error (`() => undefined`, `() => {}`, `() => []`, `() => false`,
 * `() => fallback`…), carries a comment on the same line, on the line above, or inside
 * the block. Measured with the TypeScript compiler's own parser, comments included, so strings and templates that
 * merely contain `//` are never taken for a reason.
 */
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const ROOT = new URL("../../../", import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(dir, d.name)) : /\.tsx?$/.test(d.name) ? [join(dir, d.name)] : [],
  );
}

/** Lines (0-based) on which a comment starts, from the parser's trivia of every token. */
function commentLines(sf: ts.SourceFile): Set<number> {
  const text = sf.getFullText();
  const seen = new Set<number>();
  const lines = new Set<number>();
  const add = (ranges: ts.CommentRange[] | undefined): void => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      lines.add(sf.getLineAndCharacterOfPosition(r.pos).line);
    }
  };
  const visit = (node: ts.Node): void => {
    add(ts.getLeadingCommentRanges(text, node.getFullStart()));
    add(ts.getTrailingCommentRanges(text, node.getEnd()));
    for (const child of node.getChildren(sf)) visit(child);
  };
  visit(sf);
  return lines;
}

/** True when `node` mentions the identifier `name` anywhere. */
function mentions(node: ts.Node, name: string): boolean {
  if (ts.isIdentifier(node) && node.text === name) return true;
  return ts.forEachChild(node, (c) => mentions(c, name) || undefined) ?? false;
}

/** A handler passed to `.catch(...)` that drops the error: it never reads its parameter and neither throws nor rejects. */
function handlerIgnoresError(fn: ts.ArrowFunction | ts.FunctionExpression): boolean {
  const p = fn.parameters[0];
  if (p && ts.isIdentifier(p.name) && mentions(fn.body, p.name.text)) return false;
  return !rethrows(fn.body);
}

/** True when `node` throws or rejects somewhere inside. */
function rethrows(node: ts.Node): boolean {
  if (ts.isThrowStatement(node)) return true;
  if (
    ts.isCallExpression(node) &&
    ts.isPropertyAccessExpression(node.expression) &&
    node.expression.name.text === "reject"
  )
    return true;
  return ts.forEachChild(node, (c) => rethrows(c) || undefined) ?? false;
}

/** A `catch` clause that drops the error: it never reads its binding and neither throws nor rejects. */
function clauseIgnoresError(c: ts.CatchClause): boolean {
  const b = c.variableDeclaration?.name;
  if (b && ts.isIdentifier(b) && mentions(c.block, b.text)) return false;
  return !rethrows(c.block);
}

/** Every swallowed error without a reason, as `file:line kind`. */
export function unexplainedCatches(file: string, text: string): string[] {
  const sf = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.ES2022,
    true,
    file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const comments = commentLines(sf);
  const line = (pos: number): number => sf.getLineAndCharacterOfPosition(pos).line;
  const explained = (first: number, last: number): boolean => {
    for (let l = first - 1; l <= last; l++) if (comments.has(l)) return true;
    return false;
  };
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCatchClause(node) && clauseIgnoresError(node)) {
      if (!explained(line(node.getStart(sf)), line(node.getEnd())))
        out.push(`${file}:${line(node.getStart(sf)) + 1} catch ignores the error`);
    }
    const method =
      ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)
        ? node.expression.name.text
        : undefined;
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      (method === "catch" || method === "then")
    ) {
      // `.catch(h)` or the rejection handler of `.then(ok, h)`
      const h = method === "catch" ? node.arguments[0] : node.arguments[1];
      if (h && (ts.isArrowFunction(h) || ts.isFunctionExpression(h)) && handlerIgnoresError(h)) {
        const at = line(node.expression.name.getStart(sf));
        if (!explained(at, line(node.getEnd())))
          out.push(
            `${file}:${at + 1} .${method}(${method === "then" ? "…, " : ""}${h.getText(sf).replace(/\s+/g, " ")})`,
          );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

describe("swallowed errors", () => {
  it("finds a silent catch and a silent .catch handler, and accepts them with a reason", () => {
    const silent = [
      "try { a(); } catch {}",
      "try { b(); } catch (e) { return false; }",
      "await p.catch(() => undefined);",
      "await p.catch(() => [] as string[]);",
      "const s = `//`; q.catch(() => {});",
      "r.then((v) => v, () => false);",
    ].join("\n");
    expect(unexplainedCatches("x.ts", silent)).toEqual([
      "x.ts:1 catch ignores the error",
      "x.ts:2 catch ignores the error",
      "x.ts:3 .catch(() => undefined)",
      "x.ts:4 .catch(() => [] as string[])",
      "x.ts:5 .catch(() => {})",
      "x.ts:6 .then(…, () => false)",
    ]);
    const reasoned = [
      "try { a(); } catch {",
      "  // best-effort: the container is gone anyway",
      "}",
      "// nothing to disconnect when the network is gone",
      "await p.catch(() => undefined);",
      "await q.catch(() => false); // no dpkg: labels decide",
      "await r.catch((e) => warn(e));",
      "await s.catch(() => { throw new Error('x'); });",
      "try { b(); } catch (e) { log(e); }",
    ].join("\n");
    expect(unexplainedCatches("y.ts", reasoned)).toEqual([]);
  });

  it("every swallowed error in src/ says why", () => {
    const silent = sourceFiles(join(ROOT, "src"))
      .map((f) => relative(ROOT, f))
      .flatMap((f) => unexplainedCatches(f, readFileSync(join(ROOT, f), "utf8")));
    expect(silent).toEqual([]);
  });
});
