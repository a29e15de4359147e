import { describe, expect, it } from "vitest";
import {
  aaNoise,
  defaultTransportVerdict,
  halfWidth,
  labSplit,
  noiseModel,
  orderEffect,
  project,
  repeatAdvice,
  repeatsFor,
  textTable,
  transportRows,
  type TransportSample,
} from "../../../bench/lib/figures.ts";
import type { CellRecord } from "../../../src/core/model/results.ts";
import { ratioTableFromSides } from "../../../src/core/stats/ratio.ts";
import { cellRecord, sysbench } from "../../support/record.ts";

const T = ["socket", "loopback", "bridge", "host-socket", "host-tcp"];

function samples(byTransport: Record<string, number[]>, test = "oltp_point_select", threads = 1): TransportSample[] {
  return Object.entries(byTransport).flatMap(([transport, xs]) =>
    xs.map((qps, i) => ({ transport, test, threads, round: i + 1, qps })),
  );
}

describe("transportRows / defaultTransportVerdict", () => {
  it.each([
    {
      name: "socket best",
      data: {
        socket: [100, 102, 98],
        loopback: [99, 100, 101],
        bridge: [80, 82, 81],
        "host-socket": [104, 105, 103],
        "host-tcp": [85, 84, 86],
      },
      within: true,
      best: "host-socket",
      worst: (100 / 99) * 100,
    },
    {
      name: "socket 2% below loopback",
      data: { socket: [98, 98, 98], loopback: [100, 100, 100], bridge: [80, 80, 80] },
      within: true,
      best: "loopback",
      worst: 98,
    },
    {
      name: "socket 5% below loopback",
      data: { socket: [95, 95, 95], loopback: [100, 100, 100], bridge: [80, 80, 80] },
      within: false,
      best: "loopback",
      worst: 95,
    },
  ])("$name", ({ data, within, best, worst }) => {
    const rows = transportRows(samples(data as Record<string, number[]>), T);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.best).toBe(best);
    const top = rows[0]!.cells.find((c) => c.transport === best)!;
    expect(top.ratioToBest).toBe(100);
    const v = defaultTransportVerdict(
      samples(data as Record<string, number[]>),
      rows,
      "socket",
      ["socket", "loopback", "bridge"],
      3,
    );
    expect(v.within).toBe(within);
    expect(v.worstRatio).toBeCloseTo(worst, 6);
    expect(v.shortRows.length).toBe(within ? 0 : 1);
  });

  it("compares the default with every other candidate, paired per round, even when its median is the highest", () => {
    // socket has the higher median (loopback's round 3 was slow) but loses to loopback by 5% in rounds 1 and 2.
    const data = { socket: [95, 190, 300], loopback: [100, 200, 50] };
    const rows = transportRows(samples(data), T);
    expect(rows[0]!.best).toBe("socket");
    const v = defaultTransportVerdict(samples(data), rows, "socket", ["socket", "loopback", "bridge"], 3);
    expect(v.worstRatio).toBeCloseTo(95, 9);
    expect(v.within).toBe(false);
    expect(v.shortRows[0]!.best).toBe("loopback");
  });

  it("paired ratio: per round against the best, so load that moves between rounds cancels", () => {
    // Round 2 runs at half speed for everyone: medians mislead less than the paired ratio.
    const rows = transportRows(samples({ socket: [100, 50, 100], loopback: [102, 51, 102] }), T);
    const socket = rows[0]!.cells.find((c) => c.transport === "socket")!;
    expect(rows[0]!.best).toBe("loopback");
    expect(socket.pairedRatio).toBeCloseTo((100 / 102) * 100, 9);
  });

  it("keeps one row per (test, threads) in first-seen order and ignores transports with no sample", () => {
    const rows = transportRows([...samples({ socket: [10] }, "b", 2), ...samples({ socket: [20] }, "a", 1)], T);
    expect(rows.map((r) => `${r.test}/${r.threads}`)).toEqual(["b/2", "a/1"]);
    expect(rows[0]!.cells.find((c) => c.transport === "bridge")!.medianQps).toBeNull();
  });
});

function rec(over: Partial<CellRecord> & { qps?: number; totalTime?: number; intervals?: number[] }): CellRecord {
  const metrics = sysbench({ qps: over.qps ?? 100, totalTime: over.totalTime ?? 5, intervals: over.intervals ?? [] });
  return cellRecord({ key: "k", test: "t", metrics, startedAt: "2026-01-01T00:00:00Z", ...over });
}

describe("labSplit / project", () => {
  const timings = {
    images: 1,
    storage: 2,
    start: 20,
    prepare: 6,
    prewarm: 1,
    warmup: 12,
    measure: 48,
    teardown: 4,
    wall: 100,
  };
  const records = [
    ...Array.from({ length: 8 }, () => rec({ totalTime: 5 })),
    ...Array.from({ length: 4 }, () => rec({ phase: "warmup", totalTime: 3 })),
  ];
  const s = labSplit(timings, records, 2);

  it("splits the wall time and derives the per-cell overheads", () => {
    expect(s.measured).toBe(40);
    expect(s.measuredSharePct).toBe(40);
    expect(s.cells).toBe(8);
    expect(s.grossOverheadPerCell).toBe(7.5);
    expect(s.setupPerServer).toBe(17); // (1+2+20+6+1+4)/2
    expect(s.warmups).toBe(4);
    expect(s.netOverheadPerCell).toBe((100 - 40 - 34 - 12) / 8);
    expect(s.parts.find((p) => p.key === "other")!.seconds).toBe(6);
  });

  it("projects a matrix: cells × seconds + per-cell overhead + per-server set-up + warm-ups", () => {
    const p = project(s, { tests: 8, threads: 7, servers: 2, cellSeconds: 300, warmupSeconds: 3 });
    expect(p.cells).toBe(112);
    expect(p.measured).toBe(33600);
    expect(p.overhead).toBeCloseTo(112 * s.netOverheadPerCell, 9);
    expect(p.setup).toBe(34);
    expect(p.warmups).toBeCloseTo(16 * (3 + s.netOverheadPerCell), 9);
    expect(p.total).toBeCloseTo(p.measured + p.overhead + p.setup + p.warmups, 9);
  });
});

describe("A/A noise", () => {
  const a = [100, 102, 98];
  const b = [101, 100, 99];
  const records = [
    ...a.map((qps, i) =>
      rec({
        server: "a",
        repeat: i + 1,
        qps,
        intervals: [90, 100, 110, 100],
        startedAt: `2026-01-01T00:00:${i % 2 ? "10" : "00"}Z`,
      }),
    ),
    ...b.map((qps, i) =>
      rec({
        server: "b",
        repeat: i + 1,
        qps,
        intervals: [90, 100, 110, 100],
        startedAt: `2026-01-01T00:00:${i % 2 ? "00" : "10"}Z`,
      }),
    ),
  ];
  const table = ratioTableFromSides(
    { id: "a", label: "a", records: records.filter((r) => r.server === "a") },
    { id: "b", label: "b", records: records.filter((r) => r.server === "b") },
    ["t"],
    [1],
  );

  it("computes the deviation from 100, the verdict share and pooled spreads", () => {
    const n = aaNoise(table, records, 5);
    expect(n.cells).toBe(1);
    expect(n.madFrom100).toBeCloseTo(Math.abs((100 / 100) * 100 - 100), 9);
    expect(n.sameShare).toBe(1);
    expect(n.pairSd).toBeGreaterThan(0);
    expect(n.intervalCv).toBeGreaterThan(0.05);
  });

  it("order effect: ln(first / second) over back-to-back pairs", () => {
    const o = orderEffect(records, "a", "b", (r) => r.metrics?.qps ?? null);
    expect(o.groups).toBe(3);
    // pairs: r1 a first 100/101, r2 b first 100/102, r3 a first 98/99
    const expected = (Math.exp((Math.log(100 / 101) + Math.log(100 / 102) + Math.log(98 / 99)) / 3) - 1) * 100;
    expect(o.firstVsSecondPct).toBeCloseTo(expected, 9);
  });

  it("repeats for ±2%: t-quantile half-width", () => {
    expect(halfWidth(0.02, 2)).toBeCloseTo(12.706 * (0.02 / Math.SQRT2), 3);
    expect(repeatsFor(0)).toBe(2);
    const n = repeatsFor(0.02)!;
    expect(halfWidth(0.02, n)).toBeLessThanOrEqual(Math.log(1.02));
    expect(halfWidth(0.02, n - 1)).toBeGreaterThan(Math.log(1.02));
    expect(repeatsFor(1, Math.log(1.02), 10)).toBeNull();
  });

  it("noise model: longer cells shrink only the per-second part", () => {
    const m = noiseModel({
      cells: 1,
      madFrom100: 0,
      maxFrom100: 0,
      sameShare: 1,
      verdicts: {},
      pairSd: 0.03,
      pairDf: 4,
      repeatCv: 0.02,
      intervalCv: 0.03,
      cellSeconds: 5,
    })!;
    expect(m.fixedVar).toBeCloseTo(0.03 ** 2 - (2 * 0.03 ** 2) / 5, 12);
    const adv = repeatAdvice(m, [5, 300]);
    expect(adv[0]!.pairSd).toBeCloseTo(0.03, 9);
    expect(adv[1]!.pairSd).toBeLessThan(adv[0]!.pairSd);
    expect(adv[1]!.repeats!).toBeLessThanOrEqual(adv[0]!.repeats!);
  });
});

describe("textTable", () => {
  it("aligns the first column left and the others right", () => {
    expect(
      textTable(
        ["a", "bb"],
        [
          ["xyz", "1"],
          ["q", "22"],
        ],
      ),
    ).toEqual(["a    bb", "---  --", "xyz   1", "q    22"]);
  });
});
