/**
 * A user's own sysbench script, for real: the shipped example (scenarios/custom/join-update: a folder with its main
 * script and a helper) runs on both servers and gets a ratio with an interval and a verdict like a stock test; its
 * own prepare and cleanup run; run.json keeps its hash. A script with a Lua syntax error is refused by `plan` and by
 * `run` with its file and line, before any server exists.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, readdir, writeFile, copyFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureLab, leftovers, readCells, ROOT, twinbench } from "./support/lab.ts";
import { VERDICTS } from "../../src/core/model/verdict.ts";

beforeAll(ensureLab, 1_800_000);

const EXAMPLE = join(ROOT, "scenarios", "custom", "join-update.yaml");
/** The example, shortened: one thread count, two repeats of 2 s cells, no warm-up. */
const SHORT = [
  "--set",
  "workload.threads=[1]",
  "--set",
  "workload.repeats=2",
  "--set",
  "workload.duration=2s",
  "--set",
  "workload.warmup=0s",
  "--set",
  "workload.sysbench.customers=500",
  // Counted cells: on a shared machine outside work would add re-run attempts.
  "--set",
  "workload.rerunDisturbed=false",
];

describe("a custom sysbench script", () => {
  it("the shipped example runs on both servers with a ratio, interval and verdict", { timeout: 300_000 }, async () => {
    const out = join(await mkdtemp(join(tmpdir(), "tb-custom-")), "run");
    const r = await twinbench(["run", EXAMPLE, ...SHORT, "--out", out, "--no-tui"]);
    expect(r.exitCode, r.all).toBe(0);

    const manifest = JSON.parse(await readFile(join(out, "run.json"), "utf8"));
    const files = ["main.lua", "schema.lua"];
    const h = createHash("sha256");
    for (const f of files)
      h.update(f)
        .update("\0")
        .update(await readFile(join(ROOT, "scenarios", "custom", "join-update", f), "utf8"))
        .update("\0");
    expect(manifest.customScripts).toEqual({
      join_update: { path: "join-update/", main: "main.lua", files, sha256: h.digest("hex") },
    });
    const actions = (manifest.actions as Array<{ server?: string; detail?: string }>).map(
      (a) => `${a.server} ${a.detail}`,
    );
    for (const s of ["mariadb", "mysql"]) {
      expect(actions).toContain(`${s} custom test join_update: its prepare ran`);
      expect(actions).toContain(`${s} custom test join_update: its cleanup ran`);
    }

    const cells = (await readCells(out)).filter((c) => c.phase === "measure");
    expect(cells).toHaveLength(4);
    for (const c of cells) {
      expect(c.status, c.error).toBe("ok");
      expect(c.test).toBe("join_update");
      // Four statements per event (BEGIN, the join, the update, COMMIT): reads and writes both counted.
      expect(c.metrics!.qps).toBeGreaterThan(0);
      expect(c.metrics!.tps).toBeGreaterThan(0);
    }
    const raw = await readdir(join(out, "raw"));
    expect(raw).toEqual(expect.arrayContaining(["mariadb.prepare-join_update.log", "mysql.cleanup-join_update.log"]));

    const json = JSON.parse((await twinbench(["report", out, "--format", "json"])).stdout);
    const row = json.rows.find((x: { test: string }) => x.test === "join_update");
    const cell = row.cells[0];
    expect(cell.threads).toBe(1);
    expect(VERDICTS).toContain(cell.verdict);
    // Pairs disturbed by outside work (a shared machine) are left out of the estimate, as for any test.
    const clean = cells.filter((c) => !c.interference?.disturbed).map((c) => `${c.repeat}`);
    const cleanPairs = [1, 2].filter((r) => clean.filter((x) => x === `${r}`).length === 2).length;
    expect(cell.n).toBe(cleanPairs);
    if (cleanPairs === 2) {
      expect(cell.low).toBeLessThanOrEqual(cell.estimate);
      expect(cell.high).toBeGreaterThanOrEqual(cell.estimate);
    }
    expect(await leftovers(manifest.runId)).toEqual({ containers: [], networks: [], volumes: [] });
  });

  it(
    "a Lua syntax error is refused by plan and run with file and line, before any server",
    { timeout: 180_000 },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "tb-custom-bad-"));
      const yaml = (await readFile(EXAMPLE, "utf8")).replace(
        "- { script: join-update/, name: join_update, writes: true }",
        "- { script: broken.lua, writes: false }",
      );
      expect(yaml).toContain("broken.lua");
      await writeFile(join(dir, "s.yaml"), yaml);
      await copyFile(join(ROOT, "scenarios", "custom", "join-update", "schema.lua"), join(dir, "schema.lua"));
      await writeFile(
        join(dir, "broken.lua"),
        'local schema = require("schema")\n\nfunction event()\n  local x = = 1\nend\n',
      );

      const plan = await twinbench(["plan", join(dir, "s.yaml")]);
      expect(plan.exitCode, plan.all).toBe(2);
      expect(plan.all).toMatch(
        /SCRIPT_LOAD_FAILED.*custom test broken: sysbench cannot load broken\.lua: broken\.lua:4: unexpected symbol near '='/,
      );

      const out = join(dir, "run");
      const run = await twinbench(["run", join(dir, "s.yaml"), ...SHORT, "--out", out, "--no-tui"]);
      expect(run.exitCode, run.all).not.toBe(0);
      expect(run.all).toMatch(/broken\.lua:4: unexpected symbol near '='/);
      const manifest = JSON.parse(await readFile(join(out, "run.json"), "utf8"));
      expect(manifest.servers).toEqual([]);
      expect(manifest.actions).toEqual([]);
      expect(await leftovers(manifest.runId)).toEqual({ containers: [], networks: [], volumes: [] });
    },
  );
});
