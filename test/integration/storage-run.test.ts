/**
 * Whole runs on each data-dir kind (tmpfs, volume, loop-backed RAID 0), their storage facts in run.json, nothing
 * left afterwards; and twinbench killed with SIGKILL while the array is mounted, then `twinbench clean`.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import type { RunManifest } from "../../src/core/model/results.ts";
import { BIN, ROOT, ensureLab, hostState, leftovers, tinyScenario, twinbench } from "./support/lab.ts";

beforeAll(ensureLab, 1_800_000);

const raid0 = { kind: "raid0", loop: { members: 2, size: "1g" } };

describe("runs on every storage kind", () => {
  it.each([
    ["tmpfs", { kind: "tmpfs", size: "1g" }],
    ["volume", { kind: "volume" }],
    ["raid0", raid0],
  ] as const)("%s: a run, its facts in run.json, nothing left", { timeout: 600_000 }, async (kind, storage) => {
    const { file, dir } = await tinyScenario({ storage });
    const out = join(dir, "out");
    const r = await twinbench(["run", file, "--out", out, "--no-tui"]);
    expect(r.exitCode, r.all).toBe(0);
    const m = JSON.parse(await readFile(join(out, "run.json"), "utf8")) as RunManifest;
    for (const s of m.servers) {
      expect(s.storage?.kind).toBe(kind);
      expect(s.storage?.fsType).toBeTruthy();
      expect(s.storage?.freeBytesBefore).toBeGreaterThan(0);
      expect(s.storage?.freeBytesAfter).toBeGreaterThan(0);
      if (kind === "raid0") {
        expect(s.storage?.raidLevel).toMatch(/0/);
        expect(s.storage?.loopBacked).toBe(true);
        expect(s.storage?.members).toHaveLength(2);
        expect(s.storage?.fsType).toBe("btrfs");
      }
      if (kind === "tmpfs") expect(s.storage?.fsType).toBe("tmpfs");
    }
    // The first screen leads with the answer; the servers' storage is in the details.
    const details = await twinbench(["report", out, "--details", "--no-write"]);
    expect(details.exitCode, details.all).toBe(0);
    expect(details.stdout.replace(/\s+/g, " ")).toContain(`storage: ${kind}`);
    expect(await leftovers(m.runId)).toEqual({ containers: [], networks: [], volumes: [] });
    expect(await hostState(m.runId)).toEqual({ mounts: [], loops: [] });
  });

  it(
    "kill -9 while the array is mounted: clean unmounts it, detaches the loops and removes the files",
    { timeout: 600_000 },
    async () => {
      const { file, dir } = await tinyScenario({ storage: raid0 }, { duration: "20s" });
      const out = join(dir, "out");
      const child = execa("node", [BIN, "run", file, "--out", out, "--json-events"], { cwd: ROOT, reject: false });
      let runId = "";
      await new Promise<void>((resolve, reject) => {
        let buf = "";
        child.stdout!.on("data", (d: Buffer) => {
          buf += d.toString();
          const m = /"runId":"([^"]+)"/.exec(buf);
          if (m) runId = m[1]!;
          if (runId && buf.includes('"type":"cell-started"')) resolve();
        });
        child.on("exit", () => reject(new Error("exited early")));
      });
      child.kill("SIGKILL");
      await child;
      const before = await hostState(runId);
      expect(before.mounts.length).toBeGreaterThan(0);
      expect(before.loops.length).toBeGreaterThan(0);
      const c = await twinbench(["clean", "--run", runId]);
      expect(c.exitCode, c.all).toBe(0);
      expect(await hostState(runId)).toEqual({ mounts: [], loops: [] });
      expect(await leftovers(runId)).toEqual({ containers: [], networks: [], volumes: [] });
      const files = (
        await execa("find", ["/var/lib/twinbench", "-name", `*${runId}*`], { reject: false })
      ).stdout.trim();
      expect(files).toBe("");
    },
  );
});
