/** The HTML report renderer (src/core/report/html.ts), without a browser. */
import { describe, expect, it } from "vitest";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { load } from "../../support/results-fixture.ts";

describe("html renderer (pure)", () => {
  it("inlines the chart library, escapes names, loads nothing from the network", async () => {
    const { renderHtml } = await import("../../../src/core/report/html.ts");
    const { buildHtmlData } = await import("../../../src/core/report/html-data.ts");
    const { manifest, cells } = load("repeats");
    const m = structuredClone(manifest);
    m.scenario.name = "<img src=x onerror=alert(1)>";
    const html = renderHtml(
      buildHtmlData(m, cells, buildRunReport(m, cells)),
      "/* fake chart.js </script> */ window.Chart=function(){};",
    );
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("/* fake chart.js <\\/script> */");
    expect(html).not.toMatch(/<script[^>]+src=|<link /);
    expect(html).toContain('<table class="ratio">');
  });
  it("escapes thread counts from a results folder, in the table and the forest plot", async () => {
    const { renderHtml } = await import("../../../src/core/report/html.ts");
    const { buildHtmlData } = await import("../../../src/core/report/html-data.ts");
    const { manifest, cells } = load("repeats");
    const evil = "<img src=x onerror=alert(2)>" as unknown as number;
    const m = structuredClone(manifest);
    m.scenario.workload.threads = [evil, ...m.scenario.workload.threads];
    const c = [...cells.map((x) => (x.threads === cells[0]!.threads ? { ...x, threads: evil } : x))];
    const html = renderHtml(buildHtmlData(m, c, buildRunReport(m, c)), "");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;img src=x onerror=alert(2)&gt;");
  });
  it("lets only its own two scripts run: the policy names each by its hash, with no inline script allowed", async () => {
    const { createHash } = await import("node:crypto");
    const { renderHtml } = await import("../../../src/core/report/html.ts");
    const { buildHtmlData } = await import("../../../src/core/report/html-data.ts");
    const { manifest, cells } = load("repeats");
    const html = renderHtml(buildHtmlData(manifest, cells, buildRunReport(manifest, cells)), "window.Chart=1;");
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1]!.replace(/&#39;/g, "'");
    const scriptSrc = csp.split("; ").find((d) => d.startsWith("script-src "))!;
    expect(scriptSrc).not.toContain("unsafe-inline");
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((x) => x[1]!);
    expect(scripts).toHaveLength(2);
    expect(scripts[0]).toBe("window.Chart=1;");
    const hashes = scripts.map((t) => `'sha256-${createHash("sha256").update(t, "utf8").digest("base64")}'`);
    expect(scriptSrc).toBe(`script-src ${hashes.join(" ")}`);
    expect(csp).toMatch(/default-src 'none'/);
  });
  it("shows both readings per cell and the per-cell Benjamini–Hochberg reading", async () => {
    const { renderHtml } = await import("../../../src/core/report/html.ts");
    const { buildHtmlData } = await import("../../../src/core/report/html-data.ts");
    const { manifest, cells } = load("repeats");
    const html = renderHtml(buildHtmlData(manifest, cells, buildRunReport(manifest, cells)), "");
    // read_only @ 4: [101.8–102.2], faster and within ±5%
    expect(html).toMatch(
      /class="cell verdict-faster-within direction-faster equivalence-within" data-verdict="faster-within"/,
    );
    expect(html).toContain('title="faster (p 0.00018, BH q 0.00071: holds at 5% FDR); within ±5%; n=3;');
    expect(html).toContain('<table class="verdicts">');
    expect(html).toContain(
      "<td>oltp_point_select</td><td>1</td><td>90.0</td><td>[87.5–92.5]</td><td>--</td><td>slower</td><td>0.0037</td><td>0.0074</td><td>holds</td><td>not within ±5%</td><td>3</td>",
    );
  });
});
