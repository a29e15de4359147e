/**
 * The noise bench's pure figures (`npm run bench -- --only noise`): A/A blocks of MariaDB
 * against itself, by hand (the manual reference) and through the lab with one lever changed per arm, interleaved
 * M, L, M, L, …, M so that drift in the machine's noise level hits every arm alike.
 *
 * The figure of an arm is its pair sd: the standard deviation of the log pair ratios ln(a/b) around the mean of
 * their cell (test × threads) within their block, pooled over cells and blocks (each block's server instances have
 * their own level, so residuals are taken within a block). Its interval is chi-square; the ratio of two arms' pair
 * sds has an F interval. Pure: the bench script (bench/noise.ts) does the I/O.
 */
import { seededRandom } from "../../src/core/base/random.ts";
import { chiSquareQuantile, fQuantile } from "../../src/core/base/distributions.ts";

/** A lever arm of the lab: its id, what it changes (scenario --set values) and its cell length. */
export interface NoiseArm {
  id: string;
  label: string;
  /** Extra scenario --set values (besides the bench's base sets). */
  sets: string[];
  /** Cell length in seconds; undefined: the bench's base length. */
  seconds?: number;
  /** Seconds each cell runs longer (workload.trim). */
  trim?: number;
}

/** The lab arms: lab defaults, then one lever changed each. `len60` only runs with --long. */
export const NOISE_ARMS: readonly NoiseArm[] = [
  { id: "defaults", label: "lab defaults", sets: [] },
  {
    id: "nopause",
    label: "idle server left running (resources.pauseIdle: false)",
    sets: ["resources.pauseIdle=false"],
  },
  {
    id: "confine",
    label: "daemons on the load CPU (resources.confineDaemons: true)",
    sets: ["resources.confineDaemons=true"],
  },
  { id: "quiesce", label: "wait for InnoDB quiescence (workload.quiesce: true)", sets: ["workload.quiesce=true"] },
  { id: "trim", label: "first 2 s trimmed (workload.trim: 2s)", sets: ["workload.trim=2s"], trim: 2 },
  { id: "len20", label: "20 s cells", sets: [], seconds: 20 },
  { id: "len60", label: "60 s cells", sets: [], seconds: 60 },
];

/** The arms a default noise bench runs (len60 needs --long). */
export const DEFAULT_NOISE_ARMS = ["defaults", "nopause", "confine", "quiesce", "trim", "len20"] as const;

/** One block of the schedule: a manual reference block or a lab arm. */
export interface ScheduledBlock {
  kind: "manual" | "lab";
  arm: string;
}

/**
 * M, L(arm1), M, L(arm2), …, M with the lab arms in a seeded random order (Fisher–Yates): every lab arm has a
 * manual block on both sides.
 */
export function noiseSchedule(arms: readonly string[], seed: number): ScheduledBlock[] {
  const order = [...arms];
  const rand = seededRandom(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const out: ScheduledBlock[] = [{ kind: "manual", arm: "manual" }];
  for (const a of order) out.push({ kind: "lab", arm: a }, { kind: "manual", arm: "manual" });
  return out;
}

/** What the duration estimate needs: per-block and per-cell costs, measured on this project's 2-core machine. */
export interface NoiseCost {
  tests: number;
  threads: number;
  pairs: number;
  /** Base cell length in seconds. */
  seconds: number;
  warmupSeconds: number;
  /** Lab run set-up and teardown (2 servers: start, prepare, prewarm), seconds. */
  labSetup: number;
  /** Manual block set-up and clean-up, seconds. */
  manualSetup: number;
  /** Per cell beyond its length (sidecar container start, parse), seconds. */
  perCell: number;
  /** Extra per write cell when waiting for quiescence, seconds (a guess until measured). */
  quiesce: number;
}

/**
 * The costs the bench assumes (as the main bench measured them in bench/results/: set-up 5.8 s per server, 1.6 s
 * gross per cell).
 */
export const NOISE_COST: Omit<NoiseCost, "tests" | "threads" | "pairs" | "seconds" | "warmupSeconds"> = {
  labSetup: 20,
  manualSetup: 20,
  perCell: 1,
  quiesce: 3,
};

/** Expected seconds of one block. Write tests: half of `tests` (the bench runs one read and one write test). */
export function blockSeconds(b: ScheduledBlock, c: NoiseCost, arm?: NoiseArm): number {
  const secs = arm?.seconds ?? c.seconds;
  const cells = c.tests * c.threads * c.pairs * 2;
  const warmups = c.tests * 2 * (c.warmupSeconds + c.perCell);
  const quiesce = arm?.id === "quiesce" ? (cells / 2) * c.quiesce : 0;
  const setup = b.kind === "lab" ? c.labSetup : c.manualSetup;
  return setup + warmups + cells * (secs + (arm?.trim ?? 0) + c.perCell) + quiesce;
}

/** Expected seconds of a whole schedule. */
export function scheduleSeconds(
  schedule: readonly ScheduledBlock[],
  c: NoiseCost,
  arms: readonly NoiseArm[] = NOISE_ARMS,
): number {
  return schedule.reduce(
    (s, b) =>
      s +
      blockSeconds(
        b,
        c,
        arms.find((a) => a.id === b.arm),
      ),
    0,
  );
}

/** The most pairs per arm and cell (at least 2) whose schedule fits `budgetSeconds`. */
export function pairsForBudget(
  schedule: readonly ScheduledBlock[],
  c: Omit<NoiseCost, "pairs">,
  budgetSeconds: number,
  arms: readonly NoiseArm[] = NOISE_ARMS,
): number {
  let p = 2;
  while (p < 100 && scheduleSeconds(schedule, { ...c, pairs: p + 1 }, arms) <= budgetSeconds) p++;
  return p;
}

/** A finished block: its log pair ratios per cell key ("test/threads"). */
export interface NoiseBlock {
  index: number;
  kind: "manual" | "lab";
  arm: string;
  seconds: number;
  /** ln(a/b) of q/s per pair, by cell. */
  cells: Record<string, number[]>;
}

/** Pooled within-block residuals: sum of squares, degrees of freedom, pairs. */
export interface Spread {
  ss: number;
  df: number;
  pairs: number;
}

/** The residuals of each cell's log pair ratios around their mean, pooled over the cells of the blocks. */
export function residualSpread(blocks: readonly NoiseBlock[]): Spread {
  let ss = 0;
  let df = 0;
  let pairs = 0;
  for (const b of blocks)
    for (const ds of Object.values(b.cells)) {
      pairs += ds.length;
      if (ds.length < 2) continue;
      const m = ds.reduce((s, x) => s + x, 0) / ds.length;
      ss += ds.reduce((s, x) => s + (x - m) ** 2, 0);
      df += ds.length - 1;
    }
  return { ss, df, pairs };
}

/** A pair sd in % (100 × sd of ln(a/b)) with its chi-square interval. */
export interface SdEstimate {
  sdPct: number;
  lowPct: number;
  highPct: number;
  df: number;
  pairs: number;
}

export function sdEstimate(s: Spread, confidence = 0.95): SdEstimate | null {
  if (s.df < 1) return null;
  const a = (1 - confidence) / 2;
  const sd = Math.sqrt(s.ss / s.df);
  return {
    sdPct: 100 * sd,
    lowPct: 100 * sd * Math.sqrt(s.df / chiSquareQuantile(1 - a, s.df)),
    highPct: 100 * sd * Math.sqrt(s.df / chiSquareQuantile(a, s.df)),
    df: s.df,
    pairs: s.pairs,
  };
}

/** The ratio of two pair sds (num / den) with its F interval; `measurable` when the interval excludes 1. */
export interface SdRatio {
  ratio: number;
  low: number;
  high: number;
  measurable: boolean;
}

export function sdRatio(num: Spread, den: Spread, confidence = 0.95): SdRatio | null {
  if (num.df < 1 || den.df < 1 || den.ss <= 0) return null;
  const a = (1 - confidence) / 2;
  const v = num.ss / num.df / (den.ss / den.df);
  const low = Math.sqrt(v / fQuantile(1 - a, num.df, den.df));
  const high = Math.sqrt(v * fQuantile(1 - a, den.df, num.df));
  return { ratio: Math.sqrt(v), low, high, measurable: low > 1 || high < 1 };
}

/**
 * The smallest ratio of pair sds (> 1) that a two-sided F test at `confidence` finds with probability `power`,
 * with df1 and df2 degrees of freedom: ρ² = F(1−α/2; df1, df2) / F(1−power; df1, df2). What the experiment can see.
 */
export function detectableSdRatio(df1: number, df2: number, confidence = 0.95, power = 0.8): number {
  return Math.sqrt(fQuantile(1 - (1 - confidence) / 2, df1, df2) / fQuantile(1 - power, df1, df2));
}

/** One row of the noise table. */
export interface NoiseArmFigures {
  arm: string;
  label: string;
  blocks: number;
  sd: SdEstimate | null;
  /** Pair sd / the manual reference's (all manual blocks pooled). */
  vsManual: SdRatio | null;
  /** Pair sd / the lab defaults' (null for the defaults and the manual reference). */
  vsDefaults: SdRatio | null;
}

/** The table: the manual reference first, then the lab arms in `arms` order. */
export function noiseTable(
  blocks: readonly NoiseBlock[],
  arms: readonly string[],
  labels: Record<string, string>,
  confidence = 0.95,
): NoiseArmFigures[] {
  const manualBlocks = blocks.filter((b) => b.kind === "manual");
  const manual = residualSpread(manualBlocks);
  const defaultsBlocks = blocks.filter((b) => b.kind === "lab" && b.arm === "defaults");
  const defaults = defaultsBlocks.length ? residualSpread(defaultsBlocks) : null;
  const rows: NoiseArmFigures[] = [
    {
      arm: "manual",
      label: "manual reference (plain docker, ABBA, no pausing)",
      blocks: manualBlocks.length,
      sd: sdEstimate(manual, confidence),
      vsManual: null,
      vsDefaults: null,
    },
  ];
  for (const arm of arms) {
    const own = blocks.filter((b) => b.kind === "lab" && b.arm === arm);
    const s = residualSpread(own);
    rows.push({
      arm,
      label: labels[arm] ?? arm,
      blocks: own.length,
      sd: sdEstimate(s, confidence),
      vsManual: sdRatio(s, manual, confidence),
      vsDefaults: arm === "defaults" || !defaults ? null : sdRatio(s, defaults, confidence),
    });
  }
  return rows;
}

/** "1.08 [0.62–1.91]" or "1.08 [0.62–1.91] no measurable effect" when the interval contains 1. */
export function formatSdRatio(r: SdRatio | null): string {
  if (!r) return "-";
  return `${r.ratio.toFixed(2)} [${r.low.toFixed(2)}–${r.high.toFixed(2)}]${r.measurable ? "" : " no measurable effect"}`;
}

/** "10.3% [8.1–14.2]". */
export function formatSd(s: SdEstimate | null): string {
  return s ? `${s.sdPct.toFixed(1)}% [${s.lowPct.toFixed(1)}–${s.highPct.toFixed(1)}]` : "-";
}
