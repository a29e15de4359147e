/**
 * What each query costs, compared: for each cell (test × threads) and each per-query figure of the records'
 * `state.perQuery` (src/core/measure/cellstate.ts), the ratio numerator / denominator of the cost with the same estimator and
 * interval as q/s (src/core/stats/estimate.ts): paired d = ln(cost_a / cost_b) per repeat in a run (estimateRun,
 * sequential when the run's repeats were adaptive), unpaired in `compare` (estimateUnpaired, NEW against BASE).
 * Each figure is one table of its own: its cells share the variance prior, as the q/s cells do; figures do not
 * share one (CPU and fsyncs per query are not equally noisy).
 * Above 100 means the numerator costs MORE per query (unlike q/s, where above 100 is better).
 * Pure: records in, a model out; src/core/report/costs.ts turns it into text and JSON.
 */
import type { CellRecord } from "../model/results.ts";
import type { PerQuery } from "../model/cell.ts";
import { median } from "../base/distributions.ts";
import { roundTo } from "../base/units.ts";
import { DEFAULT_CONFIDENCE, estimateRun, type CellInput, type CellEstimate } from "./estimate.ts";
import { estimateUnpaired, type UnpairedInput } from "./unpaired.ts";
import { DEFAULT_MARGIN_PCT } from "../model/scenario/schema.ts";
import { pairObs } from "./ratio-cell.ts";
import { measureRecords } from "./records.ts";
import { type Pairing, type Side } from "./ratio-model.ts";

/** The per-query figures compared, in report order. */
export const COST_FIGURES = [
  {
    key: "serverCpuUs",
    label: "server CPU",
    unit: " µs",
    digits: 1,
    source: "the server container's cgroup CPU over q/s",
  },
  {
    key: "clientCpuUs",
    label: "client CPU",
    unit: " µs",
    digits: 1,
    source: "the sysbench container's cgroup CPU over q/s",
  },
  {
    key: "serverCsVoluntary",
    label: "server voluntary cs",
    unit: "",
    digits: 3,
    source: "voluntary_ctxt_switches of the server container's threads (/proc/<tid>/status) over queries",
  },
  {
    key: "serverCsInvoluntary",
    label: "server involuntary cs",
    unit: "",
    digits: 3,
    source: "nonvoluntary_ctxt_switches of the server container's threads over queries",
  },
  {
    key: "clientCsVoluntary",
    label: "client voluntary cs",
    unit: "",
    digits: 3,
    source: "voluntary_ctxt_switches of the sysbench container's threads over queries",
  },
  {
    key: "clientCsInvoluntary",
    label: "client involuntary cs",
    unit: "",
    digits: 3,
    source: "nonvoluntary_ctxt_switches of the sysbench container's threads over queries",
  },
  {
    key: "rowsRead",
    label: "rows read",
    unit: "",
    digits: 2,
    source: "Innodb_rows_read (else Rows_read) over queries",
  },
  { key: "pagesRead", label: "pages read", unit: "", digits: 3, source: "Innodb_pages_read over queries" },
  { key: "pagesWritten", label: "pages written", unit: "", digits: 3, source: "Innodb_pages_written over queries" },
  {
    key: "logBytes",
    label: "redo bytes",
    unit: " B",
    digits: 0,
    source: "Innodb_os_log_written (else the LSN's advance) over queries",
  },
  { key: "fsyncs", label: "fsyncs", unit: "", digits: 4, source: "Innodb_data_fsyncs over queries" },
  {
    key: "readBytes",
    label: "bytes read",
    unit: " B",
    digits: 1,
    source: "read_bytes of the server container's processes (/proc/<pid>/io) over queries",
  },
  {
    key: "writeBytes",
    label: "bytes written",
    unit: " B",
    digits: 1,
    source:
      "write_bytes of the server container's processes (/proc/<pid>/io: counted when a page is dirtied or written directly) over queries",
  },
] as const satisfies ReadonlyArray<{
  key: keyof PerQuery;
  label: string;
  unit: string;
  digits: number;
  source: string;
}>;

export type CostFigureKey = (typeof COST_FIGURES)[number]["key"];

/**
 * Hardware counters (instructions, cycles, IPC, last-level cache misses) are not among the records' figures: the
 * run checks the host (src/core/measure/taskcounters.ts hardwareCountersOf, in the host facts' `hardwareCounters`) and the
 * report says what it found; a run without the check (older, or a remote engine) says this.
 */
export const HARDWARE_COUNTERS_NOTE =
  "Hardware counters per query (instructions, cycles, IPC, LLC misses): not checked on this run's host.";

/** One figure of one cell: the cost ratio with its interval, or why there is none. */
export interface CostCell {
  test: string;
  threads: number;
  figure: CostFigureKey;
  /** ok: pairs (or values on both sides) to estimate from; not-available: none (see `reason`). */
  status: "ok" | "not-available";
  /** exp(mean d) × 100 (numerator's cost / denominator's), its interval in %; null without one. */
  estimate: number | null;
  low: number | null;
  high: number | null;
  /** Pairs used (paired), or min(n_a, n_b) (unpaired). */
  n: number;
  df: number | null;
  p: number | null;
  /** higher / lower: the interval lies wholly above / below 100; none: it holds 100; unknown: no interval. */
  moved: "higher" | "lower" | "none" | "unknown";
  /** Why there is no estimate or no interval (e.g. "mariadb: no redo bytes reading", too-few-pairs). */
  reason?: string;
  /** The two sides read different counters (MariaDB's Rows_read against MySQL's Innodb_rows_read). */
  note?: string;
  /** Each side's median cost per query over its repeats, and the values (index = repeat − 1; null where none). */
  numeratorMedian: number | null;
  denominatorMedian: number | null;
  numeratorValues: Array<number | null>;
  denominatorValues: Array<number | null>;
}

/** The cost-per-query comparison of two sides over the cells of a table. */
export interface CostTable {
  numerator: string;
  denominator: string;
  numeratorLabel: string;
  denominatorLabel: string;
  pairing: Pairing;
  confidence: number;
  /** Test × threads in table order, each with one CostCell per figure (COST_FIGURES order). */
  cells: Array<{ test: string; threads: number; figures: CostCell[] }>;
  /** Whether any record of either side carries `state.perQuery` (else the table says nothing). */
  recorded: boolean;
  hardware: string;
}

export interface CostTableOptions {
  pairing?: Pairing;
  /** The run stopped its cells on their estimated width (adaptive repeats): estimateRun's stages. */
  sequential?: boolean;
  confidence?: number;
  /** The host's hardware counters in words (HostFacts.hardwareCounters); HARDWARE_COUNTERS_NOTE without. */
  hardware?: string;
}

/** A record's figure: the number when the cell measured and the reading exists, else null. */
export function costValue(r: CellRecord | undefined, key: CostFigureKey): number | null {
  if (!r || r.status !== "ok" || !r.metrics || r.metrics.status === "failed") return null;
  const v = r.state?.perQuery?.[key];
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null;
}

const finite = (xs: Array<number | null>) => xs.filter((x): x is number => x !== null);
const label = (key: CostFigureKey) => COST_FIGURES.find((f) => f.key === key)!.label;

function byRepeat(rs: readonly CellRecord[], test: string, threads: number): Map<number, CellRecord> {
  return new Map(
    measureRecords(rs)
      .filter((r) => r.test === test && r.threads === threads && r.repeat >= 1)
      .map((r) => [r.repeat, r]),
  );
}

/** The counter a side read for a figure that has alternatives (rows read, redo bytes); null when none or mixed. */
function counterOf(rs: Map<number, CellRecord>, key: CostFigureKey): string | null {
  if (key !== "rowsRead" && key !== "logBytes") return null;
  const names = new Set(
    [...rs.values()].map((r) => r.state?.perQuery?.counters?.[key]).filter((n): n is string => typeof n === "string"),
  );
  return names.size === 1 ? [...names][0]! : names.size > 1 ? [...names].join("/") : null;
}

/** Why a side gives no usable value: nothing recorded, or no reading of this figure. */
function missingReason(id: string, rs: Map<number, CellRecord>, key: CostFigureKey): string | null {
  const ok = [...rs.values()].filter((r) => r.status === "ok");
  if (!ok.length) return `${id}: no measured repeat`;
  if (!ok.some((r) => r.state?.perQuery)) return `${id}: no cost readings recorded`;
  const absent = new Set(
    ok.map((r) => r.state?.perQuery?.absent?.[key as "readBytes"]).filter((x): x is string => typeof x === "string"),
  );
  if (absent.size) return `${id}: ${[...absent].join("; ")}`;
  const vals = finite([...rs.values()].map((r) => costValue(r, key)));
  if (!vals.length)
    return `${id}: no ${label(key)} reading${key === "rowsRead" ? " (no row counter)" : key === "logBytes" ? " (no redo counter)" : ""}`;
  if (vals.every((v) => v === 0)) return `${id}: ${label(key)} is 0 in every repeat (no ratio)`;
  return null;
}

/**
 * A side whose figure is 0 in most of its repeats (its median is 0): a ratio from its few non-zero repeats would
 * stand for the exceptions, not the cell. A reduced seed run on this project's VM printed "bytes read 8.03×" where
 * MySQL's median was 0 B: a read or two after a restore, against none in the other repeats.
 */
function mostlyZero(id: string, rs: Map<number, CellRecord>, key: CostFigureKey): string | null {
  const vals = finite([...rs.values()].map((r) => costValue(r, key)));
  const zeros = vals.filter((v) => v === 0).length;
  return vals.length && zeros > 0 && zeros * 2 >= vals.length
    ? `${id}: ${label(key)} is 0 in ${zeros} of ${vals.length} repeats (no ratio: it would stand for the others)`
    : null;
}

/**
 * The cost table of two sides. Paired: a pair per repeat where both sides have a positive value (a figure that is
 * null or 0 on either side in a repeat is left out of that pair); unpaired: each side's positive values, or with
 * several runs a side each run's mean log (as ratio.ts does for q/s).
 */
export function costTableFromSides(
  num: Side,
  den: Side,
  tests: readonly string[],
  threads: readonly number[],
  opts: CostTableOptions = {},
): CostTable {
  const pairing = opts.pairing ?? "paired";
  const confidence = opts.confidence ?? DEFAULT_CONFIDENCE;
  const byRuns = pairing === "unpaired" && (num.runs?.length ?? 0) >= 2 && (den.runs?.length ?? 0) >= 2;
  const cells = tests.flatMap((test) =>
    threads.map((t) => ({ test, threads: t, ra: byRepeat(num.records, test, t), rb: byRepeat(den.records, test, t) })),
  );
  const present = cells.filter((c) => c.ra.size > 0 || c.rb.size > 0);
  const out: CostTable["cells"] = present.map((c) => ({ test: c.test, threads: c.threads, figures: [] }));
  for (const fig of COST_FIGURES) {
    const key = fig.key;
    const inputs: Array<CellInput & UnpairedInput> = [];
    const drafts = present.map((c): CostCell => {
      const len = Math.max(0, ...c.ra.keys(), ...c.rb.keys());
      const av = Array.from({ length: len }, (_, i) => costValue(c.ra.get(i + 1), key));
      const bv = Array.from({ length: len }, (_, i) => costValue(c.rb.get(i + 1), key));
      const pos = (x: number | null): x is number => x !== null && x > 0;
      const input: CellInput & UnpairedInput = { pairs: [], a: [], b: [] };
      if (pairing === "paired") {
        input.pairs = av.flatMap((a, i) =>
          pos(a) && pos(bv[i]!) ? [pairObs(Math.log(a / bv[i]!), c.ra.get(i + 1), c.rb.get(i + 1))] : [],
        );
      } else if (byRuns) {
        const runMeans = (runs: CellRecord[][]) =>
          runs.flatMap((rs) => {
            const vs = [...byRepeat(rs, c.test, c.threads).values()].map((r) => costValue(r, key)).filter(pos);
            return vs.length ? [vs.reduce((x, v) => x + Math.log(v), 0) / vs.length] : [];
          });
        input.a = runMeans(num.runs!);
        input.b = runMeans(den.runs!);
      } else {
        input.a = av.filter(pos).map(Math.log);
        input.b = bv.filter(pos).map(Math.log);
      }
      inputs.push(input);
      const ca = counterOf(c.ra, key);
      const cb = counterOf(c.rb, key);
      const zero = mostlyZero(num.id, c.ra, key) ?? mostlyZero(den.id, c.rb, key);
      const reason = missingReason(num.id, c.ra, key) ?? missingReason(den.id, c.rb, key) ?? zero;
      const usable =
        zero === null && (pairing === "paired" ? input.pairs.length > 0 : input.a.length > 0 && input.b.length > 0);
      const cell: CostCell = {
        test: c.test,
        threads: c.threads,
        figure: key,
        status: usable ? "ok" : "not-available",
        estimate: null,
        low: null,
        high: null,
        n: 0,
        df: null,
        p: null,
        moved: "unknown",
        numeratorMedian: finite(av).length ? roundTo(median(finite(av)), 6) : null,
        denominatorMedian: finite(bv).length ? roundTo(median(finite(bv)), 6) : null,
        numeratorValues: av,
        denominatorValues: bv,
      };
      if (!usable)
        cell.reason =
          reason ??
          (pairing === "paired" ? "no repeat with a positive value on both sides" : "no positive value on one side");
      if (ca && cb && ca !== cb) cell.note = `${num.id} reads ${ca}, ${den.id} reads ${cb}`;
      return cell;
    });
    const run =
      pairing === "paired"
        ? estimateRun(inputs, { confidence, marginPct: DEFAULT_MARGIN_PCT, sequential: opts.sequential === true })
        : estimateUnpaired(inputs, { confidence, marginPct: DEFAULT_MARGIN_PCT });
    drafts.forEach((cell, i) => {
      const e: CellEstimate = run.cells[i]!;
      if (cell.status === "ok") {
        Object.assign(cell, {
          estimate: roundTo(e.estimate),
          low: roundTo(e.low),
          high: roundTo(e.high),
          n: e.n,
          df: roundTo(e.df, 3),
          p: roundTo(e.p, 6),
        });
        cell.moved =
          e.low === null || e.high === null ? "unknown" : e.low > 100 ? "higher" : e.high < 100 ? "lower" : "none";
        if (e.reason) cell.reason = e.reason;
      }
      out[i]!.figures.push(cell);
    });
  }
  const recorded = [...num.records, ...den.records].some((r) => r.state?.perQuery);
  return {
    numerator: num.id,
    denominator: den.id,
    numeratorLabel: num.label,
    denominatorLabel: den.label,
    pairing,
    confidence,
    cells: out,
    recorded,
    hardware: opts.hardware ?? HARDWARE_COUNTERS_NOTE,
  };
}
