/**
 * The blocks of a cumulative sysbench report: a header line, then lines in a fixed order; optional lines may be
 * missing. A line that does not fit ends the block if every required line was seen, and is an error otherwise.
 * Each block's lines and the typed values read from them.
 */
import { SysbenchParseError } from "./error.ts";
import { NUM, num, secondsToMs, type Line } from "./lines.ts";

export type Value =
  | { kind: "none" }
  | { kind: "int"; n: number }
  | { kind: "countRate"; n: number; perSec: number | null }
  | { kind: "number"; n: number | null }
  /** A duration with its unit as printed: `s`, `ms`, or none. `ms` holds the value in milliseconds. */
  | { kind: "duration"; text: string; unit: "s" | "ms" | ""; ms: number | null }
  | { kind: "pair"; a: number | null; b: number | null }
  | { kind: "percentile"; p: number | null; n: number | null };

type Kind = "none" | "int" | "countRate" | "number" | "seconds" | "duration" | "pair" | "percentile" | "approx";

interface Spec {
  key: string;
  /** Matches the trimmed line's label; the rest of the line (trimmed) is the value. */
  label: RegExp;
  kind: Kind;
  optional?: boolean;
}

interface BlockDef {
  slot: Slot;
  name: string;
  header: RegExp;
  specs: Spec[];
  legacyMarker?: boolean;
}

export type Slot = "stats" | "general" | "latency" | "fairness";

const L = (s: string): RegExp => new RegExp("^" + s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&") + "\\s*");

const STATS_SPECS: Spec[] = [
  { key: "read", label: L("read:"), kind: "int" },
  { key: "write", label: L("write:"), kind: "int" },
  { key: "other", label: L("other:"), kind: "int" },
  { key: "total", label: L("total:"), kind: "int" },
  { key: "transactions", label: L("transactions:"), kind: "countRate" },
  // 1.0
  { key: "queries", label: L("queries:"), kind: "countRate", optional: true },
  // 0.4
  { key: "deadlocks", label: L("deadlocks:"), kind: "countRate", optional: true },
  // 0.4 / 0.5
  { key: "readWriteRequests", label: L("read/write requests:"), kind: "countRate", optional: true },
  { key: "otherOperations", label: L("other operations:"), kind: "countRate", optional: true },
  // 1.0 / 0.5
  { key: "ignoredErrors", label: L("ignored errors:"), kind: "countRate", optional: true },
  { key: "reconnects", label: L("reconnects:"), kind: "countRate", optional: true },
];

export const BLOCKS: BlockDef[] = [
  {
    slot: "stats",
    name: "SQL statistics",
    header: /^(SQL statistics|OLTP test statistics):$/,
    specs: [{ key: "queriesPerformed", label: L("queries performed:"), kind: "none" }, ...STATS_SPECS],
  },
  // seed 002's first summary starts at "queries performed:" without the "OLTP test statistics:" header.
  { slot: "stats", name: "queries performed", header: /^queries performed:$/, specs: STATS_SPECS },
  {
    slot: "general",
    name: "General statistics",
    header: /^(General statistics|Test execution summary):$/,
    specs: [
      { key: "totalTime", label: L("total time:"), kind: "seconds" },
      { key: "events", label: L("total number of events:"), kind: "int" },
      // 0.4 / 0.5
      { key: "eventExecution", label: L("total time taken by event execution:"), kind: "duration", optional: true },
      { key: "perRequest", label: /^(per-request statistics|response time):\s*/, kind: "none", optional: true },
      { key: "min", label: L("min:"), kind: "duration", optional: true },
      { key: "avg", label: L("avg:"), kind: "duration", optional: true },
      { key: "max", label: L("max:"), kind: "duration", optional: true },
      { key: "approx", label: /^approx\.\s+(\d+) percentile:\s*/, kind: "approx", optional: true },
    ],
  },
  {
    slot: "latency",
    name: "Latency (ms)",
    header: /^Latency \(ms\):$/,
    specs: [
      { key: "min", label: L("min:"), kind: "number" },
      { key: "avg", label: L("avg:"), kind: "number" },
      { key: "max", label: L("max:"), kind: "number" },
      { key: "percentile", label: /^(?:(\d+)th percentile|percentile stats):\s*/, kind: "percentile" },
      { key: "sum", label: L("sum:"), kind: "number" },
    ],
  },
  {
    slot: "fairness",
    name: "Threads fairness",
    header: /^Threads fairness:$/,
    specs: [
      { key: "events", label: L("events (avg/stddev):"), kind: "pair", optional: true },
      { key: "execTime", label: L("execution time (avg/stddev):"), kind: "pair", optional: true },
      // early 0.4
      { key: "distribution", label: L("distribution:"), kind: "pair", optional: true },
      { key: "execution", label: L("execution:"), kind: "pair", optional: true },
    ],
  },
];

function parseValue(spec: Spec, rest: string, labelMatch: RegExpExecArray, line: Line): Value {
  const bad = (what: string): never => {
    throw new SysbenchParseError(line.no, `expected ${what} after '${labelMatch[0].trim()}', got '${rest}'`, line.raw);
  };
  let m: RegExpExecArray | null;
  switch (spec.kind) {
    case "none":
      if (rest !== "") bad("nothing");
      return { kind: "none" };
    case "int":
      if (!/^\d+$/.test(rest)) bad("an integer");
      return { kind: "int", n: Number(rest) };
    case "countRate":
      m = new RegExp(String.raw`^(\d+)\s+\((${NUM}) per sec\.\)$`).exec(rest);
      if (!m) bad("'N (X per sec.)'");
      return { kind: "countRate", n: Number(m![1]), perSec: num(m![2], line) };
    case "number":
      if (!new RegExp(`^${NUM}$`).test(rest)) bad("a number");
      return { kind: "number", n: num(rest, line) };
    case "seconds":
      m = /^(\d+(?:\.\d+)?)s$/.exec(rest);
      if (!m) bad("seconds like '3.0046s'");
      return { kind: "number", n: Number(m![1]) };
    case "duration": {
      m = /^(\d+(?:\.\d+)?)(s|ms)?$/.exec(rest);
      if (!m) bad("a duration like '0.0153s' or '1.69ms'");
      const unit = (m![2] ?? "") as "s" | "ms" | "";
      return { kind: "duration", text: m![1], unit, ms: unit === "ms" ? Number(m![1]) : secondsToMs(m![1]) };
    }
    case "approx": {
      m = /^(\d+(?:\.\d+)?)(s|ms)$/.exec(rest);
      if (!m) bad("a duration like '13.5697s' or '1.69ms'");
      return { kind: "percentile", p: Number(labelMatch[1]), n: m![2] === "ms" ? Number(m![1]) : secondsToMs(m![1]) };
    }
    case "pair":
      m = new RegExp(`^(${NUM})/(${NUM})$`).exec(rest);
      if (!m) bad("'avg/stddev'");
      return { kind: "pair", a: num(m![1], line), b: num(m![2], line) };
    case "percentile":
      if (labelMatch[1] === undefined) {
        if (rest !== "disabled") bad("'disabled'");
        return { kind: "percentile", p: null, n: null };
      }
      if (!new RegExp(`^${NUM}$`).test(rest)) bad("a number");
      return { kind: "percentile", p: Number(labelMatch[1]), n: num(rest, line) };
  }
}

/** Parse the block whose header is lines[start]; returns the values and the index of the first line after it. */
export function parseBlock(def: BlockDef, lines: Line[], start: number): { values: Map<string, Value>; next: number } {
  const values = new Map<string, Value>();
  let p = 0;
  let i = start + 1;
  for (; i < lines.length; i++) {
    const line = lines[i];
    const t = line.raw.trim();
    let matched = false;
    for (let k = p; k < def.specs.length; k++) {
      const spec = def.specs[k];
      const lm = spec.label.exec(t);
      if (lm && t !== "") {
        values.set(spec.key, parseValue(spec, t.slice(lm[0].length).trim(), lm, line));
        p = k + 1;
        matched = true;
        break;
      }
      if (!spec.optional) break;
    }
    if (!matched) break;
  }
  const missing = def.specs.slice(p).find((s) => !s.optional);
  if (missing) {
    const where = i < lines.length ? lines[i] : undefined;
    const want = missing.label.source
      .replace(/^\^/, "")
      .replace(/\\s\*$/, "")
      .replace(/\\/g, "");
    if (where) {
      throw new SysbenchParseError(
        where.no,
        `unreadable line in the ${def.name} block (expected '${want}'): '${where.raw.trim()}'`,
        where.raw,
      );
    }
    throw new SysbenchParseError(
      lines[lines.length - 1].no,
      `the log ends inside the ${def.name} block (no '${want}' line): truncated?`,
    );
  }
  return { values, next: i };
}
