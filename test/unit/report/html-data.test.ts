/** What report.html's charts are drawn from, gathered from a recorded run's records. */
import { describe, expect, it } from "vitest";
import { buildHtmlData } from "../../../src/core/report/html-data.ts";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { load } from "../../support/results-fixture.ts";

const { manifest, cells } = load("repeats");
const data = buildHtmlData(manifest, cells, buildRunReport(manifest, cells));

describe("buildHtmlData", () => {
  it("names the pair, the scenario and the run in the title", () => {
    expect(data.title).toBe("MariaDB/MySQL sysbench comparison: repeats (repeats)");
    expect(data.servers).toEqual(["mariadb", "mysql"]);
  });

  it("one metric chart per test: each server's median per thread count and every repeat as a point", () => {
    expect(data.metricCharts.map((c) => [c.test, c.metric, c.threads])).toEqual([
      ["oltp_read_only", "qps", [1, 4, 8]],
      ["oltp_point_select", "qps", [1, 4, 8]],
    ]);
    const ro = data.metricCharts[0]!.series.find((s) => s.server === "mariadb")!;
    expect(ro.medians).toEqual([1100, 1020, 1000]);
    expect(ro.points.filter((p) => p.x === "8").map((p) => p.y)).toEqual([1000, 1500, 800]);
  });

  it("failed repeats give no point, and a cell with none has no median", () => {
    const ps = data.metricCharts[1]!.series.find((s) => s.server === "mysql")!;
    expect(ps.medians[1]).toBeNull();
    expect(ps.points.some((p) => p.x === "4")).toBe(false);
  });

  it("per-second series: the warm-up ends at t = 0, the measured repeats start at 1", () => {
    const ts = data.timeSeries.find((t) => t.test === "oltp_read_only" && t.threads === 1)!;
    expect(ts.field).toBe("qps");
    const warm = ts.series.filter((s) => s.warmup);
    expect(warm.map((s) => s.server)).toEqual(["mariadb", "mysql"]);
    expect(warm[0]!.points.at(-1)![0]).toBe(0);
    expect(warm[0]!.points.every(([t]) => t <= 0)).toBe(true);
    const measured = ts.series.filter((s) => !s.warmup);
    expect(measured.map((s) => `${s.server}/${s.repeat}`)).toEqual([
      "mariadb/1",
      "mariadb/2",
      "mariadb/3",
      "mysql/1",
      "mysql/2",
      "mysql/3",
    ]);
    expect(measured[0]!.points[0]![0]).toBe(1);
  });

  it("histograms only of the repeats that recorded one", () => {
    const h = data.histograms.find((x) => x.test === "oltp_read_only" && x.threads === 1)!;
    expect(h.series.map((s) => `${s.server}/${s.repeat}`)).toEqual(["mariadb/1", "mysql/1"]);
    expect(h.series[0]!.points).toHaveLength(6);
  });

  it("a warm-up at a thread count the table does not show is charted with the first", () => {
    const moved = cells.map((c) =>
      c.phase === "warmup" && c.test === "oltp_read_only" && c.threads === 8 ? { ...c, threads: 16 } : c,
    );
    const d = buildHtmlData(manifest, moved, buildRunReport(manifest, cells));
    const first = d.timeSeries.find((t) => t.test === "oltp_read_only" && t.threads === 1)!;
    expect(first.series.filter((s) => s.warmup).map((s) => s.threads)).toEqual([1, 16, 1, 16]);
    const eight = d.timeSeries.find((t) => t.test === "oltp_read_only" && t.threads === 8)!;
    expect(eight.series.some((s) => s.warmup)).toBe(false);
  });
});
