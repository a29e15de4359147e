/** The host-vs-host report (src/core/report/hosts.ts), on the compare-a / compare-b fixtures. */
import { describe, expect, it } from "vitest";
import { factsA } from "../../support/host-facts.ts";
import { readFileSync } from "node:fs";
import { compareHosts, renderHostsHtml, renderHostsMarkdown, renderHostsText } from "../../../src/core/report/hosts.ts";
import type { CellRecord, HostFacts, RunManifest } from "../../../src/core/model/results.ts";

// ---- merging and reports on the compare-a / compare-b fixtures (two runs of the same scenario) ----

const fixture = (name: string) => {
  const dir = new URL(`../../fixtures/results/${name}/`, import.meta.url);
  const manifest = JSON.parse(readFileSync(new URL("run.json", dir), "utf8")) as RunManifest;
  const cells = readFileSync(new URL("cells.jsonl", dir), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CellRecord);
  return { manifest, cells };
};

describe("host-vs-host report", () => {
  const a = fixture("compare-a");
  const b = fixture("compare-b");
  const run = (id: string, f: typeof a, facts: HostFacts) => ({
    id,
    status: "ok" as const,
    dir: `hosts/${id}`,
    manifest: {
      ...f.manifest,
      hosts: [facts],
      servers: f.manifest.servers.map((s) => ({
        ...s,
        storage: {
          kind: "tmpfs" as const,
          fsType: "tmpfs",
          mountOptions: id === "a" ? "rw,relatime" : "rw,noatime",
          details: { volume: `v-${id}`, device: "tmpfs" },
        },
      })),
    },
    cells: f.cells,
  });
  const cmp = compareHosts([run("a", a, factsA), run("b", b, { ...factsA, id: "b", kernel: "6.1.0-21-amd64" })]);

  it("host A / host B per server", () => {
    expect(cmp.tables.map((t) => `${t.server}: ${t.numeratorHost}/${t.denominatorHost}`)).toEqual([
      "mariadb: a/b",
      "mysql: a/b",
    ]);
    const t = cmp.tables[0]!.table;
    const cell = t.rows[0]!.cells[0]!;
    expect(cell.status).toBe("ok");
    expect(cell.ratio).toBeCloseTo((cell.numeratorMedian! / cell.denominatorMedian!) * 100, 0);
    expect(t.numeratorLabel).toBe("mariadb@a");
  });

  it("the facts diff: host facts side by side, server facts that differ (per-host names dropped)", () => {
    expect(cmp.facts.filter((f) => !f.equal && f.field !== "engine").map((f) => f.field)).toEqual(["kernel"]);
    expect(cmp.serverFacts.map((d) => `${d.scope} ${d.field}`)).toEqual(
      expect.arrayContaining(["server mariadb storage mountOptions", "server mysql storage mountOptions"]),
    );
    expect(cmp.serverFacts.some((d) => d.field === "storage details")).toBe(false);
    const text = renderHostsText(cmp);
    expect(text).toContain("Server mariadb: host a / host b");
    expect(text).toContain("(mariadb@a q/s / mariadb@b q/s * 100)");
    expect(text).toMatch(/\* kernel\s+6\.1\.0-18-amd64\s+6\.1\.0-21-amd64/);
    const md = renderHostsMarkdown(cmp);
    expect(md).toContain("## mariadb: host a / host b");
    expect(md).toContain("| kernel | 6.1.0-18-amd64 | 6.1.0-21-amd64 | **yes** |");
  });

  it("report-hosts.html: the same content, every text escaped", () => {
    const c = compareHosts([
      run("a", a, factsA),
      run("b", b, { ...factsA, id: "b", kernel: "6.1.0-21-amd64", os: `Debian <12> "bookworm" & 'more'` }),
    ]);
    const html = renderHostsHtml(c);
    expect(html).toContain("<h1>Host comparison: a vs b</h1>");
    expect(html).toContain("<h2>mariadb: host a / host b</h2>");
    expect(html).toContain("Debian &lt;12&gt; &quot;bookworm&quot; &amp; &#39;more&#39;");
    expect(html).not.toContain("<12>");
  });

  it("a lost host: partial, named by id, no table", () => {
    const c = compareHosts([
      run("a", a, factsA),
      { id: "b", status: "unreachable", error: "its engine stopped answering" },
    ]);
    expect(c.tables).toEqual([]);
    const text = renderHostsText(c);
    expect(text).toContain("host b: unreachable - its engine stopped answering");
    expect(text).toContain("PARTIAL");
  });
});
