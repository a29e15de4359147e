/**
 * `npm run bench`: measure the lab itself and write bench/results/<date>.json (+ <date>.md with the tables).
 *   1. transport overhead: one MariaDB server, sysbench over socket / loopback / bridge / host sysbench, interleaved;
 *   2. lab overhead: scenarios/quick.yaml through runScenario, wall time split from run.json `timings`;
 *   3. A/A noise: scenarios/aa-mariadb.yaml, the report model's ratio table, and the repeats a ±2% interval needs.
 *
 * Options: --smoke (tiny settings, results in bench/results/smoke/), --out-dir DIR, --rounds N, --seconds S,
 * --only transport,lab,aa, --keep (keep the scratch results folders).
 * Not part of `npm test` (timings on a shared machine are noisy); test/integration/bench-smoke.test.ts runs --smoke.
 */
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import { ScenarioSchema, parseDuration } from "../src/core/scenario/schema.ts";
import type { Scenario } from "../src/core/scenario/schema.ts";
import type { HostFacts } from "../src/core/results.ts";
import { TwinbenchError } from "../src/core/errors.ts";
import { buildRatioTable, metricValue } from "../src/core/report/ratio.ts";
import { aaNoise, defaultTransportVerdict, labSplit, noiseModel, orderEffect, project, repeatAdvice, transportRows, type LabSplit, type Projection } from "../src/core/bench/figures.ts";
import { runScenario, type RunDeps } from "../src/app/run.ts";
import { loadDeps } from "../src/cli/commands/shared.ts";
import { cliContext } from "../src/cli/context.ts";
import { plainLine } from "../src/cli/plain.ts";
import { loadLock } from "../src/adapters/images/index.ts";
import { loadScenarioFile } from "../src/adapters/scenario-file.ts";
import { readResultsFolder } from "../src/adapters/report-files.ts";
import { ALL_TRANSPORTS, CONTAINER_TRANSPORTS, benchTransport } from "./transport.ts";
import * as R from "./render.ts";

const ROOT = resolve(new URL("..", import.meta.url).pathname);

interface Settings {
  smoke: boolean;
  rounds: number;
  seconds: number;
  transportTests: string[];
  transportThreads: number[];
  quickSets: string[];
  aaSets: string[];
}

function settings(smoke: boolean, rounds?: number, seconds?: number): Settings {
  const cores = availableParallelism();
  if (smoke)
    return {
      smoke,
      rounds: rounds ?? 1,
      seconds: seconds ?? 2,
      transportTests: ["oltp_point_select"],
      transportThreads: [...new Set([1, cores])],
      quickSets: ["workload.tests=[oltp_point_select]", "workload.threads=[1]", "workload.repeats=1", "workload.duration=2s", "workload.warmup=1s"],
      aaSets: ["workload.tests=[oltp_point_select]", "workload.threads=[1]", "workload.repeats=2", "workload.duration=2s", "workload.warmup=1s"],
    };
  return {
    smoke,
    // 5 rounds: with the rotation, each transport runs once in each position (drift cancels out of the medians).
    rounds: rounds ?? 5,
    seconds: seconds ?? 4,
    transportTests: ["oltp_point_select", "oltp_read_only"],
    transportThreads: [...new Set([1, cores])],
    quickSets: [],
    aaSets: [],
  };
}

/** Containers running now that this bench did not start: a sign that other work shares the machine. */
async function otherWork(deps: RunDeps, ownRuns: string[]): Promise<{ containers: number; loadavg: number[] }> {
  const list = await deps.engine.docker.listContainers();
  const others = list.filter((c) => !ownRuns.includes(c.Labels?.["twinbench.run"] ?? ""));
  return { containers: others.length, loadavg: loadavg().map((x) => Number(x.toFixed(2))) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      smoke: { type: "boolean", default: false },
      "out-dir": { type: "string" },
      rounds: { type: "string" },
      seconds: { type: "string" },
      only: { type: "string" },
      keep: { type: "boolean", default: false },
    },
  });
  const s = settings(values.smoke!, values.rounds ? Number(values.rounds) : undefined, values.seconds ? Number(values.seconds) : undefined);
  const only = new Set((values.only ?? "transport,lab,aa").split(",").map((x) => x.trim()));
  for (const x of only)
    if (!["transport", "lab", "aa"].includes(x)) throw new TwinbenchError(`--only: unknown measurement "${x}"`, { code: "BENCH_ARGS", hint: "use transport, lab, aa (comma separated)" });
  const outDir = resolve(values["out-dir"] ?? join(ROOT, "bench", "results", ...(s.smoke ? ["smoke"] : [])));
  const work = await mkdtemp(join(tmpdir(), "twinbench-bench-"));
  const out = (l = "") => process.stdout.write(l + "\n");
  const log = (l: string) => process.stderr.write(l + "\n");
  const started = new Date();
  const stamp = started.toISOString().replace(/[-:]/g, "").replace(/\..*/, "").replace("T", "-");
  const date = started.toISOString().slice(0, 10);

  const ac = new AbortController();
  const onSigint = () => {
    log("bench: cancelling (cleaning up)...");
    ac.abort();
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigint);

  const ctx = cliContext();
  const deps = await loadDeps(ctx, { ensureHost: false });
  const facts: HostFacts = await deps.engine.facts();
  const lock = await loadLock();
  const load = (file: string, sets: string[]) => loadScenarioFile(join(ROOT, file), { sets, lockImages: Object.keys(lock.images), hostCpus: availableParallelism() });
  const defaultTransport = ScenarioSchema.shape.load.parse(undefined).transport;
  const ownRuns: string[] = [];
  const before = await otherWork(deps, ownRuns);
  const result: Record<string, unknown> = {
    date: started.toISOString(),
    smoke: s.smoke,
    machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model, kernel: facts.kernel, os: facts.os, memoryBytes: facts.memoryBytes, docker: facts.dockerVersion, api: facts.apiVersion, storageDriver: facts.storageDriver, cgroup: facts.cgroupVersion },
    settings: s,
    otherWorkAtStart: before,
  };
  const md: string[] = [`# twinbench bench ${started.toISOString()}${s.smoke ? " (smoke)" : ""}`, ""];
  md.push(`Machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? "?"}), kernel ${facts.kernel}, ${facts.os}, Docker ${facts.dockerVersion} (${facts.storageDriver}, cgroup ${facts.cgroupVersion}).`);
  md.push(`Other work at start: ${before.containers} containers not started by the bench, load average ${before.loadavg.join(" ")}.`, "");
  const projections: Array<{ label: string; p: Projection }> = [];
  let split: LabSplit | undefined;
  const neutralFor = async (sc: Scenario) => readFile(resolve(ROOT, sc.config.base), "utf8");
  const eventLog = (e: Parameters<typeof plainLine>[0]) => {
    const l = plainLine(e);
    if (l !== undefined) log(`  ${l}`);
  };

  try {
    // ---- 1. Transport overhead ----
    if (only.has("transport")) {
      const quick = (await load("scenarios/quick.yaml", [])).scenario;
      const runId = `bench-${stamp}-tr-${randomBytes(2).toString("hex")}`;
      ownRuns.push(runId);
      await mkdir(join(work, "transport"), { recursive: true });
      const t0 = Date.now();
      const tr = await benchTransport(deps, {
        scenario: quick,
        neutralCnf: await neutralFor(quick),
        serverId: quick.servers.find((x) => x.image === "mariadb-11.8")?.id ?? quick.servers[0]!.id,
        rounds: s.rounds,
        seconds: s.seconds,
        tests: s.transportTests,
        threads: s.transportThreads,
        runId,
        workDir: join(work, "transport"),
        signal: ac.signal,
        log,
      });
      const rows = transportRows(tr.samples, ALL_TRANSPORTS);
      const verdict = defaultTransportVerdict(rows, defaultTransport, CONTAINER_TRANSPORTS, 3);
      const table = R.transportTable(rows, ALL_TRANSPORTS);
      const head = `Transport overhead: ${tr.serverVersion} (${tr.image}), server cpuset ${tr.pins.serverCpuset ?? "-"}, load cpuset ${tr.pins.loadCpuset ?? "-"}; median of ${s.rounds} interleaved rounds of ${s.seconds} s`;
      out(`\n== 1. ${head}`);
      for (const l of R.asText(table)) out(l);
      out(R.verdictLine(verdict));
      md.push("## Transport overhead", "", head + ".", "", ...R.asMarkdown(table), "", R.verdictLine(verdict) + ".", "");
      result.transport = { ...tr, rows, defaultVerdict: verdict, seconds: (Date.now() - t0) / 1000 };
      if (tr.teardownFailures.length) log(`transport teardown: ${tr.teardownFailures.join("; ")}`);
    }

    // ---- 2. Lab overhead ----
    if (only.has("lab")) {
      const loaded = await load("scenarios/quick.yaml", s.quickSets);
      const sc = loaded.scenario;
      const runId = `bench-${stamp}-quick-${randomBytes(2).toString("hex")}`;
      ownRuns.push(runId);
      const dir = join(work, "quick");
      log(`lab: running scenarios/quick.yaml ${s.quickSets.join(" ")}`);
      const sum = await runScenario(await loadDeps(ctx, { imageMode: sc.imageMode }), { scenario: sc, scenarioFile: "scenarios/quick.yaml", overrides: s.quickSets, neutralCnf: await neutralFor(sc), outDir: dir, runId, signal: ac.signal, onEvent: eventLog });
      const folder = await readResultsFolder(dir);
      split = labSplit(folder.manifest.timings ?? {}, folder.cells, sc.servers.length);
      const warm = parseDuration(sc.workload.warmup) ?? 0;
      const cellS = parseDuration(sc.workload.duration ?? "0") ?? 0;
      const quickAsRun = project(split, { tests: sc.workload.tests.length, threads: sc.workload.threads.length, servers: sc.servers.length, repeats: sc.workload.repeats, cellSeconds: cellS, warmupSeconds: warm });
      const seed = project(split, { tests: 8, threads: 7, servers: 2, repeats: 1, cellSeconds: 300, warmupSeconds: warm });
      result.lab = { status: sum.status, timings: folder.manifest.timings, split, projections: { quick: quickAsRun, seed } };
      const head = `Lab overhead: scenarios/quick.yaml${s.quickSets.length ? ` ${s.quickSets.join(" ")}` : ""} (${sum.status}, ${split.cells} cells)`;
      out(`\n== 2. ${head}`);
      for (const l of R.asText(R.splitTable(split))) out(l);
      for (const l of R.splitLines(split)) out(l);
      projections.push({ label: "quick.yaml (model, check)", p: quickAsRun }, { label: "seed matrix 8×7×2 × 300 s", p: seed });
      md.push("## Lab overhead", "", head + ".", "", ...R.asMarkdown(R.splitTable(split)), "", ...R.splitLines(split).map((l) => `- ${l.trim()}`), "");
    }

    // ---- 3. A/A noise ----
    if (only.has("aa")) {
      const loaded = await load("scenarios/aa-mariadb.yaml", s.aaSets);
      const sc = loaded.scenario;
      const runId = `bench-${stamp}-aa-${randomBytes(2).toString("hex")}`;
      ownRuns.push(runId);
      const dir = join(work, "aa");
      log(`aa: running scenarios/aa-mariadb.yaml ${s.aaSets.join(" ")}`);
      const sum = await runScenario(await loadDeps(ctx, { imageMode: sc.imageMode }), { scenario: sc, scenarioFile: "scenarios/aa-mariadb.yaml", overrides: s.aaSets, neutralCnf: await neutralFor(sc), outDir: dir, runId, signal: ac.signal, onEvent: eventLog });
      const folder = await readResultsFolder(dir);
      const table = buildRatioTable(folder.manifest, folder.cells);
      if (!table) throw new TwinbenchError("A/A run has no two servers to compare", { code: "BENCH_AA", hint: "scenarios/aa-mariadb.yaml must list servers a and b" });
      const cellS = parseDuration(sc.workload.duration ?? "0") ?? 0;
      const noise = aaNoise(table, folder.cells, cellS);
      const order = orderEffect(folder.cells, table.numerator, table.denominator, (r) => metricValue(r.metrics, "qps"));
      const model = noiseModel(noise);
      const advice = model ? repeatAdvice(model, [5, 10, 20, 30, 60, 120, 300]) : [];
      result.aa = { status: sum.status, noise, order, model, advice, table: { threads: table.threads, rows: table.rows } };
      const head = `A/A noise: scenarios/aa-mariadb.yaml${s.aaSets.length ? ` ${s.aaSets.join(" ")}` : ""} (${sum.status}; ${sc.workload.repeats} repeats of ${cellS} s, warm-up ${sc.workload.warmup})`;
      out(`\n== 3. ${head}`);
      for (const l of R.asText(R.aaTable(table))) out(l);
      for (const l of R.aaLines(noise, order)) out(l);
      if (advice.length) {
        out("repeats for a ±2% (95%) interval of the ratio on this machine:");
        for (const l of R.asText(R.adviceTable(advice))) out(l);
      }
      md.push("## A/A noise", "", head + ".", "", ...R.asMarkdown(R.aaTable(table)), "", ...R.aaLines(noise, order).map((l) => `- ${l}`), "");
      if (advice.length) md.push("Repeats for a ±2% (95%) interval of the ratio:", "", ...R.asMarkdown(R.adviceTable(advice)), "");
      // The seed projection with the repeats a ±2% interval needs at 300 s.
      const at300 = advice.find((a) => a.seconds === 300);
      if (split && projections[1] && at300?.repeats) {
        const pr = project(split, { tests: 8, threads: 7, servers: 2, repeats: at300.repeats, cellSeconds: 300, warmupSeconds: projections[1].p.warmupSeconds });
        projections.push({ label: `seed matrix × ${at300.repeats} repeats (±2% at 300 s)`, p: pr });
        (result.lab as { projections: Record<string, Projection> }).projections.seedRepeats = pr;
      }
    }

    if (projections.length) {
      out("\n== 2b. Projection with the measured overheads");
      for (const l of R.asText(R.projectionTable(projections))) out(l);
      const i = md.indexOf("## A/A noise");
      const block = ["Projection with the measured overheads:", "", ...R.asMarkdown(R.projectionTable(projections)), ""];
      if (i >= 0) md.splice(i, 0, ...block);
      else md.push(...block);
    }
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
    result.otherWorkAtEnd = await otherWork(deps, ownRuns).catch(() => undefined);
    result.runIds = ownRuns;
    result.seconds = (Date.now() - started.getTime()) / 1000;
    if (!values.keep) await rm(work, { recursive: true, force: true });
    else log(`scratch results kept in ${work}`);
  }
  const end = result.otherWorkAtEnd as { containers: number; loadavg: number[] } | undefined;
  md.push(`Other work at end: ${end?.containers ?? "?"} containers not started by the bench, load average ${end?.loadavg.join(" ") ?? "?"}. Bench wall time ${R.hms(result.seconds as number)}.`, "");
  await mkdir(outDir, { recursive: true });
  const jsonPath = join(outDir, `${date}.json`);
  await writeFile(jsonPath, JSON.stringify(result, null, 2) + "\n");
  await writeFile(join(outDir, `${date}.md`), md.join("\n"));
  out(`\nbench: ${R.hms(result.seconds as number)}; results ${jsonPath}`);
}

main().catch((e: unknown) => {
  const err = e as Error & { hint?: string; code?: string };
  process.stderr.write(`bench failed: ${err.message}${err.hint ? `\nhint: ${err.hint}` : ""}\n`);
  process.exitCode = 1;
});
