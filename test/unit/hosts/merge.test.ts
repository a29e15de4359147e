/** Merging a sharded run (src/core/hosts/merge.ts), on the compare-a / compare-b fixtures. */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { mergeShard, mergeStatus } from "../../../src/core/hosts/merge.ts";
import { renderShardMarkdown } from "../../../src/core/report/hosts.ts";
import type { CellRecord, RunManifest } from "../../../src/core/model/results.ts";

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

describe("merging a sharded run", () => {
  const a = fixture("compare-a");
  const planned = a.manifest.cells.map((c, i) => ({ ...c, host: i % 4 < 2 ? "a" : "b" }));
  const keysOf = (h: string) => new Set(planned.filter((c) => c.host === h).map((c) => c.key));
  const part = (host: string, folder: string, keys: Set<string>) => ({
    host,
    folder,
    manifest: { ...a.manifest, runId: `r-${folder}`, hosts: [{ id: host }], timings: { measure: 10 } },
    cells: a.cells.filter((c) => keys.has(c.key)),
  });

  it("one folder: every cell, host kept, raw paths under raw/<folder>/", () => {
    const m = mergeShard({
      runId: "r",
      parts: [part("a", "a", keysOf("a")), part("b", "b", keysOf("b"))],
      plannedCells: planned,
      hostFacts: [{ id: "a" }, { id: "b" }],
    });
    expect(m.manifest.runId).toBe("r");
    expect(m.manifest.status).toBe(mergeStatus(planned, a.cells, false));
    expect(m.cells.length).toBe(a.cells.filter((c) => keysOf("a").has(c.key) || keysOf("b").has(c.key)).length);
    expect(m.cells.every((c) => c.host === "a" || c.host === "b")).toBe(true);
    expect(m.cells.find((c) => c.host === "b")!.raw.startsWith("raw/b/")).toBe(true);
    expect(m.rawCopies).toEqual([
      { from: "hosts/a/raw", to: "raw/a" },
      { from: "hosts/b/raw", to: "raw/b" },
    ]);
    expect(m.manifest.timings).toEqual({ "a.measure": 10, "b.measure": 10 });
    expect(m.manifest.hostsMixed).toBeUndefined();
  });

  it("a second pass on a survivor fills a lost host's cells; failures and mixing are recorded", () => {
    const bKeys = [...keysOf("b")];
    const half = new Set(bKeys.slice(0, 4));
    const rest = new Set(bKeys.slice(4));
    const m = mergeShard({
      runId: "r",
      parts: [part("a", "a", keysOf("a")), part("b", "b", half), part("a", "a.pass2", rest)],
      plannedCells: planned,
      hostFacts: [{ id: "a" }, { id: "b" }],
      failures: [{ host: "b", message: "its engine stopped answering" }],
      mixed: ["kernel: a=6.1, b=6.2"],
    });
    expect(
      m.cells.filter((c) => rest.has(c.key)).every((c) => c.host === "a" && c.raw.startsWith("raw/a.pass2/")),
    ).toBe(true);
    expect(m.manifest.hostFailures).toEqual([{ host: "b", message: "its engine stopped answering" }]);
    expect(m.manifest.hostsMixed).toEqual(["kernel: a=6.1, b=6.2"]);
    expect(m.manifest.actions!.map((x) => x.action)).toEqual(expect.arrayContaining(["host-lost", "hosts-mixed"]));
    const md = renderShardMarkdown({
      runId: "r",
      hosts: [
        { id: "a", status: "ok" },
        { id: "b", status: "unreachable", error: "gone" },
      ],
      manifest: m.manifest,
      cells: m.cells,
    });
    expect(md).toContain("MIXED HOSTS");
    expect(md).toContain("| b | ");
    expect(md).toContain("host b was lost");
  });

  it("status: every planned cell ok → ok, none → failed, some → partial", () => {
    const ok = (key: string) => ({ key, phase: "measure", status: "ok" }) as CellRecord;
    expect(mergeStatus(planned.slice(0, 2), [ok(planned[0]!.key), ok(planned[1]!.key)], false)).toBe("ok");
    expect(mergeStatus(planned.slice(0, 2), [ok(planned[0]!.key)], false)).toBe("partial");
    expect(mergeStatus(planned.slice(0, 2), [], false)).toBe("failed");
    expect(mergeStatus(planned.slice(0, 2), [], true)).toBe("cancelled");
  });
});
