/**
 * sysbench output parser on real recorded logs (test/fixtures/sysbench/1.0, recorded by scripts/record-fixtures.sh
 * with sysbench 1.0.20 against MariaDB 10.11) and on the legacy fixtures (seed 002 and two hand-written ones).
 *
 * 1. Every field of every fixture equals its `.expected.json` (golden data, reviewed by hand).
 * 2. Independent cross-checks that do not trust the golden files: every number printed in a report, interval or
 *    histogram line occurs in the result; key figures read with separate regexes; histogram sums.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSysbench, parseSysbenchFile } from "../../../../src/core/model/sysbench/parse.ts";
import { splitLines } from "../../../../src/core/model/sysbench/lines.ts";
import type { SysbenchResult } from "../../../../src/core/model/sysbench/result.ts";

const root = join(import.meta.dirname, "../../../fixtures/sysbench");
const read = (dir: string, name: string): string => readFileSync(join(root, dir, name), "utf8");

interface Fixture {
  dir: string;
  name: string;
  text: string;
  expected: SysbenchResult | SysbenchResult[];
}

const fixtures: Fixture[] = ["1.0", "legacy"].flatMap((dir) =>
  readdirSync(join(root, dir))
    .filter((n) => /\.(log|txt)$/.test(n) && n !== "VERSIONS.txt")
    .sort()
    .map((name) => ({
      dir,
      name,
      text: read(dir, name),
      expected: JSON.parse(read(dir, name.replace(/\.(log|txt)$/, ".expected.json"))),
    })),
);
const recorded = fixtures.filter((f) => f.dir === "1.0");

/** What the fixture set must contain; a re-recording that loses one fails here. */
const REQUIRED_1_0 = [
  ...[
    "oltp_delete",
    "oltp_insert",
    "oltp_read_only",
    "oltp_read_write",
    "oltp_point_select",
    "oltp_update_index",
    "oltp_update_non_index",
    "select_random_points",
  ].flatMap((t) => [`${t}-t1.log`, `${t}-t4.log`]),
  "bulk_insert-t2.log",
  "events-2000.log",
  "percentile-0.log",
  "percentile-0-histogram.log",
  "percentile-100.log",
  "forced-shutdown.log",
  "rate-limited.log",
  "deprecated-options.log",
  "default-no-interval.log",
  "fail-bad-password.log",
  "fail-host-not-allowed.log",
  "fail-unknown-database.log",
  "fail-db-access-denied.log",
  "fail-missing-table.log",
  "fail-server-killed.log",
  "fail-unknown-host.log",
  "fail-connection-refused.log",
  "fail-bulk_insert-unprepared.log",
  "crash-reconnect-prepared.log",
  "fail-invalid-option.log",
  "fail-unknown-test.log",
];

describe("fixture set", () => {
  it("has every required recorded log", () => {
    const names = recorded.map((f) => f.name);
    for (const n of REQUIRED_1_0) expect(names, n).toContain(n);
  });
  it("has seed 002", () => {
    expect(fixtures.find((f) => f.name === "seed-002.txt")).toBeDefined();
  });
});

describe.each(fixtures)("$dir/$name", ({ text, expected }) => {
  const results = parseSysbenchFile(text);
  const exp = Array.isArray(expected) ? expected : [expected];

  it("has the expected number of outputs", () => {
    expect(results).toHaveLength(exp.length);
  });

  // Field by field, so that a failure names the field.
  const fields = Object.keys(exp[0]) as Array<keyof SysbenchResult>;
  it.each(fields)("field %s", (field) => {
    results.forEach((r, i) => expect(r[field], `output ${i + 1}`).toEqual(exp[i][field]));
  });

  it("has no field the expected JSON lacks", () => {
    results.forEach((r, i) => expect(Object.keys(r).sort()).toEqual(Object.keys(exp[i]).sort()));
  });

  if (exp.length === 1) {
    it("parseSysbench gives the same single result", () => {
      expect(parseSysbench(text)).toEqual(exp[0]);
    });
  }
});

// ------------------------------------------------------------------------------------------------------------
// Independent cross-checks

/** All numbers anywhere in a value. */
function numbersIn(v: unknown, out = new Set<number>()): Set<number> {
  if (typeof v === "number") out.add(v);
  else if (Array.isArray(v)) v.forEach((x) => numbersIn(x, out));
  else if (v !== null && typeof v === "object") Object.values(v).forEach((x) => numbersIn(x, out));
  return out;
}

/** Lines whose numbers are figures: report blocks, intervals, histogram rows, the header's thread count. */
function figureLines(text: string): string[] {
  const lines = splitLines(text).map((l) => l.raw);
  const out: string[] = [];
  let inReport = false;
  for (const raw of lines) {
    const t = raw.trim();
    if (/^(SQL statistics|General statistics|Latency \(ms\)|Threads fairness|Latency histogram)/.test(t))
      inReport = true;
    if (/^(FATAL|WARNING|ALERT):/.test(t)) {
      inReport = false;
      continue;
    }
    if (
      inReport ||
      /^\[ \d+s \]/.test(t) ||
      /^Number of (threads|unfinished)/.test(t) ||
      /^Report intermediate/.test(t)
    ) {
      out.push(t);
    }
  }
  return out;
}

describe.each(recorded)("every printed figure is in the result: 1.0/$name", ({ text }) => {
  it("finds each number of each report/interval/histogram line", () => {
    const results = parseSysbenchFile(text);
    const have = numbersIn(results);
    for (const line of figureLines(text)) {
      const label = line.replace(/\((avg\/stddev|ms|values are in milliseconds)\)/g, "").replace(/r\/w\/o/g, "");
      for (const tok of label.match(/-?\d+(?:\.\d+)?/g) ?? []) {
        const n = Number(tok);
        // "lat (ms,0%): 0.00" under --percentile=0 is a placeholder, read as null.
        if (/lat \(ms,0%\)/.test(line) && n === 0) continue;
        expect(have.has(n), `${tok} from '${line}'`).toBe(true);
      }
    }
  });
});

/** Key figures read with their own regexes (not the parser's). */
function oracle(text: string): Partial<Record<string, number>> {
  const g = (re: RegExp): number | undefined => {
    const m = re.exec(text);
    return m ? Number(m[1]) : undefined;
  };
  return {
    tps: g(/transactions:\s+\d+\s+\(([\d.]+) per sec\.\)/),
    qps: g(/\n\s+queries:\s+\d+\s+\(([\d.]+) per sec\.\)/),
    reads: g(/\n\s+read:\s+(\d+)/),
    writes: g(/\n\s+write:\s+(\d+)/),
    totalTime: g(/total time:\s+([\d.]+)s/),
    events: g(/total number of events:\s+(\d+)/),
    percentileValue: g(/\d+th percentile:\s+([\d.]+)/),
    max: g(/\n\s+max:\s+([\d.]+)/),
    intervals: (text.match(/^\[ \d+s \] thds:/gm) ?? []).length,
  };
}

describe.each(recorded)("oracle: 1.0/$name", ({ text }) => {
  it("agrees on tps, qps, reads, writes, totalTime, events, percentile, max, intervals", () => {
    const r = parseSysbench(text);
    const o = oracle(text);
    const got: Record<string, number | null> = {
      tps: r.tps,
      qps: r.qps,
      reads: r.reads,
      writes: r.writes,
      totalTime: r.totalTime,
      events: r.events,
      percentileValue: r.latencyMs.percentileValue,
      max: r.latencyMs.max,
      intervals: r.intervals.length,
    };
    for (const [k, v] of Object.entries(o)) expect(got[k], k).toBe(v === undefined ? null : v);
  });
});

describe("histogram property", () => {
  const both = recorded
    .map((f) => ({ name: f.name, r: parseSysbench(f.text) }))
    .filter(({ r }) => r.histogram !== null && r.events !== null);

  it("applies to at least the 17 --histogram runs", () => {
    expect(both.length).toBeGreaterThanOrEqual(17);
  });

  // Holds for every sysbench 1.0.20 log recorded here: the histogram counts every finished event once.
  it.each(both)("counts sum to events: $name", ({ r }) => {
    expect(r.histogram!.reduce((a, [, c]) => a + c, 0)).toBe(r.events);
  });

  it.each(both)("values never decrease (equal values occur: %12.3f rounds narrow buckets): $name", ({ r }) => {
    const vs = r.histogram!.map(([v]) => v);
    for (let i = 1; i < vs.length; i++) expect(vs[i]).toBeGreaterThanOrEqual(vs[i - 1]);
  });
});

// ------------------------------------------------------------------------------------------------------------
// Figures named in the format notes, typed by hand from the logs

describe("hand-checked figures", () => {
  const get = (name: string) => parseSysbench(recorded.find((f) => f.name === name)!.text);

  it("oltp_read_write-t4: SQL statistics, errors, percentile 99, histogram rows without a bar", () => {
    const r = get("oltp_read_write-t4.log");
    expect(r.status).toBe("ok");
    expect(r.version).toBe("1.0.20");
    expect(r.threads).toBe(4);
    expect(r.latencyMs.percentile).toBe(99);
    expect(r.intervals.every((i) => i.latencyPercentile === 99)).toBe(true);
    expect(r.histogram!.some(([, c]) => c === 1)).toBe(true);
    expect(r.totalQueries).toBe((r.reads ?? 0) + (r.writes ?? 0) + (r.other ?? 0));
    expect(r.queries).toBe(r.totalQueries);
  });

  it("percentile-0: 'percentile stats: disabled' and interval latency → null", () => {
    const r = get("percentile-0.log");
    expect(r.latencyMs.percentile).toBeNull();
    expect(r.latencyMs.percentileValue).toBeNull();
    expect(r.latencyMs.sum).not.toBeNull();
    expect(r.intervals.length).toBeGreaterThan(0);
    for (const i of r.intervals) {
      expect(i.latencyPercentile).toBeNull();
      expect(i.latencyMs).toBeNull();
    }
  });

  it("percentile-100: '100th percentile', which can exceed max", () => {
    const r = get("percentile-100.log");
    expect(r.latencyMs.percentile).toBe(100);
    // Not equal to max: the percentile is the upper edge of a histogram bucket, max is exact.
    expect(r.latencyMs.percentileValue!).toBeGreaterThanOrEqual(r.latencyMs.max!);
  });

  it("percentile-0-histogram: a bare FATAL, no header", () => {
    const r = get("percentile-0-histogram.log");
    expect(r).toMatchObject({
      status: "failed",
      version: null,
      fatal: ["--histogram cannot be used with --percentile=0"],
    });
  });

  it("forced-shutdown: unfinished transactions and the FATAL, with a report: ok", () => {
    const r = get("forced-shutdown.log");
    expect(r.status).toBe("ok");
    expect(r.unfinishedTransactions).toBe(2);
    expect(r.fatal).toEqual(["The --max-time limit has expired, forcing shutdown..."]);
  });

  it("rate-limited: queue length lines join their interval", () => {
    const r = get("rate-limited.log");
    expect(r.intervals.length).toBeGreaterThan(0);
    for (const i of r.intervals) expect(typeof i.queueLength).toBe("number");
  });

  it("deprecated-options: WARNING lines before the header belong to the output", () => {
    const r = get("deprecated-options.log");
    expect(r.warnings).toEqual([
      "--num-threads is deprecated, use --threads instead",
      "--max-time is deprecated, use --time instead",
    ]);
    expect(r.threads).toBe(2);
  });

  it("default-no-interval: no intervals, no histogram → [] and null", () => {
    const r = get("default-no-interval.log");
    expect(r.intervals).toEqual([]);
    expect(r.histogram).toBeNull();
    expect(r.reportInterval).toBeNull();
    expect(r.latencyMs.percentile).toBe(95);
  });

  it.each([
    ["fail-bad-password.log", /^error 1045: Access denied for user 'sbtest'@'127\.0\.0\.1' \(using password: YES\)$/],
    ["fail-host-not-allowed.log", /^error 1130: Host '[\d.]+' is not allowed to connect to this MariaDB server$/],
    ["fail-unknown-database.log", /^error 1049: Unknown database 'nosuchdb'$/],
    [
      "fail-db-access-denied.log",
      /^error 1044: Access denied for user 'sbtest'@'127\.0\.0\.1' to database 'nosuchdb'$/,
    ],
    ["fail-missing-table.log", /^MySQL error: 1146 "Table 'sbempty\.sbtest1' doesn't exist"$/],
    ["fail-unknown-host.log", /^error 2005: Unknown server host 'nosuchhost\.invalid'/],
    ["fail-connection-refused.log", /^error 2002: Can't connect to server on '127\.0\.0\.1' \(115\)$/],
    ["fail-server-killed.log", /returned error 2013 \(Lost connection to server during query\)/],
    // printed without a FATAL: prefix; kept in `fatal` all the same
    ["fail-invalid-option.log", /^invalid option: --oltp-table-size=1000$/],
    ["fail-unknown-test.log", /^Cannot find benchmark 'nosuchtest': no such built-in test, file or module$/],
  ])("%s: failed, all nulls, FATAL message kept", (name, re) => {
    const r = get(name);
    expect(r.status).toBe("failed");
    expect(
      r.fatal.some((m) => re.test(m)),
      r.fatal.join("\n"),
    ).toBe(true);
    for (const k of ["reads", "tps", "qps", "totalTime", "events", "transactions"] as const) expect(r[k]).toBeNull();
    expect(r.latencyMs).toEqual({
      min: null,
      avg: null,
      max: null,
      sum: null,
      percentile: null,
      percentileValue: null,
    });
    expect(r.histogram).toBeNull();
  });

  it("fail-server-killed keeps the intervals before the failure", () => {
    const r = get("fail-server-killed.log");
    expect(r.intervals.length).toBeGreaterThan(0);
  });

  it("fail-bulk_insert-unprepared: FATAL messages cut at 4095 characters are split apart again", () => {
    const text = recorded.find((f) => f.name === "fail-bulk_insert-unprepared.log")!.text;
    const r = parseSysbench(text);
    const long = r.fatal.filter((m) => m.length === 4095);
    expect(long.length).toBeGreaterThan(0);
    expect(r.fatal.filter((m) => m.startsWith("`thread_run' function failed"))).toHaveLength(long.length);
    expect(r.fatal.every((m) => !m.includes("FATAL: "))).toBe(true);
  });

  it("crash-reconnect-prepared: sysbench segfaulted (exit 139), log stops after intervals → failed, no FATAL", () => {
    const r = get("crash-reconnect-prepared.log");
    expect(r.status).toBe("failed");
    expect(r.fatal).toEqual([]);
  });
});

describe("legacy: seed 002 (done-when check)", () => {
  const results = parseSysbenchFile(fixtures.find((f) => f.name === "seed-002.txt")!.text);

  it("yields two 0.4 outputs", () => {
    expect(results.map((r) => r.version)).toEqual(["0.4", "0.4"]);
  });

  it("first summary: tps 108.84, reads 1000000, totalTime 183.7486, 95th percentile 13569.7 ms", () => {
    const r = results[0];
    expect(r.tps).toBe(108.84);
    expect(r.reads).toBe(1000000);
    expect(r.totalTime).toBe(183.7486);
    expect(r.latencyMs.percentile).toBe(95);
    expect(r.latencyMs.percentileValue).toBe(13569.7);
  });

  it("second summary: tps 35.80, 95th percentile 250.2 ms, per-request figures in ms", () => {
    const r = results[1];
    expect(r.tps).toBe(35.8);
    expect(r.latencyMs).toEqual({
      min: 16.3,
      avg: 159.9,
      max: 9408.2,
      sum: 3244702.4,
      percentile: 95,
      percentileValue: 250.2,
    });
    expect(r.legacy).toMatchObject({
      readWriteRequests: 1014900,
      readWriteRequestsPerSec: 1790.1,
      fairnessDistributionA: 93.56,
    });
  });

  it("qps and queries are null: 0.4 read/write requests exclude 'other'", () => {
    for (const r of results) {
      expect(r.qps).toBeNull();
      expect(r.queries).toBeNull();
      expect(r.legacy!.readWriteRequests).toBe(r.reads! + r.writes!);
    }
  });

  it("parseSysbench refuses the two-output file and says so", () => {
    expect(() => parseSysbench(fixtures.find((f) => f.name === "seed-002.txt")!.text)).toThrow(
      /2 sysbench outputs.*parseSysbenchFile/,
    );
  });
});
