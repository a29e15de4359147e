#!/usr/bin/env node
/**
 * Tests mirror the code: every module under src/core/ and every run stage (src/app/run.ts, src/app/run/*.ts) has a
 * test file in the mirrored place, test/unit/<path>.test.ts (or .test.tsx), where <path> is the module's path
 * under src/core/ (under src/ for src/app/). A second test file of one module is named <path>.<aspect>.test.ts.
 * A module that exports only types has nothing to run and needs none. Lists what lacks a test; exits 1 if any does.
 *
 * Usage: node scripts/check-test-mirror.mjs [--list]   (--list: also print each module with its test files)
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";

const root = join(dirname(new URL(import.meta.url).pathname), "..");
const list = process.argv.includes("--list");

/** Every .ts/.tsx file under `dir`, relative to the repository root. */
function walk(dir) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? walk(p) : /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts") ? [p] : [];
  });
}

/** True when the module declares no runtime value: only types, interfaces and type re-exports. */
function typesOnly(file) {
  const src = readFileSync(join(root, file), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\/\/.*$/gm, "");
  const runtime =
    /^\s*export\s+(?:default\b|(?:async\s+)?function\b|const\b|let\b|var\b|class\b|abstract\s+class\b|enum\b|\*|\{)/m;
  return !runtime.test(src.replace(/^\s*export\s+type\s*\{[^}]*\}[^;]*;/gm, ""));
}

const modules = [...walk("src/core"), "src/app/run.ts", ...walk("src/app/run")].filter((f) => !typesOnly(f));

/** The mirrored test path of a module, without `.test.ts`: test/unit/<layer>/<file> or test/unit/app/... */
const mirror = (f) =>
  join("test/unit", relative(f.startsWith("src/core/") ? "src/core" : "src", f)).replace(/\.tsx?$/, "");

const testsOf = (f) => {
  const m = mirror(f);
  const dir = join(root, dirname(m));
  if (!existsSync(dir)) return [];
  const stem = basename(m);
  return readdirSync(dir)
    .filter((n) => /\.test\.tsx?$/.test(n) && (n.startsWith(`${stem}.test.`) || n.startsWith(`${stem}.`)))
    .map((n) => join(dirname(m), n));
};

const missing = [];
for (const f of modules) {
  const tests = testsOf(f);
  if (!tests.length) missing.push(f);
  if (list) console.log(`${f}: ${tests.length ? tests.join(", ") : "NO TEST"}`);
}
if (missing.length) {
  console.error(`${missing.length} of ${modules.length} modules have no test file in the mirrored place:`);
  for (const f of missing) console.error(`  ${f} (expected ${mirror(f)}.test.ts)`);
  process.exit(1);
}
console.log(`Every one of ${modules.length} modules has a test file in the mirrored place.`);
