/** compareRuns: NEW / BASE per server on the recorded compare-a and compare-b runs; the refusals and the regression gate. */
import { describe, expect, it } from "vitest";
import { InputError, TwinbenchError } from "../../../src/core/base/errors.ts";
import type { CellRecord, RunManifest } from "../../../src/core/model/results.ts";
import { assertNoRegression, compareRuns, findRegressions } from "../../../src/core/stats/compare.ts";
import { load } from "../../support/results-fixture.ts";

describe("compareRuns: NEW (B) / BASE (A) per server", () => {
  const a = load("compare-a");
  const b = load("compare-b");

  it("one table per common server, unpaired intervals, known verdicts", () => {
    const cmp = compareRuns(a, b);
    expect(cmp.servers).toEqual(["mariadb", "mysql"]);
    const maria = cmp.tables[0];
    expect(maria).toMatchObject({
      numerator: "mariadb",
      denominator: "mariadb",
      pairing: "unpaired",
      numeratorLabel: "NEW mariadb",
    });
    const cell = (test: string, t: number) =>
      maria.rows.find((r) => r.test === test)!.cells.find((c) => c.threads === t)!;
    expect(cell("oltp_read_only", 1)).toMatchObject({ ratio: 100, estimate: 100, verdict: "equivalent", n: 3 });
    expect(cell("oltp_point_select", 1)).toMatchObject({
      ratio: 110,
      verdict: "faster-beyond",
      direction: "faster",
      equivalence: "beyond",
      fdr: "holds",
    });
    // Every cell has the same log spread (values × 1, 1.01, 0.99 a side): the cells vary less than sampling explains,
    // so the prior's d0 is infinite (fitFDist with evar ≤ 0). moderateRobust caps it at the other cells' 12 df, with
    // the prior variance that d0 = 12 implies, exp(e + ψ(6) − ln 6): the cell's s̃² is 1.152 × its s², with 16 df.
    // Reference, scipy 1.17.1:
    //   a, b = np.log([13500, 13635, 13365]), np.log([15000, 15150, 14850]); m = a.mean() - b.mean()
    //   s2 = (a.var(ddof=1) + b.var(ddof=1)) / 2; e = np.log(s2) - special.digamma(2) + np.log(2)
    //   s0 = np.exp(e + special.digamma(6) - np.log(6)); v = (12 * s0 + 4 * s2) / 16
    //   h = stats.t.ppf(0.975, 16) * np.sqrt(v * (1/3 + 1/3)); np.exp([m - h, m + h]) * 100
    //   -> [88.3432457494479, 91.68782436376142]   (with s2 itself, the classical pooled t: [88.4555, 91.5714];
    //      scipy's ttest_ind on this cell alone, df 4: [87.9826, 92.0636])
    const c = cell("oltp_point_select", 4);
    expect(c).toMatchObject({ ratio: 90, estimate: 90, verdict: "slower-beyond" });
    expect(Math.abs(c.low! - 88.3432457494479)).toBeLessThanOrEqual(0.00005); // the table rounds to 4 decimals
    expect(Math.abs(c.high! - 91.68782436376142)).toBeLessThanOrEqual(0.00005);
    expect(cmp.tables[1].rows.flatMap((r) => r.cells.map((c) => c.verdict))).toEqual([
      "equivalent",
      "equivalent",
      "equivalent",
      "equivalent",
    ]);
    expect(maria.method.unit).toBe("repeats");
  });

  it("lists host facts and effective variables that differ", () => {
    const cmp = compareRuns(a, b);
    expect(cmp.factDiff).toEqual([
      { scope: "host local", field: "kernel", base: "6.1.0-18-amd64", new: "6.12.0-1-amd64" },
      { scope: "host local", field: "cgroup version", base: "1", new: "2" },
    ]);
    expect(cmp.variableDiff).toEqual([
      { scope: "server mariadb", field: "innodb_io_capacity", base: "2000", new: "4000" },
    ]);
    expect(cmp.forced).toBe(false);
  });

  it("--server restricts to one server; an unknown one is an InputError", () => {
    expect(compareRuns(a, b, { server: "mysql" }).tables.map((t) => t.numerator)).toEqual(["mysql"]);
    expect(() => compareRuns(a, b, { server: "percona" })).toThrow(/server "percona" is not in both runs/);
  });

  it.each([
    [
      "threads",
      (m: RunManifest): void => {
        m.scenario.workload.threads = [1, 8];
      },
      "scenario.workload.threads: [1,4] vs [1,8]",
    ],
    [
      "config",
      (m: RunManifest): void => {
        m.scenario.config.set = { innodb_buffer_pool_size: "2g" };
      },
      "scenario.config.set.innodb_buffer_pool_size",
    ],
    ["pins", (m: RunManifest) => (m.servers[0].resources.cpuset = "0-1"), 'pins mariadb.cpuset: "1" vs "0-1"'],
    [
      "cnf",
      (m: RunManifest): void => {
        m.servers[1].cnf += "innodb_doublewrite=OFF\n";
      },
      "config mysql: the rendered my.cnf differs",
    ],
  ] as Array<[string, (m: RunManifest) => void, string]>)(
    "refuses when %s differ, unless forced (then lists them)",
    (_name, mutate, expected) => {
      const b2 = structuredClone(b);
      mutate(b2.manifest);
      let err: unknown;
      try {
        compareRuns(a, b2);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).code).toBe("COMPARE_MISMATCH");
      expect((err as InputError).problems.join("\n")).toContain(expected);
      const forced = compareRuns(a, b2, { force: true });
      expect(forced.forced).toBe(true);
      expect(forced.differences.join("\n")).toContain(expected);
    },
  );

  it("does not refuse different images or hosts: those are what is compared", () => {
    const b2 = structuredClone(b);
    b2.manifest.scenario.servers[0].image = "twinbench/mariadb:11.8-new";
    b2.manifest.servers[0].imageId = "sha256:cccc";
    b2.manifest.scenario.name = "kernels on host 2";
    const cmp = compareRuns(a, b2);
    expect(cmp.factDiff).toContainEqual({
      scope: "server mariadb",
      field: "image id",
      base: "sha256:aaaa",
      new: "sha256:cccc",
    });
  });

  it("regression gate: a cell whose interval lies wholly below the bound", () => {
    const cmp = compareRuns(a, b);
    expect(findRegressions(cmp, 95)).toEqual([
      { server: "mariadb", test: "oltp_point_select", threads: 4, estimate: 90, high: 91.6878 },
    ]);
    expect(findRegressions(cmp, 91.6)).toEqual([]); // 91.6 < high 91.69: not significantly below
    expect(() => assertNoRegression(cmp, 91.6)).not.toThrow();
    try {
      assertNoRegression(cmp, 95);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(TwinbenchError);
      expect((e as TwinbenchError).code).toBe("REGRESSION");
      expect((e as TwinbenchError).exitCode).toBe(1);
      expect((e as TwinbenchError).details[0]).toBe(
        "mariadb oltp_point_select @ 4 threads: 90.0% (interval high 91.7%)",
      );
    }
  });

  it("a single repeat never trips the gate (no interval)", () => {
    const keep1 = (d: { manifest: RunManifest; cells: CellRecord[] }) => ({
      ...d,
      cells: d.cells.filter((c) => c.repeat === 1),
    });
    const cmp = compareRuns(keep1(a), keep1(b));
    expect(cmp.tables[0].rows[1].cells[1]).toMatchObject({ ratio: 90, verdict: "unknown", n: 1 });
    expect(findRegressions(cmp, 95)).toEqual([]);
  });

  it("two runs a side: each run's cell value is one observation, so the interval holds the variance between runs", () => {
    // A second BASE run 4% below the first and a second NEW run 4% above it: between runs the level moves.
    const shift = (d: { manifest: RunManifest; cells: CellRecord[] }, f: number, id: string) => {
      const c = structuredClone(d);
      c.manifest.runId = id;
      for (const r of c.cells) if (r.metrics?.qps) r.metrics.qps *= f;
      return c;
    };
    const one = compareRuns(a, b);
    const two = compareRuns([a, shift(a, 0.96, "compare-a2")], [b, shift(b, 1.04, "compare-b2")]);
    const cellOf = (c: typeof one, t: number) => c.tables[1].rows[0].cells.find((x) => x.threads === t)!;
    expect(two.tables[1].method.unit).toBe("runs");
    expect(cellOf(two, 1).n).toBe(2);
    expect(cellOf(two, 1).high! - cellOf(two, 1).low!).toBeGreaterThan(cellOf(one, 1).high! - cellOf(one, 1).low!);
    expect(two.baseRuns.map((r) => r.runId)).toEqual(["compare-a", "compare-a2"]);
  });
});
