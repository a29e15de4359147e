import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  ctxDelta,
  hardwareCountersOf,
  ioDelta,
  keepsThreads,
  parseCtxSwitches,
  parsePerfStatCsv,
  parseProcIo,
  type TaskCounters,
} from "../../../src/core/measure/taskcounters.ts";
import { cellStateOf, cpuSenseFailures, perQueryOf } from "../../../src/core/measure/cellstate.ts";
import { detectHardwareCounters } from "../../../src/adapters/host/task-counters.ts";

const fx = (name: string) => readFileSync(new URL(`../../fixtures/proc/${name}`, import.meta.url), "utf8");

describe("task counters: parsing", () => {
  it("context switches from a real /proc/<tid>/status (a mysqld thread here)", () => {
    const c = parseCtxSwitches(fx("task-status.txt"));
    expect(c).not.toBeNull();
    const text = fx("task-status.txt");
    expect(c![0]).toBe(Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(text)![1]));
    expect(c![1]).toBe(Number(/^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(text)![1]));
    expect(parseCtxSwitches("Name:\tmysqld\n")).toBeNull();
  });

  it("storage bytes from a real /proc/<pid>/io (a shell writing 3000 × 1000 bytes to a volume, here)", () => {
    expect(parseProcIo(fx("pid-io.txt"))).toEqual({ read: 0, write: 3018752 });
    expect(parseProcIo("rchar: 1\n")).toBeNull();
  });

  it("deltas: threads and processes started in the window count from 0", () => {
    const a: TaskCounters = { ctx: { "10": [5, 1], "11": [7, 2] }, io: { "10": { read: 100, write: 1000 } } };
    const b: TaskCounters = {
      ctx: { "10": [15, 4], "11": [7, 2], "12": [3, 1] },
      io: { "10": { read: 300, write: 5000 }, "20": { read: 1, write: 2 } },
    };
    expect(ctxDelta(a, b)).toEqual({ voluntary: 13, involuntary: 4 });
    expect(ioDelta(a, b)).toEqual({ read: 201, write: 4002 });
    // A count that went down (an id reused by a new process) counts from zero.
    expect(ioDelta(b, { ctx: {}, io: { "10": { read: 50, write: 60 } } })).toEqual({ read: 50, write: 60 });
    expect(ctxDelta({ ctx: {}, io: {} }, b)).toBeNull();
    expect(ioDelta({ ctx: {}, io: {} }, b)).toBeNull();
  });
});

describe("task counters: which reading may end a cell's window", () => {
  // sysbench at the header line (main thread), running (main + 2 workers), and as its workers exit.
  const header: TaskCounters = { ctx: { "1": [2, 0] }, io: {} };
  const running: TaskCounters = { ctx: { "1": [3, 0], "7": [900, 4], "8": [880, 5] }, io: {} };
  const exiting: TaskCounters = { ctx: { "1": [4, 0], "8": [1800, 9] }, io: {} };
  const gone: TaskCounters = { ctx: {}, io: {} };

  it("workers started after the first reading: kept (they count from 0)", () => {
    expect(keepsThreads(header, running)).toBe(true);
    expect(keepsThreads(running, { ctx: { ...running.ctx, "9": [1, 0] }, io: {} })).toBe(true);
  });

  it("a worker that ended, or no thread at all: refused (ctxDelta would drop its switches)", () => {
    expect(keepsThreads(running, exiting)).toBe(false);
    expect(keepsThreads(running, gone)).toBe(false);
    expect(keepsThreads(header, gone)).toBe(false);
    expect(ctxDelta(header, gone)).toBeNull();
  });
});

describe("hardware counters", () => {
  it("perf stat -x, of this host (no PMU): every hardware event <not supported>", () => {
    const lines = parsePerfStatCsv(fx("perf-stat-nopmu.txt"));
    expect(lines.map((l) => l.event)).toEqual(["instructions", "cycles", "LLC-load-misses"]);
    expect(lines.every((l) => l.value === null && l.missing === "<not supported>")).toBe(true);
    const h = hardwareCountersOf({ pmu: true, perfOutput: fx("perf-stat-nopmu.txt") });
    expect(h.available).toBe(false);
    expect(h.text).toContain("not available on this host");
    expect(h.text).toContain("instructions <not supported>");
  });

  it("software events parse with their values and units", () => {
    const lines = parsePerfStatCsv(fx("perf-stat-software.txt"));
    expect(lines[0]).toMatchObject({ event: "task-clock", unit: "msec" });
    expect(lines[0]!.value).toBeGreaterThan(0);
    expect(lines.find((l) => l.event === "context-switches")!.value).toBeGreaterThanOrEqual(0);
  });

  it("no PMU in sysfs, or no perf: not available, saying which; all counted: available", () => {
    expect(hardwareCountersOf({ pmu: false, perfOutput: null }).text).toMatch(
      /not available on this host \(the kernel lists no CPU PMU/,
    );
    expect(hardwareCountersOf({ pmu: true, perfOutput: null }).text).toMatch(/perf is not installed/);
    const all =
      "1000,,instructions,500,100.00,1.2,insn per cycle\n800,,cycles,500,100.00,,\n12,,LLC-load-misses,500,100.00,,\n";
    expect(hardwareCountersOf({ pmu: true, perfOutput: all })).toMatchObject({ available: true });
  });

  it("detectHardwareCounters on this host: the sysfs check decides before perf runs", async () => {
    const calls: string[][] = [];
    const runner = {
      run: async (cmd: string, args: string[]) => (
        calls.push([cmd, ...args]),
        { stdout: "", stderr: fx("perf-stat-nopmu.txt"), exitCode: 0 }
      ),
    };
    const h = await detectHardwareCounters(runner);
    expect(h.available).toBe(false);
    // Either this host lists no PMU (no perf call) or it does and perf's own answer decides.
    if (calls.length) expect(calls[0]!.slice(0, 3)).toEqual(["perf", "stat", "-x,"]);
    else expect(h.text).toContain("no CPU PMU");
  });
});

describe("per query: context switches and bytes", () => {
  const metrics = { queries: 1000, qps: 500 };
  it("divides the deltas by the cell's queries; tmpfs has no block device", () => {
    const tasks = {
      server: { voluntary: 2000, involuntary: 100 },
      load: { voluntary: 1000, involuntary: 50 },
      serverIo: { read: 4096, write: 65536 },
      blockDevice: true,
      storageKind: "volume",
    };
    const pq = perQueryOf({ metrics, tasks })!;
    expect(pq).toMatchObject({
      serverCsVoluntary: 2,
      serverCsInvoluntary: 0.1,
      clientCsVoluntary: 1,
      clientCsInvoluntary: 0.05,
      readBytes: 4.096,
      writeBytes: 65.536,
    });
    expect(pq.absent).toBeUndefined();
    const mem = perQueryOf({ metrics, tasks: { ...tasks, blockDevice: false, storageKind: "tmpfs" } })!;
    expect(mem).toMatchObject({
      readBytes: null,
      writeBytes: null,
      absent: { readBytes: "no block device (tmpfs)", writeBytes: "no block device (tmpfs)" },
    });
    // Without a task sampler the figures are not there at all (not null: never read).
    expect(perQueryOf({ metrics })!.serverCsVoluntary).toBeUndefined();
  });

  it("the CPU sense check: cores used within (0, cpuset]", () => {
    const cpu = { wallS: 5, serverCores: 0.5, loadCores: 0.4, serverCpusetCores: 1, loadCpusetCores: 1 };
    const m = { qps: 500, queries: 2500 } as never;
    const state = cellStateOf({ cpu, metrics: m });
    expect(cpuSenseFailures({ state, metrics: { qps: 500 } })).toEqual([]);
    // The same CPU per query with three times the q/s is 1.5 cores on a 1-core cpuset.
    expect(cpuSenseFailures({ state, metrics: { qps: 1500 } })).toEqual([
      "server 1.50 cores of 1",
      "client 1.20 cores of 1",
    ]);
    // The steady window's q/s is the one checked when the cell was trimmed.
    expect(cpuSenseFailures({ state, metrics: { qps: 500 }, trimmed: { qps: 1500 } })).toHaveLength(2);
    const zero = cellStateOf({ cpu: { ...cpu, serverCores: 0 }, metrics: m });
    expect(cpuSenseFailures({ state: zero, metrics: { qps: 500 } })).toEqual(["server 0.00 cores of 1"]);
  });
});
