/**
 * `twinbench calibrate` end to end against the real engine, tiny (1 table × 1000 rows, 2 s cells, 2 A/A runs of
 * 1 cell × 2 pairs): the host's calibration file gets its fields, `calibrate --show` and `plan --precision` use it,
 * and a later run on the local engine updates it. The calibration store is a temp folder (TWINBENCH_CALIBRATION_DIR).
 * One cell is enough for the end-to-end figures (pair sd and instance sd against cells.jsonl); pooling over several
 * cells is proved by test/unit/stats/nested-sd.test.ts, the choice of 2 cells by test/unit/plan/calibrate-layout.test.ts.
 */
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import type { CliContext } from "../../src/cli/context.ts";
import { DockerEngine } from "../../src/adapters/docker/engine.ts";
import type { Calibration } from "../../src/core/plan/calibration/schema.ts";

const engine = new DockerEngine("local");
let tmp: string;
const saved = process.env.TWINBENCH_CALIBRATION_DIR;

const tiny = [
  "--set",
  "servers=[{id: mariadb, image: mariadb-10.11}, {id: mysql, image: mariadb-10.11}]",
  "--set",
  "workload.tables=1",
  "--set",
  "workload.tableSize=1000",
  "--set",
  "workload.threads=[1]",
  "--set",
  "workload.tests=[oltp_point_select]",
  "--set",
  "workload.duration=2s",
  "--set",
  "workload.warmup=0s",
  "--set",
  "workload.prewarm=false",
];

function context(): CliContext & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    out: (l) => lines.push(l),
    err: (l) => lines.push(l),
    readFile: (p) => readFile(p, "utf8"),
    engine: () => engine,
    exitCode: 0,
    isTTY: false,
  };
}

async function stored(): Promise<{ file: string; cal: Calibration }> {
  const dir = join(tmp, "calibration");
  const files = (await readdir(dir)).filter((f) => f.endsWith(".json"));
  expect(files).toHaveLength(1);
  const file = join(dir, files[0]);
  return { file, cal: JSON.parse(await readFile(file, "utf8")) as Calibration };
}

/** One A/A run's pairs of one cell: the log ratios kept, and how many pairs outside work disturbed. */
interface AaCell {
  kept: number[];
  disturbed: number;
}

/**
 * The log A/A pair ratios (qps of a over b, per repeat) of the calibration's A/A runs aa-1, aa-2, read from their
 * cells.jsonl: [cell][instance], cells in key order. The last measured attempt of a cell counts. A pair whose last
 * attempt outside work disturbed (either cell's interference flag, as recorded) is counted, not kept: calibrate
 * leaves such pairs out of the host's calibration.
 */
async function aaPairs(dir: string): Promise<AaCell[][]> {
  const runs = await Promise.all(
    ["aa-1", "aa-2"].map(async (run) => {
      const last = new Map<
        string,
        {
          server: string;
          test: string;
          threads: number;
          repeat: number;
          status: string;
          metrics: { qps: number } | null;
          interference?: { disturbed: boolean };
        }
      >();
      for (const line of (await readFile(join(dir, run, "cells.jsonl"), "utf8")).split("\n").filter(Boolean)) {
        const r = JSON.parse(line);
        if (r.phase !== "warmup") last.set(`${r.server}|${r.test}|${r.threads}|${r.repeat}`, r);
      }
      const pairs = new Map<string, AaCell>();
      for (const a of [...last.values()].filter((r) => r.server === "a" && r.status === "ok")) {
        const b = last.get(`b|${a.test}|${a.threads}|${a.repeat}`);
        if (b?.status !== "ok" || !a.metrics || !b.metrics) continue;
        const key = `${a.test}|${a.threads}`;
        const cell = pairs.get(key) ?? { kept: [], disturbed: 0 };
        if (a.interference?.disturbed || b.interference?.disturbed) cell.disturbed++;
        else cell.kept.push(Math.log(a.metrics.qps / b.metrics.qps));
        pairs.set(key, cell);
      }
      return pairs;
    }),
  );
  const keys = [...new Set(runs.flatMap((p) => [...p.keys()]))].sort();
  return keys.map((key) => runs.map((p) => p.get(key) ?? { kept: [], disturbed: 0 }));
}

/**
 * The textbook one-way random-effects ANOVA of the kept A/A pairs, each cell's instances (the A/A runs) its groups,
 * pooled over the cells (Searle, Casella & McCulloch, Variance Components, §3.5-3.6): σ̂² the pooled mean square
 * within groups; per cell with 2 or more groups, E[Σ n_i (ȳ_i − ȳ)²] = (a − 1) σ² + (N − Σ n_i² / N) τ², so
 * τ̂² = max(0, Σ (Σ n_i (ȳ_i − ȳ)² − (a − 1) σ̂²) / Σ (N − Σ n_i² / N)). Balanced (a = 2 groups of k) this is the mean
 * over cells of (MS between − σ̂²) / k.
 */
function anova(cells: number[][][]): { s2: number; df: number; tau2: number | null; instanceDf: number } {
  const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
  let ss = 0;
  let df = 0;
  for (const g of cells.flat().filter((x) => x.length > 0)) {
    const m = mean(g);
    ss += g.reduce((a, x) => a + (x - m) ** 2, 0);
    df += g.length - 1;
  }
  const s2 = ss / df;
  let q = 0;
  let den = 0;
  let instanceDf = 0;
  for (const groups of cells.map((c) => c.filter((g) => g.length > 0))) {
    if (groups.length < 2) continue;
    const n = groups.reduce((a, g) => a + g.length, 0);
    const m = mean(groups.flat());
    q += groups.reduce((a, g) => a + g.length * (mean(g) - m) ** 2, 0) - (groups.length - 1) * s2;
    den += n - groups.reduce((a, g) => a + g.length ** 2, 0) / n;
    instanceDf += groups.length - 1;
  }
  return { s2, df, tau2: instanceDf > 0 ? Math.max(0, q / den) : null, instanceDf };
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "tb-calibrate-"));
  process.env.TWINBENCH_CALIBRATION_DIR = join(tmp, "calibration");
});

afterAll(async () => {
  if (saved === undefined) delete process.env.TWINBENCH_CALIBRATION_DIR;
  else process.env.TWINBENCH_CALIBRATION_DIR = saved;
  await rm(tmp, { recursive: true, force: true });
});

describe("twinbench calibrate", () => {
  it("measures the series and A/A pairs on 2 fresh instances, stores the host's calibration, and plan uses it", async () => {
    const ctx = context();
    const code = await main(
      [
        "calibrate",
        "scenarios/quick.yaml",
        ...tiny,
        "--max-time",
        "4m",
        "--pairs",
        "4",
        "--instances",
        "2",
        "--series",
        "12",
        "--out",
        tmp,
      ],
      ctx,
    );
    expect(code, ctx.lines.join("\n")).toBe(0);
    const text = ctx.lines.join("\n");
    expect(text).toMatch(/calibrate: mariadb-10\.11 against itself; series 12 s, then 2 A\/A runs × 1 cell × 2 pairs/);

    const { file, cal } = await stored();
    expect(file.endsWith(`${cal.hostKey}.json`)).toBe(true);
    expect(cal.version).toBe(1);
    expect(cal.hostFacts.cpus).toBe(String((await engine.facts()).cpus));
    expect(cal.cellSeconds).toBe(2);
    // Every A/A run recorded 1 cell × 2 pairs. Pairs that outside work disturbed (their cells' interference flags in
    // cells.jsonl) are left out, and calibrate says how many; the figures below are of the pairs kept.
    const aa = await aaPairs(
      join(
        tmp,
        (await readdir(tmp)).find((d) => d.startsWith("calibrate-"))!,
      ),
    );
    expect(aa.map((c) => c.map((g) => g.kept.length + g.disturbed))).toEqual([[2, 2]]);
    aa.forEach((_, run) => {
      const kept = aa.reduce((a, c) => a + c[run]!.kept.length, 0);
      const left = aa.reduce((a, c) => a + c[run]!.disturbed, 0);
      const suffix = left ? `; ${left} disturbed by outside work in every attempt, left out` : "";
      expect(ctx.lines).toContain(`calibrate: A/A run ${run + 1}: ${kept} pairs (ok)${suffix}`);
    });
    const ref = anova(aa.map((c) => c.map((g) => g.kept)));
    // Undisturbed: pair df 2 = 2 runs × 1 cell × (2 − 1), instance df 1 = 1 cell × (2 instances − 1).
    expect(cal.pairDf).toBe(ref.df);
    expect(cal.pairSdPct).toBeGreaterThan(0);
    expect(cal.instanceDf).toBe(ref.instanceDf);
    expect(cal.pairSdPct).toBeCloseTo(Math.sqrt(ref.s2) * 100, 8);
    if (ref.tau2 === null) expect(cal.instanceSdPct).toBeNull();
    else expect(cal.instanceSdPct).toBeCloseTo(Math.sqrt(ref.tau2) * 100, 8);
    // sysbench prints 11 or 12 per-second lines for a 12 s run, depending on timing. On a shared machine outside work
    // can disturb the series twice (steal, neighbours): then calibrate stores no per-second figures and must say so.
    // Either way the outcome is checked; a busy CI machine must not fail the suite by chance.
    if (cal.perSecond === null) {
      expect(text).toMatch(/calibrate: warning: the series was disturbed again \(.+\); no per-second figures/);
    } else {
      expect(cal.perSecond.seconds).toBeGreaterThanOrEqual(11);
      expect(cal.perSecond.autocorr).toHaveLength(5);
      expect(cal.perSecond.blocks.map((b) => b.seconds)).toEqual([2, 5]); // 10 s blocks need 20 s
    }
    expect(cal.secondsPerPair).toBeGreaterThan(4);
    expect(cal.updates).toBe(0);
    expect(text).toContain(`calibration of host ${cal.hostKey} (${file})`);

    const folders = (await readdir(tmp)).filter((d) => d.startsWith("calibrate-"));
    expect(folders).toHaveLength(1);
    // A series disturbed by outside work runs once more, into series-2, and calibrate says so.
    const rerun = /calibrate: the series was disturbed by outside work \(.+\); running it once more/.test(text);
    const runsExpected = ["aa-1", "aa-2", "series", ...(rerun ? ["series-2"] : [])];
    expect((await readdir(join(tmp, folders[0]))).sort()).toEqual(runsExpected);
    for (const d of runsExpected) expect(await readdir(join(tmp, folders[0], d))).toContain("run.json");
    expect(text).toContain(`runs: ${join(tmp, folders[0])} (${runsExpected.length} results folders)`);

    const show = context();
    expect(await main(["calibrate", "--show"], show)).toBe(0);
    expect(show.lines.join("\n")).toContain(`pair sd ${cal.pairSdPct.toFixed(1)}% (df ${ref.df})`);

    const plan = context();
    expect(await main(["plan", "scenarios/quick.yaml", "--precision", "10%"], plan)).toBe(0);
    const planText = plan.lines.join("\n");
    expect(planText).toContain(`host calibration ${cal.hostKey}`);
    expect(planText).toContain(`pair sd ${cal.pairSdPct.toFixed(1)}% (df ${ref.df})`);
    expect(planText).toContain("note: the calibration's pairs ran 2 s cells, this scenario 7 s");
  }, 900_000);

  it("a run on the local engine folds its pooled residuals into the calibration", async () => {
    const before = (await stored()).cal;
    const ctx = context();
    const code = await main(
      [
        "run",
        "scenarios/quick.yaml",
        ...tiny,
        "--set",
        "workload.tests=[oltp_point_select]",
        "--set",
        "workload.repeats=3",
        "--no-tui",
        "--out",
        join(tmp, "run"),
      ],
      ctx,
    );
    expect(code, ctx.lines.join("\n")).toBe(0);
    const after = (await stored()).cal;
    // Pairs that outside work disturbed stay out of the host's calibration, and the run says how many (on a busy CI
    // machine that can be all of them). One cell, 3 pairs: the undisturbed ones fold in when at least 2 are left.
    const text = ctx.lines.join("\n");
    const m =
      /calibration: (\d+) of (\d+) pairs were disturbed by outside work and are left out of the host's calibration/.exec(
        text,
      );
    const kept = 3 - (m ? Number(m[1]) : 0);
    if (m) expect(Number(m[2])).toBe(3);
    if (kept >= 2) {
      expect(after.updates, text).toBe(before.updates + 1);
      expect(after.pairDf).toBe(before.pairDf + kept - 1);
      expect(after.updatedAt > before.updatedAt).toBe(true);
    } else {
      expect(after, "fewer than 2 undisturbed pairs: the calibration is left as it was").toEqual(before);
    }
    expect(after.measuredAt).toBe(before.measuredAt);
  }, 600_000);
});
