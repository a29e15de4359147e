/**
 * Compose smoke run (real engine): build twinbench's own image from docker-compose.yml, then run `doctor`, `plan`
 * and a two-cell `run` through `docker compose run --rm twinbench ...` (or `docker-compose` 1.29), exactly as the
 * README shows. A run on the host starts beside that run once its servers measure: both complete with every cell,
 * neither's start-up sweep touches the other's containers, volumes or state, and nothing labelled is left. The base image comes from twinbench's image builder (cached); the values lab/compose-prepare.ts
 * would write into .env are passed as environment variables instead, so the test leaves .env alone.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Docker from "dockerode";
import { DockerEngine } from "../../src/adapters/docker/engine.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRunner, type RunResult } from "../../src/adapters/host/runner.ts";
import { ensureBaseImage, loadLock } from "../../src/adapters/images/index.ts";
import { execa } from "execa";
import { events, leftovers, readCells, start, tinyScenario, waitForEvent } from "./support/lab.ts";

/** Everything on the engine labelled with any twinbench session: containers, networks and volumes. */
async function sessionLabelled(): Promise<string[]> {
  const f = JSON.stringify({ label: ["twinbench.session"] });
  const [cs, ns, vs] = await Promise.all([
    docker.listContainers({ all: true, filters: f }),
    docker.listNetworks({ filters: f }),
    docker.listVolumes({ filters: f }),
  ]);
  return [
    ...cs.map((c) => `container ${c.Names[0] ?? c.Id}`),
    ...ns.map((n) => `network ${n.Name}`),
    ...(vs.Volumes ?? []).map((v) => `volume ${v.Name}`),
  ].sort();
}

/** A run's storage state records (one per server while it runs). */
const stateFiles = async (runId: string): Promise<string[]> =>
  (await readdir("/var/lib/twinbench/state").catch(() => [] as string[]))
    .filter((f) => f.startsWith(`${runId}-`))
    .sort();

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const runner = createRunner();
const id = `compose-${randomBytes(4).toString("hex")}`;
const labels = ["-l", `twinbench.session=${id}`, "-l", `twinbench.run=${id}`];
const docker = new Docker();

let compose: { cmd: string; pre: string[] };
let env: Record<string, string>;

async function composeRun(args: string[], timeoutMs: number): Promise<RunResult> {
  const r = await runner.run(compose.cmd, [...compose.pre, "run", "--rm", ...labels, "twinbench", ...args], {
    cwd: repo,
    env,
    timeoutMs,
  });
  if (r.exitCode !== 0) {
    // Show what went wrong in the test output.
    console.error(
      `${compose.cmd} ${[...compose.pre, "run", ...args].join(" ")} → ${r.exitCode}\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`,
    );
  }
  return r;
}

beforeAll(async () => {
  if ((await runner.run("docker", ["compose", "version"])).exitCode === 0)
    compose = { cmd: "docker", pre: ["compose"] };
  else if ((await runner.run("docker-compose", ["version"])).exitCode === 0)
    compose = { cmd: "docker-compose", pre: [] };
  else
    throw new Error(
      "neither `docker compose` nor `docker-compose` is installed: run `twinbench doctor --fix` (as root)",
    );

  const lock = await loadLock(join(repo, "images", "lock.yaml"));
  const base = await ensureBaseImage(new DockerEngine().images, "sid", lock.mirrors);
  env = { TWINBENCH_BASE_IMAGE: base.tag, TWINBENCH_REPO: repo, COMPOSE_INTERACTIVE_NO_CLI: "1" };
  const b = await runner.run(compose.cmd, [...compose.pre, "build", "twinbench"], {
    cwd: repo,
    env,
    timeoutMs: 900_000,
  });
  if (b.exitCode !== 0)
    throw new Error(`compose build failed (${b.exitCode}):\n${(b.stderr || b.stdout).slice(-3000)}`);
}, 1_000_000);

afterAll(async () => {
  // `run --rm` removes its container; anything left (a killed run) carries our session label.
  const left = await docker.listContainers({ all: true, filters: { label: [`twinbench.session=${id}`] } });
  for (const c of left)
    await docker
      .getContainer(c.Id)
      .remove({ force: true })
      .catch(() => {});
});

describe("docker-compose.yml", () => {
  it("builds twinbench/self:local from the twinbench base image, with Node >= 20", async () => {
    const img = await docker.getImage("twinbench/self:local").inspect();
    expect(img.Config.Labels?.["twinbench.base"]).toBe(env.TWINBENCH_BASE_IMAGE);
    const r = await composeRun(["--version"], 120_000);
    expect(r.exitCode).toBe(0);
    const node = await runner.run(
      compose.cmd,
      [...compose.pre, "run", "--rm", ...labels, "--entrypoint", "node", "twinbench", "--version"],
      { cwd: repo, env, timeoutMs: 120_000 },
    );
    // compose may print its own lines (network, container creation) around the program's output: take the version line.
    const out = `${node.stdout}\n${node.stderr}`;
    expect(node.exitCode, out.slice(-3000)).toBe(0);
    const major = /^v(\d+)\.\d+\.\d+\s*$/m.exec(node.stdout)?.[1];
    expect(major, `no "vN.N.N" line in node --version's output:\n${out.slice(-3000)}`).toBeDefined();
    expect(Number(major)).toBeGreaterThanOrEqual(20);
  }, 300_000);

  it("runs `doctor` in the container against the host's engine", async () => {
    const r = await composeRun(["doctor", "--json"], 180_000);
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout.slice(r.stdout.indexOf("{"))) as { checks: Array<{ id: string; status: string }> };
    const byId = Object.fromEntries(j.checks.map((c) => [c.id, c.status]));
    expect(byId).toMatchObject({ engine: "ok", "api-version": "ok" });
  }, 300_000);

  it("runs `plan scenarios/quick.yaml` in the container", async () => {
    const r = await composeRun(["plan", "scenarios/quick.yaml"], 180_000);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/mariadb/i);
    expect(r.stdout).toMatch(/mysql/i);
  }, 300_000);

  it("a run in the container and a run on the host side by side: both complete with every cell, neither sweeps the other's, nothing left", async () => {
    const t0 = Date.now();
    const before = await sessionLabelled();
    const out = join(repo, "results", `compose-smoke-${id}`);
    const host = await tinyScenario({ name: "it-host" }, { tables: 1, threads: [1] });
    const hostOut = join(host.dir, "out");
    try {
      const boxed = execa(
        compose.cmd,
        [
          ...compose.pre,
          "run",
          "--rm",
          ...labels,
          "twinbench",
          "run",
          "scenarios/quick.yaml",
          "--json-events",
          "--out",
          out,
          "--set",
          "workload.tests=[oltp_point_select]",
          "--set",
          "workload.threads=[1]",
          "--set",
          "workload.repeats=1",
          "--set",
          "workload.tableSize=1000",
          "--set",
          "workload.tables=1",
          "--set",
          "workload.duration=2s",
          "--set",
          "workload.warmup=1s",
        ],
        { cwd: repo, env, reject: false, all: true, timeout: 1_500_000 },
      );
      const boxedPlan = waitForEvent(boxed, (e) => e.type === "plan-ready");
      // Servers start and prepare one after the other: at mariadb's prepare, its container, volume and state record
      // exist, and mysql's start, both prepares, the snapshots, the warm-ups and both cells are still to come. The
      // start-up sweep judges every resource of a run by the same owner labels: mariadb's stand for all.
      const boxedUp = waitForEvent(boxed, (e) => e.type === "phase" && e.phase === "prepare" && e.server === "mariadb");
      const boxedId = String((await boxedPlan).runId);
      await boxedUp;

      // The host run starts (and sweeps) while the container's run has a server up.
      const hostT0 = Date.now();
      const hostRun = start(["run", host.file, "--out", hostOut, "--json-events"]);
      const hostId = String((await waitForEvent(hostRun, (e) => e.type === "plan-ready")).runId);
      // Its sweep is over (it comes before the plan): the container's run kept everything it owns.
      const mid = await leftovers(boxedId);
      expect(mid.containers.length, JSON.stringify(mid)).toBeGreaterThan(0);
      expect(mid.volumes.length, JSON.stringify(mid)).toBeGreaterThan(0);
      expect(await stateFiles(boxedId)).toContain(`${boxedId}-mariadb.json`);

      const [b, h] = await Promise.all([boxed, hostRun]);
      for (const [name, r, dir] of [
        ["container", b, out],
        ["host", h, hostOut],
      ] as const) {
        expect(r.exitCode, `${name} run:\n${r.all.slice(-4000)}`).toBe(0);
        expect(r.all, name).not.toMatch(/removed \d+ resources left by earlier runs/);
        const evs = events(r.stdout);
        expect(
          evs.filter((e) => e.type === "cell-failed"),
          name,
        ).toEqual([]);
        // cells.jsonl whole (every line parses) and every planned cell measured ok, once.
        const planned = (evs.find((e) => e.type === "plan-ready")!.cells as Array<{ key: string }>).map((c) => c.key);
        const measured = (await readCells(dir)).filter((c) => c.phase === "measure");
        expect(measured.map((c) => `${c.key} ${c.status}`).sort(), name).toEqual(planned.map((k) => `${k} ok`).sort());
        expect(planned, name).toHaveLength(2);
      }
      // The same absolute path inside and outside the container: the folder is on the host.
      expect(existsSync(join(out, "run.json"))).toBe(true);

      for (const runId of [boxedId, hostId]) {
        expect(await leftovers(runId), runId).toEqual({ containers: [], networks: [], volumes: [] });
        expect(await stateFiles(runId), runId).toEqual([]);
      }
      expect(await sessionLabelled()).toEqual(before);
      console.log(
        `[compose] container run beside a host run: ${((Date.now() - t0) / 1000).toFixed(0)} s (host run started at ${((hostT0 - t0) / 1000).toFixed(0)} s)`,
      );
    } finally {
      await rm(out, { recursive: true, force: true });
      await rm(host.dir, { recursive: true, force: true });
    }
  }, 1_600_000);
});
