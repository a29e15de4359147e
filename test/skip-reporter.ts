/**
 * A vitest reporter that lists every test that did not run, and why: the `ctx.skip(note)` note, else the
 * `skip`/`skipIf`/`todo` call that skipped it (the test's own or an enclosing describe's) with its source line, which
 * shows the condition, e.g. `test/integration/tui-tmux.test.ts:70 describe.skipIf(!haveTmux)(…)`.
 *
 * It prints the list after the run. With TWINBENCH_SKIPS_FILE set it also writes it there as JSON (`[]` when
 * nothing skipped, so a missing file means the reporter never ran): `.ci/run` fails on a non-empty list through
 * scripts/check-skips.mjs. Registered in vitest.config.ts next to the default reporter.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import type { Reporter, TestCase, TestModule, TestSuite } from "vitest/node";

/** One test that did not run. */
export interface SkippedTest {
  /** The test file, relative to the project root. */
  file: string;
  /** The test's full name (describe > … > it). */
  test: string;
  /** Why: a skip note, or the skipping call and its source line. */
  reason: string;
}

function sourceLine(moduleId: string, line: number): string {
  try {
    return (readFileSync(moduleId, "utf8").split("\n")[line - 1] ?? "").trim();
  } catch {
    return ""; // the file moved since the run: the location alone still says where
  }
}

/** Why `t` did not run. */
export function skipReason(t: TestCase, root: string): string {
  const r = t.result();
  if (r.state === "skipped" && r.note) return `skipped at run time: ${r.note}`;
  const file = relative(root, t.module.moduleId);
  // vitest passes a describe's skip down to its tests: the outermost skipped node is the one that says why.
  let skipper: TestCase | TestSuite | undefined;
  for (let node: TestCase | TestSuite | TestModule = t; node.type !== "module"; node = node.parent)
    if (node.options.mode === "skip" || node.options.mode === "todo") skipper = node;
  if (skipper) {
    const where = skipper.location ? `${file}:${skipper.location.line}` : file;
    const line = skipper.location ? sourceLine(t.module.moduleId, skipper.location.line) : "";
    const what = `${skipper.type === "suite" ? "describe" : "test"} ${JSON.stringify(skipper.name)} is marked ${skipper.options.mode}`;
    return `${what} at ${where}${line ? `: ${line}` : ""}`;
  }
  if (r.state === "pending") return "never ran (the run stopped, or its file failed to load)";
  return "not selected (.only elsewhere in its file, or a -t / line filter)";
}

export function skippedTests(modules: ReadonlyArray<TestModule>, root: string): SkippedTest[] {
  const out: SkippedTest[] = [];
  for (const m of modules)
    for (const t of m.children.allTests()) {
      const state = t.result().state;
      if (state === "skipped" || state === "pending")
        out.push({ file: relative(root, m.moduleId), test: t.fullName, reason: skipReason(t, root) });
    }
  return out;
}

export default class SkipReporter implements Reporter {
  private root = process.cwd();

  onInit(vitest: { config: { root: string } }): void {
    this.root = vitest.config.root;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skipped = skippedTests(modules, this.root);
    const file = process.env.TWINBENCH_SKIPS_FILE;
    if (file) writeFileSync(file, `${JSON.stringify(skipped, null, 2)}\n`);
    if (skipped.length === 0) return;
    const lines = [
      `${skipped.length} test(s) did not run:`,
      ...skipped.map((s) => `  - ${s.file} > ${s.test}\n      why: ${s.reason}`),
    ];
    process.stdout.write(`\n${lines.join("\n")}\n`);
  }
}
