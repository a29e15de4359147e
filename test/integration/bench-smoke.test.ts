/**
 * `npm run bench` on its tiny setting: it prints the three tables, writes <out-dir>/<date>.json with the three
 * measurements, and leaves no Docker resource behind. Nothing here depends on the figures themselves.
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
    const r = await execa("npx", ["tsx", "bench/run.ts", "--smoke", "--out-dir", out], {
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
