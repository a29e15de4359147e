/**
 * twinbench killed with SIGKILL while a loop-backed RAID 0 is mounted, then `twinbench clean`. Whole runs on each
 * data-dir kind (tmpfs, volume, RAID 0), with their storage facts in run.json and nothing left afterwards, are in
 * run-engine.test.ts (one run per transport, each on one kind).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { execa } from "execa";
import { BIN, ROOT, ensureLab, hostState, leftovers, tinyScenario, twinbench } from "./support/lab.ts";

beforeAll(ensureLab, 1_800_000);

const raid0 = { kind: "raid0", loop: { members: 2, size: "1g" } };

describe("twinbench killed while a loop-backed RAID 0 is mounted", () => {
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
