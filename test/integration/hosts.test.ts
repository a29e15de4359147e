/**
 * Several hosts against real engines: the local one and a second Docker engine that this test starts on
 * tcp://127.0.0.2:2375 (lab/second-engine.sh: own --data-root, --exec-root, --pidfile and socket,
 * --iptables=false --ip-masq=false, its own bridge; never --bridge=none). Images go to it over the API
 * (--image-transfer send); sysbench uses the socket transport. Runs are tiny (one server, 1 thread, 2-3 s cells).
 *   - compare: hosts, on seed 002's scenario (shortened), gives the host-vs-host table and the host-facts diff, and the
 *     side-by-side execution summary with its derived lines and the kernel facts, printed and in
 *     report-hosts.md/.html, and `report` reads the host comparison folder (one run, two tests);
 *   - a sharded run gives one merged results folder with every cell;
 *   - killing the second engine mid-run gives a clear host failure, its cells move to the first, nothing is left
 *     on the first engine (and `clean --host b` removes the leftovers once the engine is back).
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import type { CliContext } from "../../src/cli/context.ts";
import { DockerEngine } from "../../src/adapters/docker/engine.ts";
import { listLabelled } from "../../src/core/model/engine/engine.ts";
import { connectEngine } from "../../src/adapters/docker/connect.ts";
import type { CellRecord, RunManifest } from "../../src/core/model/results.ts";

const run = promisify(execFile);
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const script = join(repo, "lab/second-engine.sh");
const A = "a=unix:///var/run/docker.sock";
const B = "b=tcp://127.0.0.2:2375";
const engineA = new DockerEngine("a");
const engineB = connectEngine({ id: "b", engine: "tcp://127.0.0.2:2375" });
let startedHere = false;
let tmp: string;

const tiny = [
  "--set",
  "servers=[{id: mariadb, image: mariadb-10.11}]",
  "--set",
  "workload.tables=1",
  "--set",
  "workload.tableSize=1000",
  "--set",
  "workload.threads=[1]",
  "--set",
  "workload.warmup=0s",
  "--set",
  "workload.prewarm=false",
];
/**
 * Sharding needs two servers (the ratio's numerator and denominator; quick.yaml compares mariadb to mysql, so those
 * are the ids). Both run mariadb-10.11 (A/A): what these tests prove is about hosts, not images, and MariaDB starts
 * several times faster than MySQL 9.7, whose image would also have to be on b. The two "hosts" here are one machine, so each host's cells run beside the other host's containers:
 * the interference check rightly flags them as disturbed, and re-runs would add attempts that these tests do not
 * count. Re-runs are off for them.
 */
const twoServers = [
  "--set",
  "servers=[{id: mariadb, image: mariadb-10.11}, {id: mysql, image: mariadb-10.11}]",
  "--set",
  "workload.rerunDisturbed=false",
];

function context(onLine?: (l: string) => void): CliContext & { lines: string[] } {
  const lines: string[] = [];
  const ctx: CliContext & { lines: string[] } = {
    lines,
    out: (l) => {
      lines.push(l);
      onLine?.(l);
    },
    err: (l) => {
      lines.push(l);
      onLine?.(l);
    },
    readFile: (p) => readFile(p, "utf8"),
    engine: () => engineA,
    exitCode: 0,
    isTTY: false,
  };
  return ctx;
}

async function readFolder(dir: string): Promise<{ manifest: RunManifest; cells: CellRecord[] }> {
  const manifest = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;
  const cells = (await readFile(join(dir, "cells.jsonl"), "utf8"))
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CellRecord);
  return { manifest, cells };
}

/** Resources a run left on an engine, by the per-host run ids (<run>-<host>, <run>-<host>-pN). */
async function leftovers(engine: DockerEngine | ReturnType<typeof connectEngine>, runId: string): Promise<string[]> {
  const r = await listLabelled(engine, ["twinbench.session"]);
  const mine = (l: Record<string, string>) => (l["twinbench.run"] ?? "").startsWith(runId);
  return [
    ...r.containers.filter((c) => mine(c.labels)).map((c) => c.name),
    ...r.networks.filter((n) => mine(n.labels)).map((n) => n.name),
    ...r.volumes.filter((v) => mine(v.labels)).map((v) => v.name),
  ];
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "tb-hosts-it-"));
  process.env.TWINBENCH_HOSTS_FILE = join(tmp, "hosts.json");
  startedHere = await run(script, ["status"]).then(
    () => false,
    () => true,
  );
  if (startedHere) await run(script, ["start"], { timeout: 120_000 });
  await engineB.ping();
}, 180_000);

afterAll(async () => {
  // A killed engine is started again so that it stops its containers; then stopped, and its bridge deleted.
  if (startedHere)
    await run(script, ["stop"], { timeout: 180_000 }).catch((e) =>
      console.error(`second engine stop: ${(e as Error).message}`),
    );
  else await run(script, ["start"], { timeout: 120_000 }).catch(() => undefined);
  delete process.env.TWINBENCH_HOSTS_FILE;
  await rm(tmp, { recursive: true, force: true });
}, 240_000);

describe("several hosts (second engine on tcp://127.0.0.2:2375)", () => {
  /**
   * One compare: hosts run serves both tests below: seed 002's scenario, shortened (8 threads, 400 events, a tiny
   * table, one repeat; the server is mariadb-10.11, which the other tests run too, so it is sent to b once).
   */
  describe("compare: hosts", () => {
    let out = "";
    let text = "";
    let code: number;
    beforeAll(async () => {
      out = join(tmp, "seed-kernel");
      const ctx = context();
      code = await main(
        [
          "run",
          "scenarios/seed-kernel-ro300.yaml",
          "--host",
          A,
          "--host",
          B,
          "--no-tui",
          "--out",
          out,
          "--set",
          "servers=[{id: mariadb, image: mariadb-10.11}]",
          "--set",
          "workload.threads=[8]",
          "--set",
          "workload.events=400",
          "--set",
          "workload.tableSize=1000",
          "--set",
          "workload.warmup=0s",
          "--set",
          "workload.prewarm=false",
          "--set",
          "workload.repeats=1",
        ],
        ctx,
      );
      text = ctx.lines.join("\n");
    }, 900_000);

    it(
      "prints the host-vs-host table and the host-facts diff; each host's folder holds its cells",
      { timeout: 120_000 },
      async () => {
        expect(code, text.slice(-4000)).toBe(0);
        expect(text).toContain("Server mariadb: host a / host b");
        expect(text).toContain("(mariadb@a q/s / mariadb@b q/s * 100)");
        expect(text).toMatch(/oltp_read_only\s+\d+\.\d+/);
        expect(text).toMatch(/Host facts/);
        expect(text).toMatch(/kernel\s+\S+\s+\S+/);
        expect(text).toMatch(/engine\s+unix:\/\/\/var\/run\/docker\.sock\s+tcp:\/\/127\.0\.0\.2:2375/);
        const md = await readFile(join(out, "report-hosts.md"), "utf8");
        expect(md).toContain("## mariadb: host a / host b");
        expect(md).toContain("| docker version |");
        for (const h of ["a", "b"]) {
          const f = await readFolder(join(out, "hosts", h));
          expect(f.manifest.status).toBe("ok");
          expect(f.manifest.hosts[0]).toMatchObject({
            id: h,
            cpuModel: expect.any(String),
            nproc: expect.any(Number),
            volumeFs: expect.any(String),
          });
          expect(f.cells.filter((c) => c.phase === "measure").every((c) => c.host === h && c.status === "ok")).toBe(
            true,
          );
        }
        const runId = (await readFolder(join(out, "hosts", "a"))).manifest.runId.replace(/-a$/, "");
        expect(await leftovers(engineA, runId)).toEqual([]);
        expect(await leftovers(engineB, runId)).toEqual([]);
      },
    );

    it(
      "seed 002 on two hosts: the side-by-side execution summary with its derived lines and the kernel facts, printed, in report-hosts.md and report-hosts.html; report reads the folder",
      { timeout: 120_000 },
      async () => {
        expect(code, text.slice(-4000)).toBe(0);
        const derived = [
          /effective concurrency \(event execution time \/ total time\)\s+\d+\.\d\s+\d+\.\d\s+\d+\.\d/,
          /tps × avg latency \(Little's law cross-check\)\s+\d+\.\d\s+\d+\.\d/,
          /configured threads\s+8\s+8\s+100\.0/,
          /total time taken by event execution \(s\)\s+\d+\.\d{4}\s+\d+\.\d{4}/,
          /approx\. 95 percentile\s+\d+\.\d\d\s+\d+\.\d\d/,
        ];
        expect(text).toContain("Test execution summary, side by side: A = b, B = a, and B/A × 100.");
        expect(text).toContain("mariadb: oltp_read_only @ 8 threads (median over repeats; b: 1 repeat, a: 1 repeat)");
        for (const re of derived) expect(text).toMatch(re);
        for (const fact of [
          "data device (volumes)",
          "io scheduler",
          "nr_requests",
          "queue depth",
          "rotational",
          "transparent huge pages",
          "cpufreq governor",
          "clocksource",
          "kernel command line",
          "mitigations",
        ])
          expect(text).toMatch(new RegExp(`\\s${fact.replace(/[()]/g, "\\$&")}\\s+\\S+`));
        expect(text).toMatch(/mitigation: \w+/);

        const md = await readFile(join(out, "report-hosts.md"), "utf8");
        expect(md).toContain("### mariadb: oltp_read_only @ 8 threads");
        expect(md).toMatch(
          /\| \*derived:\* effective concurrency \(event execution time \/ total time\) \| \d+\.\d \| \d+\.\d \| \d+\.\d \|/,
        );
        expect(md).toMatch(/\| io scheduler \| \S+ \| \S+ \|/);
        expect(md).toContain("| kernel command line |");
        const html = await readFile(join(out, "report-hosts.html"), "utf8");
        expect(html).toContain("<h2>Test execution summary</h2>");
        expect(html).toContain("effective concurrency (event execution time / total time)");
        expect(html).toContain("<td>io scheduler</td>");
        const facts = (await readFolder(join(out, "hosts", "b"))).manifest.hosts[0]!;
        expect(facts).toMatchObject({
          id: "b",
          ioScheduler: expect.any(String),
          thp: expect.any(String),
          clocksource: expect.any(String),
          kernelCmdline: expect.any(String),
          cpufreqGovernor: expect.any(String),
        });

        // report and report --summary read the host comparison folder and say so.
        const rep = context();
        expect(await main(["report", out, "--no-write"], rep)).toBe(0);
        const r = rep.lines.join("\n");
        expect(r).toContain(`read: ${out}: host comparison `);
        expect(r).toContain("Host a (hosts/a):");
        expect(r).toContain("Server mariadb: host a / host b");
        for (const re of derived) expect(r).toMatch(re);
        const sum = context();
        expect(await main(["report", out, "--summary", "--no-write"], sum)).toBe(0);
        expect(sum.lines.join("\n")).toMatch(derived[0]!);
      },
    );
  });

  it("shard: true spreads the cells over both engines and merges them into one results folder", async () => {
    const out = join(tmp, "shard");
    const ctx = context();
    const code = await main(
      [
        "run",
        "scenarios/quick.yaml",
        "--host",
        A,
        "--host",
        B,
        "--no-tui",
        "--out",
        out,
        ...tiny,
        ...twoServers,
        "--set",
        "shard=true",
        "--set",
        "workload.tests=[oltp_point_select,oltp_read_only]",
        "--set",
        "workload.duration=2s",
        "--set",
        "workload.repeats=1",
      ],
      ctx,
    );
    const text = ctx.lines.join("\n");
    expect(code, text.slice(-4000)).toBe(0);
    const f = await readFolder(out);
    expect(f.manifest.status).toBe("ok");
    expect(f.manifest.cells.length).toBe(4);
    const measured = f.cells.filter((c) => c.phase === "measure" && c.status === "ok");
    expect(measured.map((c) => c.key).sort()).toEqual(f.manifest.cells.map((c) => c.key).sort());
    expect(new Set(measured.map((c) => c.host))).toEqual(new Set(["a", "b"]));
    for (const c of measured) await expect(readFile(join(out, c.raw), "utf8")).resolves.toContain("SQL statistics");
    expect(f.manifest.hosts.map((h) => h.id)).toEqual(["a", "b"]);
    expect(await readdir(out)).toEqual(
      expect.arrayContaining(["run.json", "cells.jsonl", "raw", "hosts", "report.md", "report-hosts.md"]),
    );
    const rep = context();
    expect(await main(["report", out, "--no-write"], rep)).toBe(0);
    expect(rep.lines.join("\n")).toMatch(
      new RegExp(`read: ${out}: sharded run \\S+ \\(merged run\\.json, \\d+ cell records; parts hosts/a, hosts/b\\)`),
    );
  }, 600_000);

  it("killing the second engine mid-run: a clear host failure, its cells move to the first, nothing left on it", async () => {
    const out = join(tmp, "kill");
    let killed: Promise<unknown> | undefined;
    const ctx = context((l) => {
      if (!killed && /^\[b\] cell \d+ /.test(l)) killed = run(script, ["kill"]);
    });
    const code = await main(
      [
        "run",
        "scenarios/quick.yaml",
        "--host",
        A,
        "--host",
        B,
        "--no-tui",
        "--out",
        out,
        ...tiny,
        ...twoServers,
        "--set",
        "shard=true",
        "--set",
        "workload.tests=[oltp_point_select,oltp_read_only]",
        "--set",
        "workload.duration=3s",
        "--set",
        "workload.repeats=1",
      ],
      ctx,
    );
    await killed;
    const text = ctx.lines.join("\n");
    expect(killed, "the second engine was never killed: no cell started on b").toBeDefined();
    expect(text).toMatch(/host b .*(is unreachable|failed): .*stopped answering/);
    expect(text).toMatch(/moving \d+ cells of lost host\(s\) b to a/);
    const f = await readFolder(out);
    const measured = f.cells.filter((c) => c.phase === "measure" && c.status === "ok");
    expect(measured.map((c) => c.key).sort()).toEqual(f.manifest.cells.map((c) => c.key).sort());
    expect(f.manifest.hostFailures?.map((x) => x.host)).toEqual(["b"]);
    expect(code).toBe(0); // every planned cell has a result
    const runId = f.manifest.runId;
    expect(await leftovers(engineA, runId)).toEqual([]);

    // The engine comes back with the dead run's containers: `clean --host b` removes them.
    await run(script, ["start"], { timeout: 120_000 });
    await engineB.ping();
    const ctx2 = context();
    expect(await main(["clean", "--host", "b", "--run", runId], ctx2)).toBe(0);
    expect(ctx2.lines.join("\n")).toMatch(/host b: removed \d+ containers/);
    expect(await leftovers(engineB, runId)).toEqual([]);
  }, 600_000);
});
