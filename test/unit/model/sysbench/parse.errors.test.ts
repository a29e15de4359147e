/**
 * Malformed sysbench logs give a SysbenchParseError (code SYSBENCH_PARSE) naming the line — never zeros.
 * Each case edits a real recorded log (or seed 002) the way logs get damaged: cut short, a number truncated,
 * a line garbled, a block missing.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TwinbenchError } from "../../../../src/core/base/errors.ts";
import { parseSysbench, parseSysbenchFile } from "../../../../src/core/model/sysbench/parse.ts";
import { SysbenchParseError } from "../../../../src/core/model/sysbench/error.ts";

const root = join(import.meta.dirname, "../../../fixtures/sysbench");
const rw = readFileSync(join(root, "1.0", "oltp_read_write-t4.log"), "utf8");
const ro = readFileSync(join(root, "1.0", "default-no-interval.log"), "utf8");
const seed = readFileSync(join(root, "legacy", "seed-002.txt"), "utf8");

const lines = (t: string): string[] => t.split("\n");
const lineOf = (t: string, re: RegExp): number => lines(t).findIndex((l) => re.test(l)) + 1;
/** Replace the first line matching `re` with `f(line)`. */
const editLine = (t: string, re: RegExp, f: (l: string) => string): string => {
  const ls = lines(t);
  const i = ls.findIndex((l) => re.test(l));
  if (i < 0) throw new Error(`no line ${re}`);
  ls[i] = f(ls[i]);
  return ls.join("\n");
};
/** Keep the text up to and including the first line matching `re`. */
const cutAfter = (t: string, re: RegExp): string => lines(t).slice(0, lineOf(t, re)).join("\n") + "\n";

interface Case {
  name: string;
  text: string;
  /** Expected line number (null: the whole text). */
  line: number | null;
  message: RegExp;
}

const cases: Case[] = [
  {
    name: "rate truncated mid-number",
    text: editLine(rw, /^\s+transactions:/, (l) => l.replace(/\(([\d.]+) per sec\.\)/, "(79")),
    line: lineOf(rw, /^\s+transactions:/),
    message: /expected 'N \(X per sec\.\)' after 'transactions:'/,
  },
  {
    name: "count with a letter",
    text: editLine(rw, /^\s+read:/, (l) => l.replace(/(\d+)$/, "$1x")),
    line: lineOf(rw, /^\s+read:/),
    message: /expected an integer after 'read:'/,
  },
  {
    name: "garbled label inside Latency (ms)",
    text: editLine(rw, /^\s+avg:/, (l) => l.replace("avg:", "a#g:")),
    line: lineOf(rw, /^\s+avg:/),
    message: /unreadable line in the Latency \(ms\) block \(expected 'avg:'\)/,
  },
  {
    name: "a line missing inside SQL statistics",
    text: lines(rw)
      .filter((l) => !/^\s+write:/.test(l))
      .join("\n"),
    line: lineOf(rw, /^\s+write:/),
    message: /unreadable line in the SQL statistics block \(expected 'write:'\)/,
  },
  {
    name: "log cut inside Latency (ms)",
    text: cutAfter(rw, /^\s+avg:/),
    line: lineOf(rw, /^\s+avg:/),
    message: /ends inside the Latency \(ms\) block \(no 'max:' line\)/,
  },
  {
    name: "log cut after SQL statistics",
    text: cutAfter(rw, /^\s+reconnects:/),
    line: lineOf(rw, /^SQL statistics:/),
    message: /incomplete cumulative report: no 'General statistics', 'Latency \(ms\)', 'Threads fairness'/,
  },
  {
    name: "log cut inside the histogram",
    text:
      lines(rw)
        .slice(0, lineOf(rw, /^Latency histogram/) + 5)
        .join("\n") + "\n",
    line: lineOf(rw, /^Latency histogram/) + 5,
    message: /ends inside the latency histogram/,
  },
  {
    name: "histogram row with a truncated count",
    text: editLine(rw, /^\s+\d+\.\d+ \|/, (l) => l.replace(/ (\d+)$/, " ")),
    line: lineOf(rw, /^\s+\d+\.\d+ \|/),
    message: /unreadable histogram row/,
  },
  {
    name: "histogram without its column header",
    text: lines(rw)
      .filter((l) => !/distribution -+ count/.test(l))
      .join("\n"),
    line: lineOf(rw, /^Latency histogram/) + 1,
    message: /column header/,
  },
  {
    name: "interval line cut short",
    text: editLine(rw, /^\[ 2s \]/, (l) => l.slice(0, 40)),
    line: lineOf(rw, /^\[ 2s \]/),
    message: /unreadable interval line/,
  },
  {
    name: "total time without its unit",
    text: editLine(ro, /total time:/, (l) => l.replace(/s$/, "")),
    line: lineOf(ro, /total time:/),
    message: /expected seconds like '3\.0046s' after 'total time:'/,
  },
  {
    name: "percentile line with a word for a number",
    text: editLine(ro, /95th percentile:/, (l) => l.replace(/[\d.]+$/, "fast")),
    line: lineOf(ro, /95th percentile:/),
    message: /expected a number after '95th percentile:'/,
  },
  {
    name: "thread count unreadable",
    text: editLine(ro, /^Number of threads:/, () => "Number of threads: two"),
    line: lineOf(ro, /^Number of threads:/),
    message: /unreadable thread count/,
  },
  {
    name: "fairness pair cut",
    text: editLine(ro, /events \(avg\/stddev\):/, (l) => l.replace(/\/[\d.]+$/, "/")),
    line: lineOf(ro, /events \(avg\/stddev\):/),
    message: /expected 'avg\/stddev'/,
  },
  {
    name: "seed 002: read count mangled",
    text: editLine(seed, /^read: 1000000$/, () => "read: 1000000x"),
    line: lineOf(seed, /^read: 1000000$/),
    message: /expected an integer after 'read:'/,
  },
  {
    name: "seed 002: per-request statistics without the percentile",
    text: lines(seed)
      .filter((l) => !/^approx\. 95 percentile: 13/.test(l))
      .join("\n"),
    line: lineOf(seed, /^Test execution summary:/),
    message: /per-request statistics need all of min, avg, max/,
  },
  {
    name: "seed 002: percentile value without a unit",
    text: editLine(seed, /^approx\. 95 percentile: 13/, (l) => l.replace(/s$/, "")),
    line: lineOf(seed, /^approx\. 95 percentile: 13/),
    message: /expected a duration like '13\.5697s'/,
  },
  {
    name: "not sysbench output at all",
    text: "Dear list,\nhere are my numbers: 12 34 56.\nRegards\n",
    line: null,
    message: /no sysbench output found .*it starts with 'Dear list,'/,
  },
  {
    name: "empty text",
    text: "",
    line: null,
    message: /empty/,
  },
];

describe.each(cases)("$name", ({ text, line, message }) => {
  it("throws SYSBENCH_PARSE naming the line", () => {
    let err: unknown;
    try {
      parseSysbenchFile(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SysbenchParseError);
    const e = err as SysbenchParseError;
    expect(e).toBeInstanceOf(TwinbenchError);
    expect(e.code).toBe("SYSBENCH_PARSE");
    expect(e.hint).toBeTruthy();
    expect(e.message).toMatch(message);
    expect(e.line).toBe(line);
    if (line !== null) expect(e.message.startsWith(`line ${line}: `)).toBe(true);
  });
});

describe("other refusals", () => {
  it("parseSysbench refuses two outputs", () => {
    expect(() => parseSysbench(rw + ro)).toThrow(/2 sysbench outputs/);
  });

  it("parseSysbenchFile reads the two appended outputs", () => {
    const [a, b] = parseSysbenchFile(rw + ro);
    expect(a.threads).toBe(4);
    expect(b.threads).toBe(2);
  });

  it("--report-checkpoints output is SYSBENCH_UNSUPPORTED, not misread", () => {
    const t = editLine(rw, /^\[ 2s \]/, () => "[ 2s ] Checkpoint report:");
    expect(() => parseSysbench(t)).toThrow(expect.objectContaining({ code: "SYSBENCH_UNSUPPORTED" }));
  });

  it("a queue line without its interval line", () => {
    const t = editLine(rw, /^\[ 2s \]/, () => "[ 2s ] queue length: 0, concurrency: 0");
    expect(() => parseSysbench(t)).toThrow(/queue length line without an interval line/);
  });
});
