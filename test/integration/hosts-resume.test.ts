/**
 * Resuming a multi-host run against the real engine: two hosts, a and b, that are the local engine under two ids
 * (each host's run has its own run id, so they never collide). One server, one table of 1000 rows, 2 s cells,
 * 3 repeats per host.
 *   - the run is cancelled (SIGINT) after its first cell; `run --resume DIR` then completes every host's cells on
 *     that host's engine, keeps every record written before, every cells.jsonl line parses, and `report DIR` shows
 *     each host's table;
 *   - `run --resume DIR/hosts/a` is refused with the way to resume the whole run;
 *   - `clean --run ID` (and `clean --host ID --run ID`) finds every host's and pass's resources: 0 are left.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import type { CliContext } from "../../src/cli/context.ts";
import { DockerEngine } from "../../src/adapters/docker/engine.ts";
import { listLabelled } from "../../src/core/model/engine/engine.ts";
import type { CellRecord } from "../../src/core/model/results.ts";
import type { HostsRunManifest } from "../../src/adapters/results/hosts-folder.ts";

const engine = new DockerEngine("local");
const SOCK = "unix:///var/run/docker.sock";
let tmp: string;

const tiny = [
  "--set",
  "servers=[{id: mariadb, image: mariadb-10.11}]",
  "--set",
  "compare=hosts",
  "--set",
  "workload.tests=[oltp_point_select]",
  "--set",
  "workload.tables=1",
  "--set",
  "workload.tableSize=1000",
  "--set",
  "workload.threads=[1]",
  "--set",
  "workload.duration=2s",
  "--set",
  "workload.warmup=0s",
  "--set",
  "workload.prewarm=false",
  "--set",
  "workload.repeats=3",
];

function context(onLine?: (l: string) => void): CliContext & { lines: string[] } {
  const lines: string[] = [];
  const push = (l: string) => {
    lines.push(l);
    onLine?.(l);
  };
  return {
    lines,
    out: push,
    err: push,
    readFile: (p) => readFile(p, "utf8"),
    engine: () => engine,
    exitCode: 0,
    isTTY: false,
  };
}

/** Every line of a cells.jsonl, parsed (a line that does not parse fails the test). */
async function cellLines(dir: string): Promise<{ text: string[]; cells: CellRecord[] }> {
  const text = (await readFile(join(dir, "cells.jsonl"), "utf8")).split("\n").filter(Boolean);
  return { text, cells: text.map((l) => JSON.parse(l) as CellRecord) };
}

/** Labelled resources of this run on the engine (any host, any pass). */
async function leftovers(runId: string): Promise<string[]> {
  const r = await listLabelled(engine, ["twinbench.session"]);
  const mine = (l: Record<string, string>) => (l["twinbench.run"] ?? "").startsWith(runId);
  return [...r.containers, ...r.networks, ...r.volumes].filter((x) => mine(x.labels)).map((x) => x.name);
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "tb-hosts-resume-"));
  process.env.TWINBENCH_HOSTS_FILE = join(tmp, "known-hosts.json");
});

afterAll(async () => {
  delete process.env.TWINBENCH_HOSTS_FILE;
  await rm(tmp, { recursive: true, force: true });
});

describe("resuming a multi-host run (hosts a and b on the local engine)", () => {
  const out = () => join(tmp, "run");

  it("cancelled after its first cell, `run --resume DIR` completes every host on its engine and keeps every record", async () => {
    let sent = false;
    const first = context((l) => {
      if (!sent && /\bok: qps/.test(l)) {
        sent = true;
        process.emit("SIGINT");
      }
    });
    const code1 = await main(
      [
        "run",
        "scenarios/quick.yaml",
        "--host",
        `a=${SOCK}`,
        "--host",
        `b=${SOCK}`,
        "--no-tui",
        "--out",
        out(),
        ...tiny,
      ],
      first,
    );
    expect(sent, first.lines.slice(-40).join("\n")).toBe(true);
    expect(code1, first.lines.slice(-40).join("\n")).toBe(130);
    const manifest = JSON.parse(await readFile(join(out(), "hosts-run.json"), "utf8")) as HostsRunManifest;
    expect(manifest.scenario.hosts?.map((h) => h.id)).toEqual(["a", "b"]);
    const before: Record<string, string[]> = {};
    for (const h of ["a", "b"])
      before[h] = (await cellLines(join(out(), "hosts", h)).catch(() => ({ text: [] as string[] }))).text;
    const measured = Object.values(before)
      .flat()
      .filter(
        (l) => (JSON.parse(l) as CellRecord).phase === "measure" && (JSON.parse(l) as CellRecord).status === "ok",
      );
    expect(measured.length).toBeGreaterThanOrEqual(1);
    expect(measured.length).toBeLessThan(6);
    expect(await leftovers(manifest.runId)).toEqual([]);

    const second = context();
    const code2 = await main(["run", "--resume", out(), "--no-tui"], second);
    expect(code2, second.lines.slice(-60).join("\n")).toBe(0);
    for (const h of ["a", "b"]) {
      const { text, cells } = await cellLines(join(out(), "hosts", h));
      expect(text.slice(0, before[h]!.length)).toEqual(before[h]); // nothing written before is lost or changed
      const ok = new Set(cells.filter((c) => c.phase === "measure" && c.status === "ok").map((c) => c.key));
      expect(ok.size).toBe(3);
      expect(cells.every((c) => c.host === h)).toBe(true);
      const m = JSON.parse(await readFile(join(out(), "hosts", h, "run.json"), "utf8")) as {
        runId: string;
        status: string;
      };
      expect(m).toMatchObject({ runId: `${manifest.runId}-${h}`, status: "ok" });
    }
    expect(await leftovers(manifest.runId)).toEqual([]);

    const report = context();
    expect(await main(["report", out()], report)).toBe(0);
    const text = report.lines.join("\n");
    expect(text).toContain("Server mariadb: host a / host b");
    expect(text).toMatch(/oltp_point_select\s+\d+\.\d+/);
    const hostsJson = JSON.parse(await readFile(join(out(), "hosts.json"), "utf8")) as {
      hosts: Array<{ id: string; status: string }>;
    };
    expect(hostsJson.hosts.map((h) => `${h.id}:${h.status}`)).toEqual(["a:ok", "b:ok"]);
  }, 900_000);

  it("`run --resume DIR/hosts/a` is refused: on its own it would run on the local engine", async () => {
    const ctx = context();
    const code = await main(["run", "--resume", join(out(), "hosts", "a"), "--no-tui"], ctx);
    expect(code).toBe(2);
    const text = ctx.lines.join("\n");
    expect(text).toContain("HOSTS_RESUME");
    expect(text).toContain(`twinbench run --resume ${out()}`);
  });

  it("a --host for a host the run did not use is refused on resume", async () => {
    const ctx = context();
    expect(await main(["run", "--resume", out(), "--host", `c=${SOCK}`, "--no-tui"], ctx)).toBe(2);
    expect(ctx.lines.join("\n")).toContain('has no host "c"');
  });

  it("`clean --host b --run ID` and `clean --run ID` find every pass of a run, pass 7 included", async () => {
    const runId = "20261201-000000-c1ea";
    const labels = (host: string, pass: number) => ({
      "twinbench.session": "cleantest",
      "twinbench.run": pass === 1 ? `${runId}-${host}` : `${runId}-${host}-p${pass}`,
      "twinbench.host": host,
    });
    for (const pass of [1, 2, 5, 7]) await engine.volumes.create(`tb-${runId}-b-p${pass}`, labels("b", pass));
    await engine.volumes.create(`tb-${runId}-a-p6`, labels("a", 6));
    await engine.volumes.create(`tb-${runId}9-b`, { ...labels("b", 1), "twinbench.run": `${runId}9-b` }); // another run: stays
    try {
      const byHost = context();
      expect(await main(["clean", "--host", `b=${SOCK}`, "--run", runId], byHost)).toBe(0);
      expect(byHost.lines.join("\n")).toContain("host b: removed 0 containers, 0 networks, 5 volumes");
      expect(await leftovers(runId)).toEqual([`tb-${runId}9-b`]);
    } finally {
      await engine.volumes.remove(`tb-${runId}9-b`);
    }
  });
});
