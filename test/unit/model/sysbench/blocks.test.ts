/** The report blocks: each block's lines read in order into typed values; optional lines may be missing; a line that
 * does not fit ends the block only when every required line was seen. */
import { describe, expect, it } from "vitest";
import { BLOCKS, parseBlock } from "../../../../src/core/model/sysbench/blocks.ts";
import { SysbenchParseError } from "../../../../src/core/model/sysbench/error.ts";
import { splitLines } from "../../../../src/core/model/sysbench/lines.ts";

const block = (name: string) => BLOCKS.find((b) => b.name === name)!;
const read = (name: string, text: string) => parseBlock(block(name), splitLines(text), 0);
const refusal = (name: string, text: string): SysbenchParseError => {
  try {
    read(name, text);
  } catch (e) {
    return e as SysbenchParseError;
  }
  throw new Error("no error");
};

describe("BLOCKS", () => {
  it.each([
    ["SQL statistics:", "SQL statistics"],
    ["OLTP test statistics:", "SQL statistics"],
    ["General statistics:", "General statistics"],
    ["Test execution summary:", "General statistics"],
    ["Latency (ms):", "Latency (ms)"],
    ["Threads fairness:", "Threads fairness"],
  ])("the header %s opens the %s block", (header, name) => {
    expect(BLOCKS.filter((b) => b.header.test(header)).map((b) => b.name)).toEqual([name]);
  });
});

describe("parseBlock", () => {
  it("reads a 1.0 SQL statistics block: counts, count-and-rate pairs, and where the block ends", () => {
    const text = [
      "SQL statistics:",
      "    queries performed:",
      "        read:                            61110",
      "        write:                           0",
      "        other:                           8730",
      "        total:                           69840",
      "    transactions:                        4365   (1453.92 per sec.)",
      "    queries:                             69840  (23262.71 per sec.)",
      "    ignored errors:                      0      (0.00 per sec.)",
      "    reconnects:                          0      (0.00 per sec.)",
      "",
      "General statistics:",
    ].join("\n");
    const { values, next } = read("SQL statistics", text);
    expect(values.get("read")).toEqual({ kind: "int", n: 61110 });
    expect(values.get("transactions")).toEqual({ kind: "countRate", n: 4365, perSec: 1453.92 });
    expect(values.get("queries")).toEqual({ kind: "countRate", n: 69840, perSec: 23262.71 });
    expect(values.has("deadlocks")).toBe(false);
    expect(next).toBe(10);
  });

  it("reads the latency block, its percentile, and total time in seconds", () => {
    const lat = read(
      "Latency (ms)",
      "Latency (ms):\n  min: 0.44\n  avg: 0.69\n  max: 14.96\n  99th percentile: 3.75\n  sum: 2993.81\n",
    ).values;
    expect(lat.get("min")).toEqual({ kind: "number", n: 0.44 });
    expect(lat.get("percentile")).toEqual({ kind: "percentile", p: 99, n: 3.75 });
    const gen = read(
      "General statistics",
      "General statistics:\n total time: 3.0018s\n total number of events: 4365\n",
    );
    expect(gen.values.get("totalTime")).toEqual({ kind: "number", n: 3.0018 });
    expect(gen.values.get("events")).toEqual({ kind: "int", n: 4365 });
  });

  it("reads a disabled percentile as null", () => {
    const lat = read(
      "Latency (ms)",
      "Latency (ms):\n min: 1\n avg: 1\n max: 1\n percentile stats: disabled\n sum: 1\n",
    );
    expect(lat.values.get("percentile")).toEqual({ kind: "percentile", p: null, n: null });
  });

  it("reads 0.4 durations with their unit, in milliseconds", () => {
    const gen = read(
      "General statistics",
      [
        "Test execution summary:",
        "    total time:                          60.0019s",
        "    total number of events:              10000",
        "    total time taken by event execution: 59.8934",
        "    per-request statistics:",
        "         min:                                  1.69ms",
        "         avg:                                  0.0153s",
        "         max:                                 49.4223s",
        "         approx.  95 percentile:               9.47ms",
      ].join("\n"),
    ).values;
    expect(gen.get("eventExecution")).toEqual({ kind: "duration", text: "59.8934", unit: "", ms: 59893.4 });
    expect(gen.get("min")).toEqual({ kind: "duration", text: "1.69", unit: "ms", ms: 1.69 });
    expect(gen.get("avg")).toEqual({ kind: "duration", text: "0.0153", unit: "s", ms: 15.3 });
    expect(gen.get("approx")).toEqual({ kind: "percentile", p: 95, n: 9.47 });
  });

  it("reads the fairness pairs, nan included", () => {
    const f = read(
      "Threads fairness",
      "Threads fairness:\n events (avg/stddev): 4365.0000/0.00\n execution time (avg/stddev): 2.9938/nan\n",
    );
    expect(f.values.get("events")).toEqual({ kind: "pair", a: 4365, b: 0 });
    expect(f.values.get("execTime")).toMatchObject({ kind: "pair", a: 2.9938 });
  });

  it("a value of the wrong shape is an error naming the line and what was expected", () => {
    const e = refusal("General statistics", "General statistics:\n total time: 3.0018\n total number of events: 1\n");
    expect(e).toBeInstanceOf(SysbenchParseError);
    expect(e.line).toBe(2);
    expect(e.message).toBe("line 2: expected seconds like '3.0046s' after 'total time:', got '3.0018'");
  });

  it("a required line that is missing is an error at the line found instead", () => {
    const e = refusal("Latency (ms)", "Latency (ms):\n min: 1\n max: 2\n");
    expect(e.line).toBe(3);
    expect(e.message).toBe("line 3: unreadable line in the Latency (ms) block (expected 'avg:'): 'max: 2'");
  });

  it("a log that ends inside a block says it may be truncated", () => {
    const e = refusal("Latency (ms)", "Latency (ms):\n min: 1\n avg: 1");
    expect(e.line).toBe(3);
    expect(e.message).toMatch(/the log ends inside the Latency \(ms\) block \(no 'max:' line\): truncated\?/);
  });
});
