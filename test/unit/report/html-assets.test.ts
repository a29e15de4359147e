/**
 * The report page's style sheet and client script. The script runs here against a stand-in document and chart
 * library: it draws one chart per canvas the data names, and flags how many it drew, or why it failed.
 */
import { describe, expect, it } from "vitest";
import { CSS, SCRIPT } from "../../../src/core/report/html-assets.ts";

interface Made {
  id: string;
  type: string;
  datasets: Array<{ label: string; legend?: boolean }>;
}

/** Run SCRIPT with `data` as the embedded JSON and canvases for `ids`; what it made and what it flagged. */
function runScript(data: unknown, ids: string[]) {
  const made: Made[] = [];
  const canvases = new Map(ids.map((id) => [id, { id, dataset: {} as Record<string, string> }]));
  const body = { dataset: {} as Record<string, string> };
  const document = {
    body,
    getElementById: (id: string) =>
      id === "twinbench-data" ? { textContent: JSON.stringify(data) } : (canvases.get(id) ?? null),
  };
  class Chart {
    static defaults: Record<string, unknown> = {};
    static register() {}
    chartArea = { left: 0, right: 400, top: 0, bottom: 200 };
    legend = { options: {}, width: 100, height: 20, legendItems: [] };
    canvas: { dataset: Record<string, string> };
    constructor(
      el: { id: string; dataset: Record<string, string> },
      config: { type: string; data: { datasets: Made["datasets"] } },
    ) {
      this.canvas = el;
      made.push({ id: el.id, type: config.type, datasets: config.data.datasets });
    }
  }
  new Function("document", "Chart", SCRIPT)(document, Chart);
  return { made, body, canvases };
}

const data = {
  servers: ["mariadb", "mysql"],
  metricCharts: [
    {
      test: "oltp_read_only",
      metric: "qps",
      threads: [1, 4],
      series: [
        { server: "mariadb", medians: [1, 2], points: [] },
        { server: "mysql", medians: [1, 2], points: [] },
      ],
    },
  ],
  timeSeries: [
    {
      test: "oltp_read_only",
      threads: 1,
      field: "qps",
      series: [
        { server: "mariadb", repeat: 1, warmup: true, threads: 1, points: [[-1, 5]] },
        { server: "mariadb", repeat: 1, warmup: false, points: [[1, 5]] },
        { server: "mariadb", repeat: 2, warmup: false, points: [[1, 6]] },
      ],
    },
  ],
  histograms: [{ test: "oltp_read_only", threads: 1, series: [{ server: "mysql", repeat: 1, points: [[1, 2]] }] }],
  costChart: { labels: ["a"], title: "costs", datasets: [{ label: "server CPU", data: [90] }] },
};

describe("SCRIPT", () => {
  it("draws one chart per canvas the data names and flags how many", () => {
    const { made, body, canvases } = runScript(data, ["metric-0", "ts-0", "hist-0", "costs-0"]);
    expect(made.map((m) => `${m.id}:${m.type}`)).toEqual(["metric-0:line", "ts-0:line", "hist-0:line", "costs-0:bar"]);
    expect(body.dataset.chartsReady).toBe("4");
    expect(body.dataset.chartsError).toBeUndefined();
    expect(canvases.get("metric-0")!.dataset).toMatchObject({
      plotWidth: "400",
      plotHeight: "200",
      legendWidth: "100",
    });
  });

  it("a median line and the repeats per server, with one legend entry per server", () => {
    const m = runScript(data, ["metric-0"]).made[0]!;
    expect(m.datasets.map((d) => [d.label, d.legend === true])).toEqual([
      ["mariadb", true],
      ["mariadb repeats", false],
      ["mysql", true],
      ["mysql repeats", false],
    ]);
  });

  it("per-second lines: a server's first measured repeat carries its legend entry, the warm-up does not", () => {
    const ts = runScript(data, ["ts-0"]).made[0]!;
    expect(ts.datasets.map((d) => [d.label, d.legend])).toEqual([
      ["mariadb warm-up (1 threads)", false],
      ["mariadb", true],
      ["mariadb", false],
    ]);
  });

  it("skips a chart without its canvas", () => {
    const { made, body } = runScript(data, ["hist-0"]);
    expect(made.map((m) => m.id)).toEqual(["hist-0"]);
    expect(body.dataset.chartsReady).toBe("1");
  });

  it("flags the error when the data cannot be read", () => {
    const { body } = runScript({ servers: [] }, []);
    expect(body.dataset.chartsReady).toBeUndefined();
    expect(body.dataset.chartsError).toMatch(/forEach/);
  });
});

describe("CSS", () => {
  it("styles every verdict, direction and state class the table uses, and cannot close its style element", () => {
    for (const cls of [
      "direction-faster",
      "direction-slower",
      "verdict-equivalent",
      "verdict-inconclusive",
      "verdict-unknown",
      "status-failed",
      "fdr-fails",
    ])
      expect(CSS).toContain(`.${cls}{`);
    expect(CSS).not.toMatch(/<\/style/i);
  });
});
