/**
 * report.html in real headless Chromium (Debian's `chromium`): the answer table is there, the charts were created
 * (the page sets data-charts-ready="N"), and a screenshot renders. Skipped, with a message, without chromium.
 */
import { cp, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readResultsFolder, writeReports } from "../../src/adapters/report-files.ts";
import { buildRunReport } from "../../src/core/report/model.ts";
import { buildHtmlData } from "../../src/core/report/html-data.ts";
import { latencyChartData } from "../../src/core/report/latency.ts";

const FIX = join(import.meta.dirname, "../fixtures/results");

async function findChromium(): Promise<string | null> {
  for (const bin of ["chromium", "chromium-browser", "google-chrome"]) {
    try {
      await execa("which", [bin]);
      return bin;
    } catch {
      /* next */
    }
  }
  return null;
}
const chromium = await findChromium();
if (!chromium) console.warn("report-html: skipped, no chromium on PATH (apt-get install -y chromium)");

describe.skipIf(!chromium)("report.html in headless Chromium", () => {
  let dir: string;
  let profile: string;
  const flags = () => [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    `--user-data-dir=${profile}`,
    "--virtual-time-budget=5000",
    "--hide-scrollbars",
  ];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "tb-html-"));
    profile = await mkdtemp(join(tmpdir(), "tb-chromium-"));
    await cp(join(FIX, "repeats"), dir, { recursive: true });
    await writeReports(dir);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(profile, { recursive: true, force: true });
  });

  it("renders the table and every chart", async () => {
    const folder = await readResultsFolder(dir);
    const report = buildRunReport(folder.manifest, folder.cells);
    const data = buildHtmlData(folder.manifest, folder.cells, report);
    const latencyCharts = latencyChartData(report.latency) === null ? 0 : 1;
    const expected = data.metricCharts.length + data.timeSeries.length + data.histograms.length + latencyCharts;
    // 2 tests; 5 cells with intervals; 5 with histograms; the latency intervals of the first pair
    expect(expected).toBe(13);

    const { stdout } = await execa(chromium!, [...flags(), "--dump-dom", `file://${join(dir, "report.html")}`], {
      timeout: 120_000,
    });
    expect(stdout).not.toMatch(/data-charts-error=/);
    expect(stdout).toMatch(new RegExp(`<body[^>]*data-charts-ready="${expected}"`));
    expect(stdout).toContain('<table class="ratio">');
    // 102.0 [101.8–102.2] at the ±5% margin: faster (its verdict kind, faster and within ±5%, in data-verdict)
    expect(stdout).toContain(
      '<td>102.0</td><td>101.8–102.2</td><td><span class="cell verdict-word-faster" data-verdict="faster-within" data-word="faster">faster</span>',
    );
    expect(stdout).toMatch(/data-verdict="failed" data-word="failed">failed</);
    expect((stdout.match(/<canvas /g) ?? []).length).toBe(expected);

    // The page opens with the answer; the forest plot of every cell comes first among the details.
    expect(stdout.indexOf('<table class="answer">')).toBeGreaterThan(0);
    expect(stdout.indexOf('class="forest"')).toBeGreaterThan(stdout.indexOf("<h2>Details</h2>"));
    expect((stdout.match(/<g class="forest-row"/g) ?? []).length).toBe(
      data.report.table!.rows.reduce((n, r) => n + r.cells.length, 0),
    );

    // No chart's legend takes more room than its plot (the page writes Chart.js's measured boxes on each canvas).
    const canvases = [...stdout.matchAll(/<canvas [^>]*>/g)].map((m) => m[0]);
    const px = (tag: string, name: string) => Number(new RegExp(`data-${name}="(\\d+)"`).exec(tag)?.[1] ?? NaN);
    for (const tag of canvases) {
      const plot = px(tag, "plot-width") * px(tag, "plot-height");
      const legend = px(tag, "legend-width") * px(tag, "legend-height");
      expect(plot, tag).toBeGreaterThan(0);
      expect(legend, tag).toBeLessThanOrEqual(plot);
      expect(px(tag, "legend-height"), tag).toBeLessThanOrEqual(px(tag, "plot-height"));
      // One legend entry per server on the per-server charts: repeats and warm-ups are not listed.
      const id = /id="(ts|hist|metric)-(\d+)"/.exec(tag);
      if (id) {
        const chart = { ts: data.timeSeries, hist: data.histograms, metric: data.metricCharts }[
          id[1] as "ts" | "hist" | "metric"
        ][Number(id[2])]!;
        expect(px(tag, "legend-items"), tag).toBe(new Set(chart.series.map((x) => x.server)).size);
      }
    }
  }, 180_000);

  it("takes a screenshot", async () => {
    const shot = join(dir, "report.png");
    await execa(
      chromium!,
      [...flags(), `--screenshot=${shot}`, "--window-size=1280,2000", `file://${join(dir, "report.html")}`],
      { timeout: 120_000 },
    );
    const png = await readFile(shot);
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    // a blank page compresses to a few KB; the table and charts make it much larger
    expect((await stat(shot)).size).toBeGreaterThan(50_000);
  }, 180_000);
});
