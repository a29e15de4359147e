/**
 * `npm run bench`: measure the lab itself and write bench/results/<date>.json (+ <date>.md with the tables).
 *   1. transport overhead: one MariaDB server, sysbench over socket / loopback / bridge / host sysbench, interleaved;
 *   2. lab overhead: scenarios/quick.yaml through runScenario, wall time split from run.json `timings`;
 *   3. A/A noise: scenarios/aa-mariadb.yaml, the report model's ratio table, and the repeats a ±2% interval needs.
 *
 * Options: --smoke (tiny settings, results in bench/results/smoke/), --out-dir DIR, --rounds N, --seconds S,
 * --only transport,lab,aa, --keep (keep the scratch results folders).
 * `--only noise` (alone) runs the noise-lever experiment instead (bench/noise.ts): --pairs N, --seconds S,
 * --arms a,b,c, --seed N, --long (adds 60 s cells), --budget 25m (sets the pairs when --pairs is not given), --smoke.
 * `--only forecast` (alone) runs nothing: it reports how often recorded runs' forecasts held (bench/forecast.ts),
 * over the run.json files under --results DIR (default results/).
 * `--only steady --results DIR` / `--only costs --results DIR` (alone) run nothing: the A/A pair sd of q/s by lead-in,
 * and of every cost per query next to q/s, from a recorded A/A run (bench/aa-dir.ts); --pair a,b, --lead-ins 0,1,2,3.
 * A measurement that fails (or whose run is partial) is tried once more; what still fails is recorded in the JSON
 * and makes the exit code 1, the other measurements still run.
 * Not part of `npm test` (timings on a shared machine are noisy); test/integration/bench-smoke.test.ts runs --smoke.
 */
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import { ScenarioSchema, parseDuration, plannedRepeats } from "../src/core/model/scenario/schema.ts";
import type { Scenario } from "../src/core/model/scenario/schema.ts";
import type { HostFacts } from "../src/core/model/results.ts";
import { CancelledError, TwinbenchError } from "../src/core/base/errors.ts";
import { buildRatioTable } from "../src/core/stats/ratio.ts";
import { metricValue } from "../src/core/stats/metric.ts";
import {
  aaNoise,
  defaultTransportVerdict,
  labSplit,
  noiseModel,
  orderEffect,
  project,
  repeatAdvice,
  transportRows,
  type LabSplit,
  type Projection,
} from "./lib/figures.ts";
import { runScenario, type RunDeps } from "../src/app/run.ts";
import { loadDeps } from "../src/cli/commands/shared.ts";
import { cliContext } from "../src/cli/context.ts";
import { plainLine } from "../src/cli/plain.ts";
import { loadLock } from "../src/adapters/images/index.ts";
import { loadScenarioFile } from "../src/adapters/scenario-file.ts";
import { readResultsFolder, type ResultsFolder } from "../src/adapters/report-files.ts";
import { ALL_TRANSPORTS, CONTAINER_TRANSPORTS, benchTransport } from "./transport.ts";
import * as R from "./render.ts";
import { noiseBench } from "./noise.ts";
import { forecastBench } from "./forecast.ts";
import { aaDirBench } from "./aa-dir.ts";

const ROOT = resolve(new URL("..", import.meta.url).pathname);
const SEED = { tests: 8, threads: 7, servers: 2, cellSeconds: 300 };

interface Settings {
  smoke: boolean;
  rounds: number;
  seconds: number;
  transportTests: string[];
  transportThreads: number[];
  /** --set values for the scenario the transport measurement takes its server, data and resources from. */
  transportSets: string[];
  quickSets: string[];
  aaSets: string[];
}

/**
 * Smoke runs check code paths, not figures: a tiny data set (one table of 1000 rows instead of 4 × 10000, no prewarm
 * in the runs) keeps each server's prepare short.
 */
const SMOKE_DATA = ["workload.tables=1", "workload.tableSize=1000", "workload.prewarm=false"];

function settings(smoke: boolean, rounds?: number, seconds?: number): Settings {
  const threads = [...new Set([1, availableParallelism()])];
  if (smoke)
    return {
      smoke,
      rounds: rounds ?? 1,
      seconds: seconds ?? 2,
      transportTests: ["oltp_point_select"],
      transportThreads: threads,
      transportSets: SMOKE_DATA,
      quickSets: [
        ...SMOKE_DATA,
        "workload.tests=[oltp_point_select]",
        "workload.threads=[1]",
        "workload.repeats=1",
        "workload.duration=2s",
        "workload.warmup=1s",
      ],
      aaSets: [
        ...SMOKE_DATA,
        "workload.tests=[oltp_point_select]",
        "workload.threads=[1]",
        "workload.repeats=2",
        "workload.duration=2s",
        "workload.warmup=1s",
      ],
    };
  return {
    smoke,
    // 5 rounds: with the rotation, each transport runs once in each position.
    rounds: rounds ?? 5,
    seconds: seconds ?? 4,
    transportTests: ["oltp_point_select", "oltp_read_only"],
    transportThreads: threads,
    transportSets: [],
    // The lab overhead is measured on quick.yaml's fixed-count layout (24 cells); its adaptive default would make
    // the cell count depend on the noise.
    quickSets: ["workload.repeats=2", "workload.budget=null"],
    aaSets: [],
  };
}

/** Containers running now that this bench did not start: a sign that other work shares the machine. */
async function otherWork(
  deps: RunDeps,
  ownRuns: readonly string[],
): Promise<{ containers: number; loadavg: number[] }> {
  const list = (await deps.engine.containers.list([])).filter((c) => c.state === "running");
  const others = list.filter((c) => !ownRuns.includes(c.labels["twinbench.run"] ?? ""));
  return { containers: others.length, loadavg: loadavg().map((x) => Number(x.toFixed(2))) };
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      smoke: { type: "boolean", default: false },
      "out-dir": { type: "string" },
      rounds: { type: "string" },
      seconds: { type: "string" },
      only: { type: "string" },
      keep: { type: "boolean", default: false },
      // --only noise (bench/noise.ts):
      pairs: { type: "string" },
      arms: { type: "string" },
      seed: { type: "string" },
      long: { type: "boolean", default: false },
      budget: { type: "string" },
      // --only forecast (bench/forecast.ts), --only steady / costs (bench/aa-dir.ts):
      results: { type: "string" },
      pair: { type: "string" },
      "lead-ins": { type: "string" },
    },
  });
  const alone = values.only?.trim();
  if (alone === "steady" || alone === "costs") {
    if (!values.results)
      throw new TwinbenchError(`--only ${alone} reads a recorded A/A run`, {
        code: "BENCH_ARGS",
        hint: `pass --results DIR (a results folder of scenarios/aa-mariadb.yaml; several comma separated)`,
      });
    return aaDirBench({
      kind: alone,
      results: values.results,
      pair: values.pair,
      leadIns: values["lead-ins"],
      out: (l) => process.stdout.write(l + "\n"),
    });
  }
  if (values.only?.trim() === "forecast")
    return forecastBench({
      resultsDir: resolve(values.results ?? join(ROOT, "results")),
      out: (l) => process.stdout.write(l + "\n"),
    });
  if (
    values.only
      ?.split(",")
      .map((x) => x.trim())
      .includes("noise")
  ) {
    if (values.only.trim() !== "noise")
      throw new TwinbenchError("--only noise runs alone", {
        code: "BENCH_ARGS",
        hint: "run `npm run bench -- --only noise` separately",
      });
    const num = (v: string | undefined, name: string) => {
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0)
        throw new TwinbenchError(`--${name}: expected a positive number, got "${v}"`, {
          code: "BENCH_ARGS",
          hint: `e.g. --${name} 4`,
        });
      return n;
    };
    const budget = values.budget === undefined ? 25 * 60 : parseDuration(values.budget);
    if (budget === undefined)
      throw new TwinbenchError(`--budget: expected a duration like "25m", got "${values.budget}"`, {
        code: "BENCH_ARGS",
        hint: "e.g. --budget 25m",
      });
    const ctx = cliContext();
    const lock = await loadLock();
    return noiseBench({
      root: ROOT,
      outDir: resolve(values["out-dir"] ?? join(ROOT, "bench", "results", ...(values.smoke ? ["smoke"] : []))),
      smoke: values.smoke!,
      pairs: num(values.pairs, "pairs"),
      seconds: num(values.seconds, "seconds"),
      arms: values.arms
        ?.split(",")
        .map((x) => x.trim())
        .filter(Boolean),
      seed: num(values.seed, "seed"),
      long: values.long!,
      budgetSeconds: budget,
      keep: values.keep!,
      deps: (imageMode) => loadDeps(ctx, { imageMode, ensureHost: false }),
      lockImages: Object.keys(lock.images),
    });
  }
  const s = settings(
    values.smoke!,
    values.rounds ? Number(values.rounds) : undefined,
    values.seconds ? Number(values.seconds) : undefined,
  );
  const only = new Set((values.only ?? "transport,lab,aa").split(",").map((x) => x.trim()));
  for (const x of only)
    if (!["transport", "lab", "aa"].includes(x))
      throw new TwinbenchError(`--only: unknown measurement "${x}"`, {
        code: "BENCH_ARGS",
        hint: "use transport, lab, aa (comma separated), or noise, forecast, steady or costs alone",
      });
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
  const load = (file: string, sets: string[]) =>
    loadScenarioFile(join(ROOT, file), {
      sets,
      lockImages: Object.keys(lock.images),
      hostCpus: availableParallelism(),
    });
  const defaultTransport = ScenarioSchema.shape.load.parse(undefined).transport;
  const ownRuns: string[] = [];
  const failures: Array<{ measurement: string; attempt: number; error: string }> = [];
  const before = await otherWork(deps, ownRuns);
  const result: Record<string, unknown> = {
    date: started.toISOString(),
    smoke: s.smoke,
    machine: {
      cpus: availableParallelism(),
      cpuModel: cpus()[0]?.model,
      kernel: facts.kernel,
      os: facts.os,
      memoryBytes: facts.memoryBytes,
      docker: facts.dockerVersion,
      api: facts.apiVersion,
      storageDriver: facts.storageDriver,
      cgroup: facts.cgroupVersion,
    },
    settings: s,
    otherWorkAtStart: before,
    failures,
    runIds: ownRuns,
  };
  const md: string[] = [`# twinbench bench ${started.toISOString()}${s.smoke ? " (smoke)" : ""}`, ""];
  md.push(
    `Machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? "?"}), kernel ${facts.kernel}, ${facts.os}, Docker ${facts.dockerVersion} (${facts.storageDriver}, cgroup ${facts.cgroupVersion}).`,
  );
  md.push(
    `Other work at start: ${before.containers} containers not started by the bench, load average ${before.loadavg.join(" ")}.`,
    "",
  );
  const sections: Record<"transport" | "lab" | "projection" | "aa", string[]> = {
    transport: [],
    lab: [],
    projection: [],
    aa: [],
  };
  const neutralFor = async (sc: Scenario) => readFile(resolve(ROOT, sc.config.base), "utf8");
  const eventLog = (e: Parameters<typeof plainLine>[0]) => {
    const l = plainLine(e);
    if (l !== undefined) log(`  ${l}`);
  };

  /** Run a measurement; try once more when it fails (another process may remove our containers on a shared host). */
  async function step<T>(name: string, fn: (attempt: number) => Promise<T>): Promise<T | undefined> {
    for (let attempt = 1; attempt <= 2; attempt++) {
      try {
        return await fn(attempt);
      } catch (e) {
        if (e instanceof CancelledError || ac.signal.aborted) throw e;
        const error = (e as Error).message;
        failures.push({ measurement: name, attempt, error });
        log(`bench: ${name} failed (attempt ${attempt}): ${error}`);
      }
    }
    return undefined;
  }

  /** runScenario on a scenario file; a run that is not "ok" is a failure (its figures would be incomplete). */
  async function scenarioRun(
    file: string,
    sets: string[],
    tag: string,
    attempt: number,
  ): Promise<{ sc: Scenario; folder: ResultsFolder }> {
    const sc = (await load(file, sets)).scenario;
    const runId = `bench-${stamp}-${tag}${attempt > 1 ? attempt : ""}-${randomBytes(2).toString("hex")}`;
    ownRuns.push(runId);
    const dir = join(work, `${tag}-${attempt}`);
    log(`${tag}: running ${file} ${sets.join(" ")}`);
    const sum = await runScenario(await loadDeps(ctx, { imageMode: sc.imageMode }), {
      scenario: sc,
      scenarioFile: file,
      overrides: sets,
      neutralCnf: await neutralFor(sc),
      outDir: dir,
      runId,
      signal: ac.signal,
      onEvent: eventLog,
      updateCalibration: false,
    });
    if (sum.status !== "ok")
      throw new TwinbenchError(`${file}: run ${sum.status} (${sum.cellsFailed} cells failed)`, {
        code: "BENCH_RUN_PARTIAL",
        hint: `see ${dir}`,
      });
    return { sc, folder: await readResultsFolder(dir) };
  }

  const projections: Array<{ label: string; p: Projection }> = [];
  let split: LabSplit | undefined;
  try {
    // ---- 1. Transport overhead ----
    if (only.has("transport")) {
      await step("transport", async (attempt) => {
        const quick = (await load("scenarios/quick.yaml", s.transportSets)).scenario;
        const runId = `bench-${stamp}-tr${attempt > 1 ? attempt : ""}-${randomBytes(2).toString("hex")}`;
        ownRuns.push(runId);
        const workDir = join(work, `transport-${attempt}`);
        await mkdir(workDir, { recursive: true });
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
          workDir,
          signal: ac.signal,
          log,
        });
        const rows = transportRows(tr.samples, ALL_TRANSPORTS);
        const verdict = defaultTransportVerdict(tr.samples, rows, defaultTransport, CONTAINER_TRANSPORTS, 3);
        const table = R.transportTable(rows, ALL_TRANSPORTS);
        const head = `Transport overhead: ${tr.serverVersion} (${tr.image}), server cpuset ${tr.pins.serverCpuset ?? "-"}, load cpuset ${tr.pins.loadCpuset ?? "-"} (host sysbench: taskset); median q/s of ${s.rounds} interleaved rounds of ${s.seconds} s, (%) = paired ratio to the best`;
        out(`\n== 1. ${head}`);
        for (const l of R.asText(table)) out(l);
        out(R.verdictLine(verdict));
        sections.transport = [
          "## Transport overhead",
          "",
          head + ".",
          "",
          ...R.asMarkdown(table),
          "",
          R.verdictLine(verdict) + ".",
          "",
        ];
        result.transport = { ...tr, rows, defaultVerdict: verdict, seconds: (Date.now() - t0) / 1000 };
        if (tr.teardownFailures.length) log(`transport teardown: ${tr.teardownFailures.join("; ")}`);
      });
    }

    // ---- 2. Lab overhead ----
    if (only.has("lab")) {
      await step("lab", async (attempt) => {
        const { sc, folder } = await scenarioRun("scenarios/quick.yaml", s.quickSets, "quick", attempt);
        split = labSplit(folder.manifest.timings ?? {}, folder.cells, sc.servers.length);
        const warm = parseDuration(sc.workload.warmup) ?? 0;
        const cellS = parseDuration(sc.workload.duration ?? "0") ?? 0;
        const asRun = project(split, {
          tests: sc.workload.tests.length,
          threads: sc.workload.threads.length,
          servers: sc.servers.length,
          repeats: plannedRepeats(sc.workload),
          cellSeconds: cellS,
          warmupSeconds: warm,
        });
        const seed = project(split, { ...SEED, repeats: 1, warmupSeconds: warm });
        projections.push(
          { label: "quick.yaml (model, check)", p: asRun },
          { label: "seed matrix 8×7×2 × 300 s", p: seed },
        );
        result.lab = {
          runId: folder.manifest.runId,
          timings: folder.manifest.timings,
          split,
          projections: { quick: asRun, seed },
        };
        const head = `Lab overhead: scenarios/quick.yaml${s.quickSets.length ? ` ${s.quickSets.join(" ")}` : ""} (${split.cells} cells of ${cellS} s, warm-up ${sc.workload.warmup})`;
        out(`\n== 2. ${head}`);
        for (const l of R.asText(R.splitTable(split))) out(l);
        for (const l of R.splitLines(split)) out(l);
        sections.lab = [
          "## Lab overhead",
          "",
          head + ".",
          "",
          ...R.asMarkdown(R.splitTable(split)),
          "",
          ...R.splitLines(split).map((l) => `- ${l.trim()}`),
          "",
        ];
      });
    }

    // ---- 3. A/A noise ----
    if (only.has("aa")) {
      await step("aa", async (attempt) => {
        const { sc, folder } = await scenarioRun("scenarios/aa-mariadb.yaml", s.aaSets, "aa", attempt);
        const table = buildRatioTable(folder.manifest, folder.cells);
        if (!table)
          throw new TwinbenchError("A/A run has no two servers to compare", {
            code: "BENCH_AA",
            hint: "scenarios/aa-mariadb.yaml must list servers a and b",
          });
        const cellS = parseDuration(sc.workload.duration ?? "0") ?? 0;
        const noise = aaNoise(table, folder.cells, cellS);
        const order = orderEffect(folder.cells, table.numerator, table.denominator, (r) =>
          metricValue(r.metrics, "qps"),
        );
        const model = noiseModel(noise);
        const advice = model ? repeatAdvice(model, [5, 10, 20, 30, 60, 120, 300]) : [];
        result.aa = {
          runId: folder.manifest.runId,
          noise,
          order,
          model,
          advice,
          table: { threads: table.threads, rows: table.rows },
        };
        const head = `A/A noise: scenarios/aa-mariadb.yaml${s.aaSets.length ? ` ${s.aaSets.join(" ")}` : ""} (${sc.workload.repeats} repeats of ${cellS} s, warm-up ${sc.workload.warmup}; ratio a/b of q/s)`;
        out(`\n== 3. ${head}`);
        for (const l of R.asText(R.aaTable(table))) out(l);
        for (const l of R.aaLines(noise, order)) out(l);
        sections.aa = [
          "## A/A noise",
          "",
          head + ".",
          "",
          ...R.asMarkdown(R.aaTable(table)),
          "",
          ...R.aaLines(noise, order).map((l) => `- ${l}`),
          "",
        ];
        if (advice.length) {
          out("repeats for a ±2% (95%) interval of the ratio on this machine:");
          for (const l of R.asText(R.adviceTable(advice))) out(l);
          sections.aa.push(
            "Repeats for a ±2% (95%) interval of the ratio:",
            "",
            ...R.asMarkdown(R.adviceTable(advice)),
            "",
          );
        }
        const at300 = advice.find((a) => a.seconds === SEED.cellSeconds);
        if (split && at300?.repeats && at300.repeats > 1) {
          const pr = project(split, {
            ...SEED,
            repeats: at300.repeats,
            warmupSeconds: projections[1]?.p.warmupSeconds ?? 0,
          });
          projections.push({ label: `seed matrix × ${at300.repeats} repeats (±2% at 300 s)`, p: pr });
          (result.lab as { projections: Record<string, Projection> }).projections.seedRepeats = pr;
        }
      });
    }

    if (projections.length) {
      out("\n== 2b. Projection with the measured overheads");
      for (const l of R.asText(R.projectionTable(projections))) out(l);
      sections.projection = [
        "Projection with the measured overheads:",
        "",
        ...R.asMarkdown(R.projectionTable(projections)),
        "",
      ];
    }
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
    result.otherWorkAtEnd = await otherWork(deps, ownRuns).catch(() => undefined);
    result.seconds = (Date.now() - started.getTime()) / 1000;
    if (!values.keep) await rm(work, { recursive: true, force: true });
    else log(`scratch results kept in ${work}`);
    const end = result.otherWorkAtEnd as { containers: number; loadavg: number[] } | undefined;
    md.push(...sections.transport, ...sections.lab, ...sections.projection, ...sections.aa);
    if (failures.length)
      md.push("Failures:", "", ...failures.map((f) => `- ${f.measurement} (attempt ${f.attempt}): ${f.error}`), "");
    md.push(
      `Other work at end: ${end?.containers ?? "?"} containers not started by the bench, load average ${end?.loadavg.join(" ") ?? "?"}. Bench wall time ${R.hms(result.seconds as number)}.`,
      "",
    );
    await mkdir(outDir, { recursive: true });
    const jsonPath = join(outDir, `${date}.json`);
    await writeFile(jsonPath, JSON.stringify(result, null, 2) + "\n");
    await writeFile(join(outDir, `${date}.md`), md.join("\n"));
    out(`\nbench: ${R.hms(result.seconds as number)}; results ${jsonPath}`);
  }
  const missing = [...only].filter((m) => result[m] === undefined);
  if (missing.length) log(`bench: no figures for ${missing.join(", ")} (see failures in the JSON)`);
  return missing.length ? 1 : 0;
}

// The script's entry point owns its exit code (like src/cli/main.ts for the CLI).
main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    const err = e as Error & { hint?: string };
    process.stderr.write(`bench failed: ${err.message}${err.hint ? `\nhint: ${err.hint}` : ""}\n`);
    process.exitCode = e instanceof CancelledError ? 130 : 1;
  },
);
