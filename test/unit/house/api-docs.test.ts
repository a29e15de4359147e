/**
 * The package's public API is documented: every name exported from its three entry points (src/index.ts,
 * src/testcontainers/index.ts, src/testing/index.ts) carries a TSDoc comment, and the library entry imports nothing
 * from the CLI or the TUI. Checked with the TypeScript compiler on the sources.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../../..");
const ENTRIES = ["src/index.ts", "src/testcontainers/index.ts", "src/testing/index.ts"].map((f) => join(ROOT, f));

const program = ts.createProgram(ENTRIES, {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  allowImportingTsExtensions: true,
  noEmit: true,
  jsx: ts.JsxEmit.ReactJSX,
  skipLibCheck: true,
  types: ["node"],
});
const checker = program.getTypeChecker();

function undocumented(entry: string): string[] {
  const sf = program.getSourceFile(entry)!;
  const mod = checker.getSymbolAtLocation(sf)!;
  return checker
    .getExportsOfModule(mod)
    .filter((s) => {
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      return ts.displayPartsToString(target.getDocumentationComment(checker)).trim() === "";
    })
    .map((s) => s.getName());
}

describe("public API", () => {
  it.each(ENTRIES.map((e) => [e.slice(ROOT.length + 1), e]))(
    "every export of %s has TSDoc",
    (_name, entry) => {
      expect(undocumented(entry)).toEqual([]);
    },
    60_000,
  );

  it('the `images pin` logic is public: pinImages and its types from "twinbench", described in docs/api.md', async () => {
    const sf = program.getSourceFile(ENTRIES[0]!)!;
    const names = checker.getExportsOfModule(checker.getSymbolAtLocation(sf)!).map((s) => s.getName());
    expect(names).toEqual(expect.arrayContaining(["pinImages", "PinOptions", "PinOutcome", "DigestEdit", "loadLock"]));
    const lib = await import("../../../src/index.ts");
    expect(lib.pinImages).toBe((await import("../../../src/adapters/images/official.ts")).pinImages);
    const doc = readFileSync(join(ROOT, "docs/api.md"), "utf8");
    expect(doc).toMatch(/`pinImages\(docker, lock, \{ names\?, dryRun\? \}\)`/);
    expect(doc).toContain('import { DockerEngine, loadLock, pinImages } from "twinbench";');
  }, 60_000);

  it("the library entries reach nothing under src/cli or src/tui", () => {
    const reached = program
      .getSourceFiles()
      .map((f) => f.fileName)
      .filter((f) => f.startsWith(join(ROOT, "src")));
    expect(reached.filter((f) => /\/src\/(cli|tui)\//.test(f))).toEqual([]);
  });
});
