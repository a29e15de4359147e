/**
 * `npm run bench -- --only noise`: what each noise lever buys, as an A/A experiment of MariaDB 11.8 against itself
 * (scenarios/aa-mariadb.yaml's settings: tmpfs, server cpuset 1, load cpuset 0, 512M pool, 4 × 10,000 rows;
 * oltp_point_select and oltp_update_non_index at 1 thread), in blocks:
 *   M  the manual reference: what a careful person does by hand with the plain docker CLI. Two plain containers of
 *      the same image with the same rendered my.cnf and data on tmpfs, sysbench's image on the load CPU through the
 *      socket volume, prepare, then pairs in ABBA order, no pausing, no twinbench run loop;
 *   L  a lab arm: runScenario with the lab defaults or one lever changed (bench/lib/noise.ts NOISE_ARMS).
 * Schedule M, L, M, L, …, M with the arms in a seeded random order. Figures (pair sd and ratios with intervals) are
 * pure (bench/lib/noise.ts); this file does the Docker work and writes bench/results/<date>-noise.{json,md}.
 */
import { availableParallelism, cpus, hostname, loadavg, tmpdir } from "node:os";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { execa } from "execa";
import { CancelledError, TwinbenchError } from "../src/core/base/errors.ts";
import { LABEL, resourceLabels, resourceName } from "../src/core/base/labels.ts";
import { parseDuration, parseSize, type Scenario } from "../src/core/model/scenario/schema.ts";
import { sysbenchArgv } from "../src/core/model/scenario/argv.ts";
import { parseSysbench } from "../src/core/model/sysbench/parse.ts";
import { buildRatioTable } from "../src/core/stats/ratio.ts";
import { measureRecords } from "../src/core/stats/records.ts";
import {
  DEFAULT_NOISE_ARMS,
  NOISE_ARMS,
  NOISE_COST,
  detectableSdRatio,
  formatSd,
  formatSdRatio,
  noiseSchedule,
  noiseTable,
  pairsForBudget,
  scheduleSeconds,
  type NoiseBlock,
  type NoiseCost,
} from "./lib/noise.ts";
import { runScenario, type RunDeps } from "../src/app/run.ts";
import { labServerInit, SOCKET, SOCKET_DIR, CNF_PATH, DATADIR } from "../src/app/lab-server-init.ts";
import { mysql2Probe } from "../src/adapters/mysql/probe.ts";
import { readResultsFolder } from "../src/adapters/report-files.ts";
import { loadScenarioFile } from "../src/adapters/scenario-file.ts";
import { plainLine } from "../src/cli/plain.ts";
import * as R from "./render.ts";

export interface NoiseOptions {
  root: string;
  outDir: string;
  smoke: boolean;
  /** Pairs per arm and cell; undefined: the most that fit the budget. */
  pairs?: number;
  /** Base cell length, seconds. */
  seconds?: number;
  arms?: string[];
  seed?: number;
  long: boolean;
  /** Budget of the whole experiment when --pairs is not given, seconds. */
  budgetSeconds: number;
  keep: boolean;
  deps: (imageMode: Scenario["imageMode"]) => Promise<RunDeps>;
  lockImages: string[];
}

const TESTS = ["oltp_point_select", "oltp_update_non_index"];
const THREADS = [1];
const BENCH_USER = "sbtest";
const BENCH_DB = "sbtest";

/** The docker CLI with an argv array; a non-zero exit throws with the command and its stderr. */
async function docker(args: string[], signal?: AbortSignal): Promise<string> {
  const r = await execa("docker", args, { reject: false, stdin: "ignore", cancelSignal: signal });
  if (r.isCanceled || signal?.aborted) throw new CancelledError();
  if (r.exitCode !== 0)
    throw new TwinbenchError(
      `docker ${args.slice(0, 2).join(" ")} failed (exit ${r.exitCode}): ${String(r.stderr).trim().split("\n").slice(-3).join(" | ")}`,
      {
        code: "BENCH_MANUAL",
        hint: "the manual reference uses the plain docker CLI against the local engine",
      },
    );
  return String(r.stdout).trim();
}

const labelArgs = (labels: Record<string, string>) =>
  Object.entries(labels).flatMap(([k, v]) => ["--label", `${k}=${v}`]);

/** Remove every container and volume of one manual block by its run label (idempotent; also after Ctrl-C). */
async function removeManual(runId: string): Promise<string[]> {
  const failed: string[] = [];
  const filter = ["--filter", `label=${LABEL.run}=${runId}`];
  const ids = (await docker(["ps", "-aq", ...filter]).catch((e: Error) => (failed.push(e.message), "")))
    .split("\n")
    .filter(Boolean);
  if (ids.length) await docker(["rm", "-f", "-v", ...ids]).catch((e: Error) => failed.push(e.message));
  const vols = (await docker(["volume", "ls", "-q", ...filter]).catch((e: Error) => (failed.push(e.message), "")))
    .split("\n")
    .filter(Boolean);
  if (vols.length) await docker(["volume", "rm", "-f", ...vols]).catch((e: Error) => failed.push(e.message));
  return failed;
}

interface ManualCtx {
  scenario: Scenario;
  neutralCnf: string;
  serverImage: { family: "mariadb" | "mysql"; version: string; tag: string };
  loadTag: string;
  runId: string;
  sessionId: string;
  workDir: string;
  pairs: number;
  seconds: number;
  signal: AbortSignal;
  log: (l: string) => void;
}

/**
 * One manual block: two plain containers a and b, prepare, prewarm, a warm-up per server and test, then `pairs`
 * pairs per cell in ABBA order. Returns ln(a/b) of q/s per cell ("test/threads").
 */
async function manualBlock(m: ManualCtx): Promise<Record<string, number[]>> {
  const { scenario, signal } = m;
  const labelCtx = { sessionId: m.sessionId, runId: m.runId, hostId: "local", pid: process.pid, hostname: hostname() };
  const labels = (role: string, server?: string) =>
    resourceLabels(labelCtx, { [LABEL.role]: role, ...(server ? { [LABEL.server]: server } : {}) });
  const rootPw = `tb${randomBytes(8).toString("hex")}`;
  const benchPw = `tb${randomBytes(8).toString("hex")}`;
  const tmpfsBytes = scenario.storage.kind === "tmpfs" ? parseSize(scenario.storage.size)! : 2 * 2 ** 30;
  const servers = ["a", "b"] as const;
  const sock: Record<string, string> = {};
  for (const id of servers) {
    const spec = scenario.servers.find((s) => s.id === id)!;
    const { rendered } = labServerInit({
      scenario,
      spec,
      image: m.serverImage,
      neutralCnf: m.neutralCnf,
      runId: m.runId,
      sessionId: m.sessionId,
      runDir: m.workDir,
      labels: (x) => resourceLabels(labelCtx, x),
    });
    const cnf = join(m.workDir, `${m.runId}-${id}.cnf`);
    await writeFile(cnf, rendered.cnf);
    await chmod(cnf, 0o644); // mysqld ignores a world-writable option file
    sock[id] = resourceName(m.runId, id, "sock");
    await docker(["volume", "create", ...labelArgs(labels("socket", id)), sock[id]!], signal);
    const name = resourceName(m.runId, id, "server");
    await docker(
      [
        "run",
        "-d",
        "--name",
        name,
        ...labelArgs(labels("server", id)),
        ...(scenario.resources.server.cpuset ? ["--cpuset-cpus", scenario.resources.server.cpuset] : []),
        ...(scenario.resources.server.memory !== undefined
          ? ["--memory", String(parseSize(scenario.resources.server.memory))]
          : []),
        "--mount",
        `type=tmpfs,dst=${DATADIR},tmpfs-size=${tmpfsBytes}`,
        "--mount",
        `type=volume,src=${sock[id]},dst=${SOCKET_DIR}`,
        "--mount",
        `type=bind,src=${cnf},dst=${CNF_PATH},readonly`,
        "-e",
        `${m.serverImage.family === "mysql" ? "MYSQL" : "MARIADB"}_ROOT_PASSWORD=${rootPw}`,
        m.serverImage.tag,
        `--defaults-file=${CNF_PATH}`,
      ],
      signal,
    );
    const ip = await docker(["inspect", "-f", "{{.NetworkSettings.IPAddress}}", name], signal);
    const ep = { host: ip, port: 3306, user: "root", password: rootPw };
    await mysql2Probe.waitReady(ep, {
      deadlineMs: 180_000,
      signal,
      alive: async () => (await docker(["inspect", "-f", "{{.State.Running}}", name])) === "true",
    });
    await mysql2Probe.createBenchUser(ep, {
      user: BENCH_USER,
      password: benchPw,
      db: BENCH_DB,
      charset: "utf8mb4",
      collation: "utf8mb4_general_ci",
    });
  }
  const conn = { socket: SOCKET, user: BENCH_USER, password: benchPw, db: BENCH_DB };
  const sysbench = async (id: string, argv: string[]): Promise<string> =>
    docker(
      [
        "run",
        "--rm",
        "--name",
        resourceName(m.runId, id, "load", randomBytes(3).toString("hex")),
        ...labelArgs(labels("load", id)),
        ...(scenario.resources.load.cpuset ? ["--cpuset-cpus", scenario.resources.load.cpuset] : []),
        "--network",
        "none",
        "--mount",
        `type=volume,src=${sock[id]},dst=${SOCKET_DIR}`,
        "-w",
        "/usr/share/sysbench",
        "--entrypoint",
        "sysbench",
        m.loadTag,
        ...argv,
      ],
      signal,
    );
  const w = scenario.workload;
  for (const id of servers) {
    await sysbench(
      id,
      sysbenchArgv({
        script: "oltp_common",
        command: "prepare",
        workload: w,
        threads: Math.max(1, Math.min(w.tables, 4)),
        connection: conn,
        percentile: w.percentile,
        histogram: false,
      }),
    );
    await sysbench(
      id,
      sysbenchArgv({
        script: "oltp_common",
        command: "prewarm",
        workload: w,
        threads: 1,
        connection: conn,
        percentile: w.percentile,
        histogram: false,
      }),
    );
  }
  const warm = parseDuration(w.warmup) ?? 0;
  const cells: Record<string, number[]> = {};
  for (const test of w.tests) {
    if (warm > 0)
      for (const id of servers)
        await sysbench(
          id,
          sysbenchArgv({
            script: test,
            command: "run",
            workload: w,
            threads: Math.max(...w.threads),
            durationSeconds: warm,
            connection: conn,
            percentile: w.percentile,
            histogram: false,
          }),
        );
    for (const threads of w.threads) {
      const ds: number[] = [];
      for (let p = 0; p < m.pairs; p++) {
        const q: Record<string, number> = {};
        for (const id of p % 2 === 0 ? servers : [...servers].reverse()) {
          const out = await sysbench(
            id,
            sysbenchArgv({
              script: test,
              command: "run",
              workload: w,
              threads,
              durationSeconds: m.seconds,
              connection: conn,
              percentile: w.percentile,
              histogram: false,
            }),
          );
          const qps = parseSysbench(out).qps;
          if (!(typeof qps === "number" && qps > 0))
            throw new TwinbenchError(`manual ${id} ${test}: no q/s in sysbench's output`, {
              code: "BENCH_MANUAL",
              hint: "see the sysbench output",
            });
          q[id] = qps;
        }
        ds.push(Math.log(q.a! / q.b!));
      }
      cells[`${test}/${threads}`] = ds;
      m.log(`  manual ${test} t${threads}: ${ds.map((d) => (Math.exp(d) * 100).toFixed(1)).join(" ")}`);
    }
  }
  return cells;
}

/** Lab block: its cells.jsonl as ln(a/b) of q/s per cell (trimmed q/s when the arm trims), plus its flags. */
function labCells(folder: Awaited<ReturnType<typeof readResultsFolder>>): {
  cells: Record<string, number[]>;
  notSteady: number;
  quiesceSeconds: number[];
} {
  const table = buildRatioTable(folder.manifest, folder.cells);
  if (!table)
    throw new TwinbenchError("lab A/A run has no two servers to compare", {
      code: "BENCH_AA",
      hint: "the noise bench needs servers a and b",
    });
  const cells: Record<string, number[]> = {};
  let notSteady = 0;
  for (const row of table.rows)
    for (const c of row.cells) {
      const ds: number[] = [];
      c.numeratorValues.forEach((a, i) => {
        const b = c.denominatorValues[i];
        if (a !== null && b !== null && b !== undefined) ds.push(Math.log(a / b));
      });
      cells[`${row.test}/${c.threads}`] = ds;
      notSteady += c.unstable.filter((u) => u.includes("not steady")).length;
    }
  // One wait per measured write cell, its last attempt (as the figures): a pair re-run because outside work disturbed
  // it waited again, but the block's wait per cell is what the arm costs.
  const quiesceSeconds = measureRecords(folder.cells).flatMap((r) =>
    r.quiesceSeconds !== undefined ? [r.quiesceSeconds] : [],
  );
  return { cells, notSteady, quiesceSeconds };
}

export async function noiseBench(o: NoiseOptions): Promise<number> {
  const out = (l = "") => process.stdout.write(l + "\n");
  const log = (l: string) => process.stderr.write(l + "\n");
  const started = new Date();
  const stamp = started.toISOString().replace(/[-:]/g, "").replace(/\..*/, "").replace("T", "-");
  const known = NOISE_ARMS.map((a) => a.id);
  const arms = o.arms ?? (o.smoke ? ["defaults", "quiesce"] : [...DEFAULT_NOISE_ARMS, ...(o.long ? ["len60"] : [])]);
  for (const a of arms)
    if (!known.includes(a))
      throw new TwinbenchError(`--arms: unknown arm "${a}"`, {
        code: "BENCH_ARGS",
        hint: `use some of ${known.join(", ")}`,
      });
  if (arms.includes("len60") && !o.long && !o.arms)
    throw new TwinbenchError("--arms len60 needs --long", { code: "BENCH_ARGS", hint: "add --long" });
  const seed = o.seed ?? started.getTime() % 2 ** 31;
  const seconds = o.seconds ?? (o.smoke ? 2 : 5);
  const warmup = o.smoke ? "1s" : "3s";
  const schedule = noiseSchedule(arms, seed);
  const cost: Omit<NoiseCost, "pairs"> = {
    tests: TESTS.length,
    threads: THREADS.length,
    seconds,
    warmupSeconds: parseDuration(warmup)!,
    ...NOISE_COST,
  };
  const pairs = o.pairs ?? (o.smoke ? 2 : pairsForBudget(schedule, cost, o.budgetSeconds));
  if (!(Number.isInteger(pairs) && pairs >= 2))
    throw new TwinbenchError(`--pairs: expected an integer of at least 2, got ${pairs}`, {
      code: "BENCH_ARGS",
      hint: "pairs per arm and cell; residuals need 2 or more",
    });
  const expected = scheduleSeconds(schedule, { ...cost, pairs });
  const manualBlocks = schedule.filter((b) => b.kind === "manual").length;
  const dfArm = TESTS.length * THREADS.length * (pairs - 1);
  const detect = detectableSdRatio(dfArm, dfArm);
  const detectManual = detectableSdRatio(dfArm, dfArm * manualBlocks);
  out(
    `== noise: A/A MariaDB 11.8, ${TESTS.join(" + ")} at ${THREADS.join(",")} thread; ${arms.length} lab arms (${schedule
      .filter((b) => b.kind === "lab")
      .map((b) => b.arm)
      .join(", ")}; seed ${seed}) and ${manualBlocks} manual blocks, interleaved`,
  );
  out(
    `   ${pairs} pairs per arm and cell of ${seconds} s; expected duration ${R.hms(expected)} (budget ${R.hms(o.budgetSeconds)}${o.pairs ? ", --pairs given" : ""})`,
  );
  out(
    `   what it can see (95%, power 80%): an arm's pair sd ×${detect.toFixed(2)} against lab defaults, ×${detectManual.toFixed(2)} against the manual reference (df ${dfArm} per arm, ${dfArm * manualBlocks} manual)`,
  );

  const work = await mkdtemp(join(tmpdir(), "twinbench-noise-"));
  const ac = new AbortController();
  const onSigint = () => {
    log("noise: cancelling (cleaning up)...");
    ac.abort();
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigint);
  const sets = [
    `workload.tests=[${TESTS.join(",")}]`,
    `workload.threads=[${THREADS.join(",")}]`,
    `workload.repeats=${pairs}`,
    `workload.warmup=${warmup}`,
    // Smoke runs check code paths, not figures: one table of 1000 rows keeps every block's prepare short.
    ...(o.smoke ? ["workload.tables=1", "workload.tableSize=1000"] : []),
  ];
  const file = "scenarios/aa-mariadb.yaml";
  const load = (extra: string[]) =>
    loadScenarioFile(join(o.root, file), {
      sets: [...sets, ...extra],
      lockImages: o.lockImages,
      hostCpus: availableParallelism(),
    });
  const sessionId = randomBytes(6).toString("hex");
  const blocks: Array<
    NoiseBlock & { wallSeconds: number; runId: string; notSteady?: number; quiesceSeconds?: number[] }
  > = [];
  const failures: Array<{ block: number; arm: string; error: string }> = [];
  let cancelled = false;
  try {
    const base = (await load([`workload.duration=${seconds}s`])).scenario;
    const neutralCnf = await readFile(resolve(o.root, base.config.base), "utf8");
    const deps = await o.deps(base.imageMode);
    const img = await deps.ensureImage(base.servers[0]!.image, () => undefined, ac.signal);
    const loadImg = await deps.ensureImage("sysbench-1.0", () => undefined, ac.signal);
    if (img.family === "sysbench")
      throw new TwinbenchError("aa-mariadb's server image is the load image", {
        code: "BENCH_SERVER",
        hint: "check scenarios/aa-mariadb.yaml",
      });
    for (const [index, b] of schedule.entries()) {
      if (ac.signal.aborted) throw new CancelledError();
      const arm = NOISE_ARMS.find((a) => a.id === b.arm);
      const secs = arm?.seconds ?? seconds;
      const runId = `bench-${stamp}-n${index}-${b.arm}-${randomBytes(2).toString("hex")}`;
      const t0 = Date.now();
      log(
        `noise: block ${index + 1}/${schedule.length}: ${b.kind === "manual" ? "manual reference" : `lab ${b.arm}`} (${secs} s cells)`,
      );
      try {
        if (b.kind === "manual") {
          try {
            const cells = await manualBlock({
              scenario: base,
              neutralCnf,
              serverImage: { family: img.family, version: img.version, tag: img.tag },
              loadTag: loadImg.tag,
              runId,
              sessionId,
              workDir: work,
              pairs,
              seconds,
              signal: ac.signal,
              log,
            });
            blocks.push({
              index,
              kind: "manual",
              arm: "manual",
              seconds,
              cells,
              wallSeconds: (Date.now() - t0) / 1000,
              runId,
            });
          } finally {
            const left = await removeManual(runId);
            if (left.length) log(`noise: clean-up of ${runId}: ${left.join("; ")}`);
          }
        } else {
          const sc = (await load([`workload.duration=${secs}s`, ...arm!.sets])).scenario;
          const dir = join(work, runId);
          const sum = await runScenario(await o.deps(sc.imageMode), {
            scenario: sc,
            scenarioFile: file,
            overrides: [...sets, ...arm!.sets],
            neutralCnf,
            outDir: dir,
            runId,
            signal: ac.signal,
            // A lever arm is an experiment, not the host's usual noise: it must not move the host's calibration.
            updateCalibration: false,
            onEvent: (e) => {
              const l = plainLine(e);
              if (l !== undefined && (e.type === "warning" || e.type === "cell-failed" || e.type === "run-finished"))
                log(`  ${l}`);
            },
          });
          if (sum.status !== "ok")
            throw new TwinbenchError(`lab arm ${b.arm}: run ${sum.status} (${sum.cellsFailed} cells failed)`, {
              code: "BENCH_RUN_PARTIAL",
              hint: `see ${dir}`,
            });
          const lab = labCells(await readResultsFolder(dir));
          blocks.push({
            index,
            kind: "lab",
            arm: b.arm,
            seconds: secs,
            ...lab,
            wallSeconds: (Date.now() - t0) / 1000,
            runId,
          });
          for (const [k, ds] of Object.entries(lab.cells))
            log(`  lab ${b.arm} ${k}: ${ds.map((d) => (Math.exp(d) * 100).toFixed(1)).join(" ")}`);
        }
      } catch (e) {
        if (e instanceof CancelledError || ac.signal.aborted) throw e;
        failures.push({ block: index, arm: b.arm, error: (e as Error).message });
        log(`noise: block ${index + 1} (${b.arm}) failed: ${(e as Error).message}`);
      }
    }
  } catch (e) {
    if (!(e instanceof CancelledError || ac.signal.aborted)) throw e;
    cancelled = true;
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
    if (!o.keep) await rm(work, { recursive: true, force: true });
    else log(`noise: scratch results kept in ${work}`);
  }

  const labels = Object.fromEntries(
    NOISE_ARMS.map((a) => [
      a.id,
      a.id === "len20" || a.id === "len60" ? `${a.label} (manual reference at ${seconds} s)` : a.label,
    ]),
  );
  const table = noiseTable(blocks, arms, labels);
  const wall = (Date.now() - started.getTime()) / 1000;
  const rows = table.map((r) => {
    const own = blocks.filter((b) => b.arm === r.arm);
    const qs = own.flatMap((b) => b.quiesceSeconds ?? []);
    return [
      r.arm,
      r.label,
      String(r.sd?.pairs ?? 0),
      formatSd(r.sd),
      formatSdRatio(r.vsManual),
      formatSdRatio(r.vsDefaults),
      String(own.reduce((s, b) => s + (b.notSteady ?? 0), 0)),
      qs.length ? (qs.reduce((s, x) => s + x, 0) / qs.length).toFixed(1) : "-",
    ];
  });
  const tbl = {
    header: ["arm", "what", "pairs", "pair sd (95%)", "vs manual", "vs lab defaults", "not steady", "quiesce s"],
    rows,
  };
  const head = `Noise levers: A/A MariaDB 11.8 (aa-mariadb settings), ${TESTS.join(" + ")} at ${THREADS.join(",")} thread, ${pairs} pairs per arm and cell of ${seconds} s, seed ${seed}; pair sd = sd of ln(a/b) within each cell × block, ratios of pair sds with 95% F intervals`;
  out(`\n== ${head}`);
  for (const l of R.asText(tbl)) out(l);
  out(
    `wall time ${R.hms(wall)} (expected ${R.hms(expected)})${cancelled ? "; CANCELLED, partial figures" : ""}${failures.length ? `; ${failures.length} block(s) failed` : ""}`,
  );
  const result = {
    date: started.toISOString(),
    smoke: o.smoke,
    machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model, loadavgAtEnd: loadavg() },
    settings: {
      arms,
      seed,
      pairs,
      seconds,
      warmup,
      tests: TESTS,
      threads: THREADS,
      budgetSeconds: o.budgetSeconds,
      schedule,
      cost: NOISE_COST,
    },
    expectedSeconds: expected,
    detectable: { vsDefaults: detect, vsManual: detectManual, dfPerArm: dfArm },
    blocks,
    table,
    failures,
    cancelled,
    seconds: wall,
  };
  const md = [
    `# twinbench noise bench ${started.toISOString()}${o.smoke ? " (smoke)" : ""}`,
    "",
    head + ".",
    "",
    ...R.asMarkdown(tbl),
    "",
    `- An interval containing 1 means no measurable effect. With ${pairs} pairs per cell this experiment detects (95%, power 80%) a pair sd ×${detect.toFixed(2)} against lab defaults and ×${detectManual.toFixed(2)} against the manual reference.`,
    `- Blocks in order: ${schedule.map((b) => b.arm).join(", ")}. Wall time ${R.hms(wall)}, expected ${R.hms(expected)}.`,
    ...(failures.length
      ? [`- Failed blocks: ${failures.map((f) => `${f.block + 1} ${f.arm}: ${f.error}`).join("; ")}`]
      : []),
    "",
  ];
  await mkdir(o.outDir, { recursive: true });
  const date = started.toISOString().slice(0, 10);
  const jsonPath = join(o.outDir, `${date}-noise.json`);
  await writeFile(jsonPath, JSON.stringify(result, null, 2) + "\n");
  await writeFile(join(o.outDir, `${date}-noise.md`), md.join("\n"));
  out(`noise: results ${jsonPath}`);
  if (cancelled) throw new CancelledError();
  return failures.length || blocks.length < schedule.length ? 1 : 0;
}
