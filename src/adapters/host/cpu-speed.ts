/**
 * The speed probe: one worker thread per watched CPU, pinned to it (taskset on the thread's id), that four times a
 * second times a fixed piece of integer arithmetic (about 0.6 ms on this project's VM) twice, and gives the mean of
 * the tries that ran whole. A try during which the thread was switched out (the server's own threads share the CPU)
 * measures the scheduler, not the CPU: the thread's run count in /proc/thread-self/schedstat tells, and such a try is
 * dropped. The mean, not the fastest try: a CPU slowed by work on its physical core's other half is slowed on
 * average, and the fastest of several short tries would pick the moments in between. The probe costs about 0.5% of
 * each watched CPU, the same for every server of a pair. Its threads live in twinbench's process, so the
 * interference figures count their CPU time as twinbench's own, not as outside work. Local engine on Linux only: it
 * needs /proc/thread-self and taskset.
 */
import { Worker } from "node:worker_threads";
import type { SpeedSample } from "../../core/measure/speed.ts";

/** A running probe: its samples, why it stopped if it did, and its end. */
export interface SpeedProbe {
  /** The CPUs it watches. */
  readonly cpus: readonly number[];
  /** The samples taken within [fromMs, toMs] of this thread's performance.now() clock. */
  samples(fromMs: number, toMs: number): SpeedSample[];
  /** Why the probe stopped (a CPU it could not pin to, no /proc/thread-self, no taskset); undefined while it runs. */
  error(): string | undefined;
  /** Resolves once every CPU has given a sample or the probe has failed, or after `timeoutMs`. */
  ready(timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

/** Milliseconds between two samples of one CPU. */
const PERIOD_MS = 250;
/** Iterations of the fixed work: about 0.6 ms on a 2020s server CPU. */
const WORK_ITERATIONS = 1_500_000;
/** Tries per sample; the mean of those that ran whole counts. */
const TRIES = 2;
/** Samples kept per CPU (two hours at four a second): a cell's window is always among the latest. */
const KEEP = 28_800;

// CommonJS, evaluated as the worker's body. The thread pins itself, checks the pin took, opens its schedstat (the
// third field counts the times it was put on the CPU), warms the JIT up, then samples until it is terminated.
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const { execFileSync } = require("node:child_process");
const { cpu, period, iterations, tries } = workerData;
function pin() {
  const tid = fs.readlinkSync("/proc/thread-self").split("/").pop();
  execFileSync("taskset", ["-p", "-c", String(cpu), tid], { stdio: "ignore", timeout: 10000 });
  const allowed = /^Cpus_allowed_list:\\s*(\\S+)/m.exec(fs.readFileSync("/proc/thread-self/status", "utf8"));
  if (!allowed || allowed[1] !== String(cpu))
    throw new Error("the thread runs on CPUs " + (allowed ? allowed[1] : "?") + ", not " + cpu);
}
let stat;
const buf = Buffer.alloc(256);
function runCount() {
  const n = fs.readSync(stat, buf, 0, buf.length, 0);
  return buf.toString("latin1", 0, n).trim().split(/\\s+/)[2];
}
let sink = 0;
function work() {
  let x = 0;
  for (let i = 0; i < iterations; i++) x = (x + Math.imul(i, i)) | 0;
  sink ^= x;
}
function sample() {
  let sum = 0;
  let whole = 0;
  for (let k = 0; k < tries; k++) {
    const r0 = runCount();
    const a = performance.now();
    work();
    const d = performance.now() - a;
    if (runCount() === r0) {
      sum += d;
      whole++;
    }
  }
  if (whole > 0)
    parentPort.postMessage({ at: performance.timeOrigin + performance.now(), us: (sum / whole) * 1000, sink: sink & 1 });
}
let pinned = false;
try {
  pin();
  stat = fs.openSync("/proc/thread-self/schedstat", "r");
  if (runCount() === undefined) throw new Error("/proc/thread-self/schedstat has no run count");
  pinned = true;
} catch (e) {
  parentPort.postMessage({ error: "could not pin a thread to CPU " + cpu + " and read its run count: " + e.message });
}
if (pinned) {
  for (let k = 0; k < 50; k++) work();
  setInterval(sample, period);
}
`;

/**
 * Starts watching the given CPUs. Never throws: a CPU that cannot be watched stops the probe, and `error()` says
 * why (the run then says that speed is not watched, and goes on without it).
 */
export function startSpeedProbe(cpus: readonly number[]): SpeedProbe {
  const byCpu = new Map<number, SpeedSample[]>(cpus.map((c) => [c, []]));
  let failure: string | undefined;
  const workers: Worker[] = [];
  let settle: () => void = () => {};
  const settled = new Promise<void>((r) => (settle = r));
  const check = () => {
    if (failure || [...byCpu.values()].every((l) => l.length > 0)) settle();
  };
  const stopAll = async () => {
    await Promise.all(workers.map((w) => w.terminate()));
  };
  for (const cpu of cpus) {
    let w: Worker;
    try {
      w = new Worker(WORKER, {
        eval: true,
        workerData: { cpu, period: PERIOD_MS, iterations: WORK_ITERATIONS, tries: TRIES },
      });
    } catch (e) {
      // A worker that cannot start (resource limits) leaves the run unwatched, said by error(), never thrown.
      failure ??= `could not start the speed probe for CPU ${cpu}: ${(e as Error).message}`;
      break;
    }
    w.unref();
    workers.push(w);
    w.on("message", (m: { error?: string; at?: number; us?: number }) => {
      if (m.error) {
        failure ??= m.error;
        settle();
        void stopAll();
        return;
      }
      const list = byCpu.get(cpu)!;
      list.push({ atMs: m.at! - performance.timeOrigin, cpu, workUs: m.us! });
      if (list.length > KEEP) list.splice(0, list.length - KEEP);
      check();
    });
    w.on("error", (e) => {
      failure ??= `the speed probe for CPU ${cpu} failed: ${e.message}`;
      settle();
      void stopAll();
    });
  }
  if (failure) {
    settle();
    void stopAll();
  }
  return {
    cpus,
    samples: (fromMs, toMs) =>
      failure ? [] : [...byCpu.values()].flatMap((l) => l.filter((s) => s.atMs >= fromMs && s.atMs <= toMs)),
    error: () => failure,
    ready: async (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([settled, new Promise<void>((r) => (timer = setTimeout(r, timeoutMs).unref()))]);
      clearTimeout(timer);
    },
    stop: stopAll,
  };
}
