/**
 * CI notices what did not run: test/skip-reporter.ts lists each skipped test and why, and
 * scripts/check-skips.mjs fails on a non-empty list. The reporter runs for real on a fixture project
 * (test/fixtures/skips/project) whose tests skip in each way vitest offers.
 */
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import type { SkippedTest } from "../../skip-reporter.ts";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const project = here("../../fixtures/skips/project");
const vitestBin = here("../../../node_modules/vitest/vitest.mjs");
const checkSkips = here("../../../scripts/check-skips.mjs");

async function runFixture(env: Record<string, string> = {}): Promise<SkippedTest[]> {
  const out = join(await mkdtemp(join(tmpdir(), "tb-skips-")), "skips.json");
  const r = await execa(process.execPath, [vitestBin, "run", "--config", join(project, "vitest.config.ts")], {
    cwd: project,
    env: { ...env, TWINBENCH_SKIPS_FILE: out, TWINBENCH_TEST_UNIT_ONLY: "1" },
    reject: false,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(await readFile(out, "utf8")) as SkippedTest[];
}

describe("skip reporter", () => {
  it("lists every skipped test with the reason: the skipping describe's line, the note, the skip/todo call", async () => {
    const skipped = await runFixture();
    expect(skipped.map((s) => s.test)).toEqual([
      "needs the widget > uses the widget",
      "marked skip",
      "skips at run time",
      "to be written",
    ]);
    expect(skipped.every((s) => s.file === "skips.fixture.ts")).toBe(true);
    const [suite, marked, runtime, todo] = skipped.map((s) => s.reason);
    expect(suite).toBe(
      'describe "needs the widget" is marked skip at skips.fixture.ts:5: describe.skipIf(!haveWidget)("needs the widget", () => {',
    );
    expect(marked).toMatch(/^test "marked skip" is marked skip at skips\.fixture\.ts:8: it\.skip\(/);
    expect(runtime).toBe("skipped at run time: no widget on this machine");
    expect(todo).toMatch(/^test "to be written" is marked todo at skips\.fixture\.ts:13/);
  }, 60_000);

  it("lists only the unconditional skips when the condition holds", async () => {
    const skipped = await runFixture({ FIXTURE_HAVE_WIDGET: "1" });
    expect(skipped.map((s) => s.test)).toEqual(["marked skip", "to be written"]);
  }, 60_000);
});

describe("scripts/check-skips.mjs", () => {
  const run = (...files: string[]) => execa(process.execPath, [checkSkips, ...files], { reject: false });

  it("fails on a skipped test and prints which and why", async () => {
    const r = await run(here("../../fixtures/skips/none.json"), here("../../fixtures/skips/list.json"));
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("SKIPPED  test/integration/tui-tmux.test.ts > run screen in tmux > shows the cells");
    expect(r.stderr).toContain(
      'why: describe "run screen in tmux" is marked skip at test/integration/tui-tmux.test.ts:70: describe.skipIf(!haveTmux)',
    );
    expect(r.stderr).toMatch(/1 test\(s\) did not run/);
  });

  it("passes on empty lists", async () => {
    const r = await run(here("../../fixtures/skips/none.json"));
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/no skipped tests/);
  });

  it("a missing list is exit 2, not a pass", async () => {
    const r = await run(join(tmpdir(), "tb-no-such-skips.json"));
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/cannot read the skip list/);
  });
});
