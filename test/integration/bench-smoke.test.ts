/**
 * The bench harness, smoke-sized: both of its code paths, each once, with 1 s cells on one table of 1000 rows
 * (nothing here depends on the figures themselves, only on what each path prints, writes and leaves behind).
 *  - `npm run bench -- --smoke`: the three measurements (transport overhead, lab overhead, A/A noise) and the
 *    projection, their tables printed, <out-dir>/<date>.json written, no Docker resource left behind;
 *  - `npm run bench -- --only noise --smoke --arms quiesce`: manual reference blocks (plain docker CLI) around one lab
 *    arm (quiesce: the lever with the most code behind it; the lab defaults arm is the same run loop without the
 *    waits), the lever table printed, <date>-noise.json written, nothing left behind.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { execa } from "execa";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, docker, ensureLab } from "./support/lab.ts";

beforeAll(ensureLab, 1_800_000);

describe("npm run bench --smoke", () => {
  it("prints its tables, writes <date>.json and cleans up", { timeout: 1_200_000 }, async () => {
    const out = await mkdtemp(join(tmpdir(), "tb-bench-"));
    const r = await execa("npx", ["tsx", "bench/run.ts", "--smoke", "--seconds", "1", "--out-dir", out], {
      cwd: ROOT,
      reject: false,
      all: true,
      env: { TESTCONTAINERS_RYUK_DISABLED: "true", NO_COLOR: "1" },
    });
    expect(r.exitCode, r.all).toBe(0);
    for (const heading of ["== 1. Transport overhead", "== 2. Lab overhead", "== 3. A/A noise", "== 2b. Projection"])
      expect(r.stdout).toContain(heading);
    for (const t of ["socket", "loopback", "bridge", "host-socket", "host-tcp"]) expect(r.stdout).toContain(`${t} q/s`);
    expect(r.stdout).toMatch(/default transport socket: (WITHIN|NOT within) 3%/);
    expect(r.stdout).toContain("measurement share of wall time:");
    expect(r.stdout).toContain("median absolute deviation of the A/A ratio from 100:");

    const files = (await readdir(out)).filter((f) => /^\d{4}-\d{2}-\d{2}\.json$/.test(f));
    expect(files).toHaveLength(1);
    const json = JSON.parse(await readFile(join(out, files[0]!), "utf8")) as {
      smoke: boolean;
      machine: { cpus: number; kernel: string };
      transport: {
        rows: Array<{ cells: Array<{ transport: string; medianQps: number | null }> }>;
        defaultVerdict: { transport: string };
      };
      lab: { split: { wall: number; cells: number }; projections: { seed: { cells: number } } };
      aa: { noise: { cells: number; sameShare: number } };
      runIds: string[];
    };
    expect(json.smoke).toBe(true);
    expect(json.machine.cpus).toBeGreaterThan(0);
    expect(json.transport.defaultVerdict.transport).toBe("socket");
    for (const row of json.transport.rows) for (const c of row.cells) expect(c.medianQps).toBeGreaterThan(0);
    expect(json.lab.split.cells).toBeGreaterThan(0);
    expect(json.lab.projections.seed.cells).toBe(112);
    expect(json.aa.noise.cells).toBeGreaterThan(0);
    expect(json.runIds.length).toBe(3);

    for (const runId of json.runIds) {
      const f = JSON.stringify({ label: [`twinbench.run=${runId}`] });
      const [cs, ns, vs] = await Promise.all([
        docker.listContainers({ all: true, filters: f }),
        docker.listNetworks({ filters: f }),
        docker.listVolumes({ filters: f }),
      ]);
      expect({ runId, containers: cs.length, networks: ns.length, volumes: (vs.Volumes ?? []).length }).toEqual({
        runId,
        containers: 0,
        networks: 0,
        volumes: 0,
      });
    }
  });
});

describe("npm run bench -- --only noise --smoke", () => {
  it(
    "runs M, L, M, prints the lever table, writes <date>-noise.json and cleans up",
    { timeout: 2_400_000 },
    async () => {
      const out = await mkdtemp(join(tmpdir(), "tb-noise-"));
      const r = await execa(
        "npx",
        [
          ...[
            "tsx",
            "bench/run.ts",
            "--only",
            "noise",
            "--smoke",
            "--arms",
            "quiesce",
            "--seconds",
            "1",
            "--seed",
            "7",
          ],
          ...["--out-dir", out],
        ],
        { cwd: ROOT, reject: false, all: true, env: { TESTCONTAINERS_RYUK_DISABLED: "true", NO_COLOR: "1" } },
      );
      expect(r.exitCode, r.all).toBe(0);
      expect(r.stdout).toMatch(/expected duration \d/);
      expect(r.stdout).toMatch(/what it can see \(95%, power 80%\): an arm's pair sd ×\d/);
      expect(r.stdout).toContain("== Noise levers");
      for (const arm of ["manual ", "quiesce "]) expect(r.stdout).toContain(arm);

      const files = (await readdir(out)).filter((f) => /^\d{4}-\d{2}-\d{2}-noise\.json$/.test(f));
      expect(files).toHaveLength(1);
      const md = (await readdir(out)).filter((f) => f.endsWith("-noise.md"));
      expect(md).toHaveLength(1);
      const json = JSON.parse(await readFile(join(out, files[0]!), "utf8")) as {
        settings: { pairs: number; arms: string[]; schedule: Array<{ kind: string; arm: string }> };
        blocks: Array<{
          kind: string;
          arm: string;
          runId: string;
          cells: Record<string, number[]>;
          quiesceSeconds?: number[];
        }>;
        table: Array<{ arm: string; sd: { pairs: number } | null }>;
        failures: unknown[];
      };
      expect(json.failures).toEqual([]);
      expect(json.settings.pairs).toBe(2);
      expect(json.settings.schedule.map((b) => b.kind)).toEqual(["manual", "lab", "manual"]);
      expect(json.blocks).toHaveLength(3);
      for (const b of json.blocks) {
        expect(Object.keys(b.cells).sort()).toEqual(["oltp_point_select/1", "oltp_update_non_index/1"]);
        for (const ds of Object.values(b.cells)) expect(ds).toHaveLength(2);
      }
      // The quiesce arm waited before each of its 4 write cells (2 pairs × 2 servers) and recorded it.
      expect(json.blocks.find((b) => b.arm === "quiesce")!.quiesceSeconds).toHaveLength(4);
      expect(json.table.map((t) => t.arm)).toEqual(["manual", "quiesce"]);
      expect(json.table[0]!.sd!.pairs).toBe(8); // 2 manual blocks × 2 cells × 2 pairs

      for (const { runId } of json.blocks) {
        const f = JSON.stringify({ label: [`twinbench.run=${runId}`] });
        const [cs, ns, vs] = await Promise.all([
          docker.listContainers({ all: true, filters: f }),
          docker.listNetworks({ filters: f }),
          docker.listVolumes({ filters: f }),
        ]);
        expect({ runId, containers: cs.length, networks: ns.length, volumes: (vs.Volumes ?? []).length }).toEqual({
          runId,
          containers: 0,
          networks: 0,
          volumes: 0,
        });
      }
    },
  );
});
