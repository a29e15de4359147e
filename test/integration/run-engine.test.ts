/**
 * The run engine against the real Docker engine, real servers and real sysbench: every transport, each on one of the
 * data-dir kinds (socket on a volume, loopback on tmpfs, bridge on a loop-backed RAID 0: the three runs cover both
 * lists), the results folder against its raw logs, the storage facts in run.json, and teardown (nothing left on the
 * engine, no mount or loop device left on the host). twinbench killed while the array is mounted: storage-run.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseSysbench } from "../../src/core/model/sysbench/parse.ts";
import type { CellRecord, RunManifest } from "../../src/core/model/results.ts";
import { ensureLab, events, hostState, leftovers, tinyScenario, twinbench } from "./support/lab.ts";

beforeAll(ensureLab, 1_800_000);

const STORAGE = {
  volume: { kind: "volume" },
  tmpfs: { kind: "tmpfs", size: "1g" },
  raid0: { kind: "raid0", loop: { members: 2, size: "1g" } },
} as const;

describe.each([
  ["socket", "volume"],
  ["loopback", "tmpfs"],
  ["bridge", "raid0"],
] as const)("run over the %s transport, data dir on %s", (transport, kind) => {
  it(
    "runs 2 servers × 2 tests × 1-2 thread counts, keeps consistent results, records its storage and leaves nothing",
    { timeout: 600_000 },
    async () => {
      // A volume and a RAID 0 are block devices (bytes per query); tmpfs is none. Thread counts are not what the
      // transport changes: 1 and 2 on the socket, 1 on the others (CI time).
      const blockDevice = kind !== "tmpfs";
      const { file, dir } = await tinyScenario(
        { load: { transport }, storage: STORAGE[kind] },
        {
          tests: ["oltp_point_select", "oltp_update_non_index"],
          threads: transport === "socket" ? [1, 2] : [1],
          warmup: "1s",
        },
      );
      const out = join(dir, "out");
      const r = await twinbench(["run", file, "--out", out, "--json-events"]);
      expect(r.exitCode, r.all).toBe(0);
      const ev = events(r.stdout);
      expect(ev[0]!.type).toBe("plan-ready");
      expect(ev.filter((e) => e.type === "interval").length).toBeGreaterThan(0);
      const fin = ev.at(-1)!;
      expect(fin.type).toBe("run-finished");
      expect(fin.status).toBe("ok");

      const manifest = JSON.parse(await readFile(join(out, "run.json"), "utf8")) as RunManifest;
      const cells = (await readFile(join(out, "cells.jsonl"), "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as CellRecord);
      const measured = cells.filter((c) => c.phase === "measure");
      expect(measured).toHaveLength(manifest.cells.length);
      expect(new Set(measured.map((c) => c.key))).toEqual(new Set(manifest.cells.map((c) => c.key)));
      for (const c of cells) {
        expect(c.status).toBe("ok");
        // Each cell's metrics are exactly the parse of its raw log.
        expect(c.metrics).toEqual(parseSysbench(await readFile(join(out, c.raw), "utf8")));
      }
      // Every measured cell carries its state, with sane figures.
      for (const c of measured) {
        const st = c.state!;
        expect(st, c.key).toBeDefined();
        expect(st.errors, c.key).toBeUndefined();
        for (const v of Object.values(st.backlog!)) expect(v, `${c.key} backlog`).toBeGreaterThanOrEqual(0);
        // Two tables of 1000 rows fit in a 128M pool, and the servers were prewarmed: nothing (or next to nothing) from disk.
        expect(st.warm, c.key).toMatchObject({ fits: true, cold: false });
        expect(st.warm!.diskReads, c.key).toBeGreaterThanOrEqual(0);
        // tinyScenario: server cpuset "1", load cpuset "0".
        expect(st.cpu).toMatchObject({ serverCpusetCores: 1, loadCpusetCores: 1 });
        expect(["server", "load", "neither"]).toContain(st.bottleneck!.kind);
        const pq = st.perQuery!;
        expect(pq.queries).toBe(c.metrics!.queries);
        // CPU per query × q/s is the cores used: above 0, at most the cpuset's (2% for the counters' and clock's rounding).
        for (const [us, cores] of [
          [pq.serverCpuUs, st.cpu!.serverCpusetCores],
          [pq.clientCpuUs, st.cpu!.loadCpusetCores],
        ] as const) {
          const used = (us! * c.metrics!.qps!) / 1e6;
          expect(used, c.key).toBeGreaterThan(0);
          expect(used, c.key).toBeLessThanOrEqual(cores * 1.02);
        }
        // Each sysbench query of these tests reads at least one row by primary key; the update also writes redo.
        expect(pq.rowsRead!, c.key).toBeGreaterThan(0);
        expect(pq.pagesRead, c.key).not.toBeNull();
        expect(pq.pagesWritten, c.key).not.toBeNull();
        expect(pq.fsyncs, c.key).not.toBeNull();
        if (c.test === "oltp_update_non_index") expect(pq.logBytes!, c.key).toBeGreaterThan(0);
        else expect(pq.logBytes, c.key).not.toBeNull();
        // Context switches of both containers' threads: each query is a round trip, so the server's threads wait
        // (voluntary switches) for at least some queries, and sysbench's as well; involuntary ones are counted (≥ 0).
        expect(pq.serverCsVoluntary!, c.key).toBeGreaterThan(0);
        expect(pq.clientCsVoluntary!, c.key).toBeGreaterThan(0);
        expect(pq.serverCsInvoluntary!, c.key).toBeGreaterThanOrEqual(0);
        expect(pq.clientCsInvoluntary!, c.key).toBeGreaterThanOrEqual(0);
        if (blockDevice) {
          expect(pq.readBytes!, c.key).toBeGreaterThanOrEqual(0);
          // innodb_flush_log_at_trx_commit = 1 (lab/my.cnf): every update's commit writes and syncs the redo log.
          if (c.test === "oltp_update_non_index") expect(pq.writeBytes!, c.key).toBeGreaterThan(0);
          else expect(pq.writeBytes!, c.key).toBeGreaterThanOrEqual(0);
        } else {
          expect(pq.readBytes, c.key).toBeNull();
          expect(pq.absent?.writeBytes, c.key).toBe("no block device (tmpfs)");
        }
      }
      // The report states each cell's seconds and the host's hardware counters.
      const report = JSON.parse(await readFile(join(out, "report.json"), "utf8")) as {
        run: { windows: Array<{ key: string; from: number; to: number }>; costs: { hardware: string } };
      };
      expect(new Set(report.run.windows.map((w) => w.key))).toEqual(new Set(measured.map((c) => c.key)));
      for (const w of report.run.windows) expect(w.to, w.key).toBeGreaterThanOrEqual(w.from);
      expect(manifest.hosts[0]!.hardwareCounters).toMatch(/^Hardware counters per query/);
      expect(report.run.costs.hardware).toBe(manifest.hosts[0]!.hardwareCounters);
      for (const s of manifest.servers) {
        expect(s.connection?.transport).toBe(transport);
        expect(Object.keys(s.effectiveVariables ?? {}).length).toBeGreaterThan(200);
        expect(s.version).toBeTruthy();
      }
      expect(manifest.mustMatch?.filter((m) => !m.equal && !m.deliberate)).toEqual([]);
      // Each server's storage facts in run.json.
      for (const s of manifest.servers) {
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
      expect(await leftovers(manifest.runId)).toEqual({ containers: [], networks: [], volumes: [] });
      expect(await hostState(manifest.runId)).toEqual({ mounts: [], loops: [] });
    },
  );
});
