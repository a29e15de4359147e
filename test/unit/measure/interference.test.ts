/** The interference maths (src/core/measure/interference.ts) on real /proc texts, and its place in reports and compare. */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import {
  DISTURBANCE_THRESHOLDS,
  interferenceNotes,
  interferenceOf,
  kernelThreadTicks,
  parseCpuStatUsageNs,
  parsePidStat,
  parseProcStat,
  parsePsiSomeTotal,
  summariseInterference,
  type CpuSample,
} from "../../../src/core/measure/interference.ts";
import type { CellRecord, Interference, RunManifest } from "../../../src/core/model/results.ts";
import { renderComparisonMarkdown, renderComparisonText } from "../../../src/core/report/compare.ts";
import { disturbanceWarnings, type RunComparison, type RunData } from "../../../src/core/stats/compare.ts";
import { cellRecord } from "../../support/record.ts";

const fx = (name: string) => readFileSync(new URL(`../../fixtures/proc/${name}`, import.meta.url), "utf8");

function samples(o: {
  server: [number | null, number | null];
  sidecar: [number, number];
  selfUs: [number, number];
  wallMs?: number;
  psi?: boolean;
}): [CpuSample, CpuSample] {
  const start: CpuSample = {
    atMs: 1000,
    procStat: fx("stat-start.txt"),
    psiCpu: o.psi === false ? null : fx("pressure-cpu-start.txt"),
    containersNs: { srv: o.server[0], side: o.sidecar[0] },
    selfUs: o.selfUs[0],
  };
  const end: CpuSample = {
    atMs: 1000 + (o.wallMs ?? 2000),
    procStat: fx("stat-end.txt"),
    psiCpu: o.psi === false ? null : fx("pressure-cpu-end.txt"),
    containersNs: { srv: o.server[1], side: o.sidecar[1] },
    selfUs: o.selfUs[1],
  };
  return [start, end];
}

describe("parsers", () => {
  it("reads busy (user + nice + system) and steal from the aggregate cpu line", () => {
    expect(parseProcStat(fx("stat-start.txt"))).toEqual({ busy: 1009314 + 1172 + 572340, steal: 0 });
    expect(parseProcStat("cpu  1 2 3 4 5\n")).toEqual({ busy: 6, steal: null });
    expect(() => parseProcStat("intr 1 2\n")).toThrow(/no aggregate cpu line/);
  });
  it("reads PSI's some total, and null without PSI", () => {
    expect(parsePsiSomeTotal(fx("pressure-cpu-start.txt"))).toBe(5849955803);
    expect(parsePsiSomeTotal(null)).toBeNull();
    expect(parsePsiSomeTotal("full avg10=0.00 avg60=0.00 avg300=0.00 total=7\n")).toBeNull();
  });
  it("reads cgroup v2 cpu.stat usage_usec as ns", () => {
    expect(parseCpuStatUsageNs(fx("cpu.stat.v2"))).toBe(123456000);
    expect(parseCpuStatUsageNs("user_usec 3\n")).toBeNull();
  });
});

describe("kernel threads", () => {
  it("reads a kernel thread's flag, name and utime + stime; a name with spaces and parentheses; nothing from junk", () => {
    expect(parsePidStat(fx("pid-stat-kworker.txt"))).toEqual({
      comm: "kworker/u8:0-btrfs-endio-write",
      kernel: true,
      ticks: 64,
    });
    expect(parsePidStat(fx("pid-stat-user.txt"))).toEqual({ comm: "a (b) c", kernel: false, ticks: 162 });
    expect(parsePidStat("")).toBeNull();
    expect(parsePidStat("7 (x) S 1 2")).toBeNull();
  });
  it("sums each thread's difference, a new thread's whole time, a reused pid's new time; names without worker numbers", () => {
    const start = {
      "10": { comm: "kworker/u4:1-btrfs-endio-write", ticks: 100 },
      "11": { comm: "loop0", ticks: 50 },
      "12": { comm: "kswapd0", ticks: 9 },
      "13": { comm: "gone", ticks: 7 },
    };
    const end = {
      "10": { comm: "kworker/u4:1-btrfs-endio-write", ticks: 130 },
      "11": { comm: "loop0", ticks: 60 },
      "12": { comm: "kswapd0", ticks: 9 },
      "14": { comm: "kworker/u4:3-btrfs-endio-write", ticks: 5 },
      "15": { comm: "kworker/0:1", ticks: 2 },
    };
    const k = kernelThreadTicks(start, { ...end, "16": { comm: "ksoftirqd/1", ticks: 1 } });
    expect(k.ticks).toBe(30 + 10 + 5 + 2 + 1);
    expect(Object.fromEntries(k.byName)).toEqual({
      "kworker-btrfs-endio-write": 35,
      loop: 10,
      kworker: 2,
      ksoftirqd: 1,
    });
    expect(kernelThreadTicks({ "10": { comm: "x", ticks: 500 } }, { "10": { comm: "y", ticks: 20 } }).ticks).toBe(20);
  });
  it("kernel threads' CPU is counted apart from the outsiders and disturbs nothing", () => {
    // The first case of interferenceOf below (outsiders 0.6 s over 2 s), with 0.5 s of it done by kernel threads.
    const [a, b] = samples({ server: [1e9, 1.5e9], sidecar: [0, 0.3e9], selfUs: [5e6, 5.1e6] });
    a.kernelThreads = {
      "10": { comm: "kworker/u4:1-btrfs-endio-write", ticks: 100 },
      "11": { comm: "loop1", ticks: 0 },
    };
    b.kernelThreads = {
      "10": { comm: "kworker/u4:1-btrfs-endio-write", ticks: 140 },
      "11": { comm: "loop1", ticks: 10 },
    };
    const i = interferenceOf(a, b);
    expect(i.outsiderCores).toBeCloseTo(0.05, 6);
    expect(i.kernelCores).toBeCloseTo(0.25, 6);
    expect(i.kernelThreads).toEqual([
      { name: "kworker-btrfs-endio-write", cores: 0.2 },
      { name: "loop", cores: 0.05 },
    ]);
    expect(i.reasons).toEqual(["steal 5.0% of a core (threshold 2%)"]);
    // Without the kernel threads' figure (no /proc to list, or an old record), the outsiders keep them, as before.
    const old = interferenceOf(...samples({ server: [1e9, 1.5e9], sidecar: [0, 0.3e9], selfUs: [5e6, 5.1e6] }));
    expect(old.outsiderCores).toBeCloseTo(0.3, 6);
    expect(old.kernelCores).toBeUndefined();
  });
});

describe("interferenceOf", () => {
  it("outsiders = busy - run containers - twinbench, per second of wall; steal and PSI as shares", () => {
    // busy 150 ticks = 1.5 s; server 0.5 s + sidecar 0.3 s; twinbench 0.1 s; wall 2 s -> 0.3 core.
    const i = interferenceOf(...samples({ server: [1e9, 1.5e9], sidecar: [0, 0.3e9], selfUs: [5e6, 5.1e6] }));
    expect(i.outsiderCores).toBeCloseTo(0.3, 6);
    expect(i.stealPct).toBeCloseTo(5, 6); // 10 ticks = 0.1 s over 2 s
    expect(i.psiCpuSomePct).toBeCloseTo(15, 6); // 0.3 s of 2 s
    expect(i.disturbed).toBe(true);
    expect(i.reasons).toEqual(["outsiders used 0.30 core (threshold 0.1)", "steal 5.0% of a core (threshold 2%)"]);
  });

  it("the lab's own CPU is not an outsider: below the thresholds the cell is not disturbed", () => {
    // Run containers + twinbench account for 1.45 of the 1.5 s: 0.025 core of outsiders; no steal.
    const i = interferenceOf(...samples({ server: [0, 1.0e9], sidecar: [0, 0.4e9], selfUs: [0, 0.05e6] }), {
      outsiderCores: 0.1,
      stealPct: 10,
    });
    expect(i.outsiderCores).toBeCloseTo(0.025, 6);
    expect(i).toMatchObject({ disturbed: false, reasons: [] });
  });

  it("PSI is recorded but flags nothing (the run's own threads make it under cgroup v1)", () => {
    expect(Object.keys(DISTURBANCE_THRESHOLDS).sort()).toEqual(["outsiderCores", "stealPct"]);
    const i = interferenceOf(...samples({ server: [0, 1.0e9], sidecar: [0, 0.5e9], selfUs: [0, 0] }), {
      outsiderCores: 0.1,
      stealPct: 10,
    });
    expect(i.psiCpuSomePct).toBeGreaterThan(10);
    expect(i.disturbed).toBe(false);
  });

  it("an unreadable container counter makes outsiders unknown; no PSI gives null; a tiny window gives nothing", () => {
    const i = interferenceOf(...samples({ server: [1e9, null], sidecar: [0, 1], selfUs: [0, 0], psi: false }));
    expect(i.outsiderCores).toBeNull();
    expect(i.psiCpuSomePct).toBeNull();
    expect(i.reasons).toEqual(["steal 5.0% of a core (threshold 2%)"]);
    expect(interferenceOf(...samples({ server: [0, 0], sidecar: [0, 0], selfUs: [0, 0], wallMs: 100 }))).toEqual({
      stealPct: null,
      psiCpuSomePct: null,
      outsiderCores: null,
      disturbed: false,
      reasons: [],
    });
  });

  it("more lab CPU than /proc/stat's ticks show is rounding, not negative outsiders", () => {
    expect(interferenceOf(...samples({ server: [0, 1.6e9], sidecar: [0, 0], selfUs: [0, 0] })).outsiderCores).toBe(0);
  });
});

const quiet: Interference = { stealPct: 0, psiCpuSomePct: 3, outsiderCores: 0.01, disturbed: false, reasons: [] };
const noisy: Interference = {
  stealPct: 0,
  psiCpuSomePct: 60,
  outsiderCores: 0.8,
  disturbed: true,
  reasons: ["outsiders used 0.80 core (threshold 0.1)"],
};

function rec(
  server: string,
  repeat: number,
  o: { attempt?: number; status?: CellRecord["status"]; interference?: Interference } = {},
): CellRecord {
  return cellRecord({
    server,
    repeat,
    status: o.status ?? "ok",
    attempt: o.attempt ?? 1,
    ...(o.interference ? { interference: o.interference } : {}),
  });
}

describe("summariseInterference and its notes", () => {
  it("counts disturbed cells among the last attempts, and re-runs (an attempt after an ok one) apart from retries", () => {
    const all = [
      rec("a", 1, { interference: noisy }),
      rec("b", 1, { interference: quiet }),
      rec("a", 1, { attempt: 2, interference: quiet }),
      rec("b", 1, { attempt: 2, interference: quiet }), // the pair's re-run
      rec("a", 2, { status: "failed" }),
      rec("a", 2, { attempt: 2, interference: noisy }), // a retry, still disturbed
      rec("b", 2, { interference: quiet }),
    ];
    const used = [all[2]!, all[3]!, all[5]!, all[6]!];
    const s = summariseInterference(used, all);
    expect(s).toMatchObject({ measured: 4, known: 4, reruns: 2 });
    expect(s.disturbed.map((r) => r.key)).toEqual(["a/oltp_read_only/1/2"]);
    expect(interferenceNotes(s)).toEqual([
      "1 of 4 measured cells were disturbed: a oltp_read_only t1 r2 (outsiders used 0.80 core (threshold 0.1))",
      "2 cells were re-run because their pair was disturbed; the report uses the last attempt.",
    ]);
  });
  it("says how much CPU the kernel's threads used, and which, from 0.05 core in some cell", () => {
    const k = (cores: number, name: string): Interference => ({
      ...quiet,
      kernelCores: cores,
      kernelThreads: [{ name, cores }],
    });
    const cells = [
      rec("a", 1, { interference: k(0.2, "loop") }),
      rec("b", 1, { interference: k(0.1, "kworker-btrfs-endio-write") }),
      rec("a", 2, { interference: k(0.3, "loop") }),
      rec("b", 2, { interference: quiet }),
    ];
    const notes = interferenceNotes(summariseInterference(cells, cells));
    expect(notes[1]).toBe(
      "Kernel threads used 0.20 core in the median measured cell (up to 0.30; of 3 cells with the figure), busiest loop, kworker-btrfs-endio-write. They belong to no container: on a disk or a loop-device RAID 0 they do the servers' I/O, so they are counted apart from outside work and disturb no cell.",
    );
    const calm = [rec("a", 1, { interference: k(0.02, "kworker") })];
    expect(interferenceNotes(summariseInterference(calm, calm))).toEqual(["0 of 1 measured cells were disturbed."]);
  });
  it("says when nothing was disturbed, and when interference is unknown (remote engine, old runs)", () => {
    const ok = [rec("a", 1, { interference: quiet })];
    expect(interferenceNotes(summariseInterference(ok, ok))).toEqual(["0 of 1 measured cells were disturbed."]);
    const old = [rec("a", 1)];
    expect(interferenceNotes(summariseInterference(old, old))[0]).toMatch(/^Interference is unknown: .*remote engine/);
    expect(interferenceNotes(summariseInterference([], []))).toEqual([]);
  });
});

describe("compare's warning", () => {
  const run = (cells: CellRecord[]): RunData => ({ manifest: {} as RunManifest, cells });
  it("warns when one side had more disturbed cells, naming both counts", () => {
    const base = run([
      rec("a", 1, { interference: noisy }),
      rec("a", 2, { interference: noisy }),
      rec("b", 1, { interference: noisy }),
    ]);
    const next = run([rec("a", 1, { interference: quiet }), rec("a", 2, { interference: quiet })]);
    expect(disturbanceWarnings([base], [next], ["a"])).toEqual([
      "outside work disturbed cells more on the BASE side (BASE: 2 of 2 measured cells disturbed; NEW: 0 of 2 measured cells disturbed): differences may come from the machine, not the servers (see each run's report)",
    ]);
    expect(disturbanceWarnings([next], [base], ["a"])[0]).toMatch(/more on the NEW side/);
    // Shares, not counts: 1 of 1 against 2 of 2 is alike.
    expect(disturbanceWarnings([run([rec("a", 1, { interference: noisy })])], [base], ["a"])[0]).toMatch(
      /^outside work disturbed cells on both sides alike \(BASE: 1 of 1 .*; NEW: 2 of 2/,
    );
  });
  it("says nothing when neither side was disturbed, and says unknown for a side without figures", () => {
    const quietRun = run([rec("a", 1, { interference: quiet })]);
    expect(disturbanceWarnings([quietRun], [quietRun], ["a"])).toEqual([]);
    expect(disturbanceWarnings([run([rec("a", 1)])], [run([rec("a", 1, { interference: noisy })])], ["a"])[0]).toMatch(
      /BASE: interference unknown; NEW: 1 of 1/,
    );
  });
  it("the text and markdown comparisons print it", () => {
    const cmp = {
      base: { runId: "B" },
      new: { runId: "N" },
      baseRuns: [],
      newRuns: [],
      servers: [],
      tables: [],
      differences: [],
      forced: false,
      factDiff: [],
      variableDiff: [],
      warnings: ["w1"],
      nopm: [],
    } as unknown as RunComparison;
    expect(renderComparisonText(cmp)).toContain("WARNING: w1");
    expect(renderComparisonMarkdown(cmp)).toContain("> **Warning**: w1");
  });
});
