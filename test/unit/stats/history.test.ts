/** A host's run history: a run's entry from its table, a history line parsed and checked, and cell names. */
import { describe, expect, it } from "vitest";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { cellName, historyEntry, parseHistoryLine } from "../../../src/core/stats/history.ts";
import { load } from "../../support/results-fixture.ts";

const { manifest, cells } = load("repeats");
const table = buildRunReport(manifest, cells).table!;
const entry = historyEntry(manifest, table, { hostKey: "h1", cpuModel: "cpu m" })!;

describe("historyEntry", () => {
  it("one cell per table cell with an interval, carrying the run's id, start and host", () => {
    const withInterval = table.rows.flatMap((r) =>
      r.cells
        .filter((c) => c.estimate !== null && c.low !== null && c.high !== null && c.df !== null)
        .map((c) => `${r.test}@${c.threads}`),
    );
    expect(withInterval.length).toBeGreaterThan(0);
    expect(entry.cells.map((c) => `${c.test}@${c.threads}`)).toEqual(withInterval);
    expect(entry).toMatchObject({
      runId: manifest.runId,
      startedAt: manifest.startedAt,
      hostKey: "h1",
      cpuModel: "cpu m",
    });
  });

  it("a cell's key names the image by its lock tag: the same pinned image built again elsewhere (another id) matches", () => {
    const rebuilt = {
      ...manifest,
      servers: manifest.servers.map((sv) => ({
        ...sv,
        imageTag: `twinbench/${sv.image}:0123456789ab`,
        imageId: "sha256:1",
      })),
    };
    const again = {
      ...rebuilt,
      servers: rebuilt.servers.map((sv) => ({ ...sv, imageId: "sha256:2" })),
    };
    const other = {
      ...rebuilt,
      servers: rebuilt.servers.map((sv) => ({ ...sv, imageTag: `twinbench/${sv.image}:ba9876543210` })),
    };
    const keys = (m: typeof manifest) => historyEntry(m, table, { hostKey: "h1" })!.cells.map((c) => c.key);
    expect(keys(again)).toEqual(keys(rebuilt));
    expect(keys(other)).not.toEqual(keys(rebuilt));
  });

  it("no cell with an interval: null", () => {
    const none = {
      ...table,
      rows: table.rows.map((r) => ({ ...r, cells: r.cells.map((c) => ({ ...c, low: null })) })),
    };
    expect(historyEntry(manifest, none, { hostKey: "h1" })).toBeNull();
  });
});

describe("parseHistoryLine", () => {
  it("a written entry reads back as itself", () => {
    expect(parseHistoryLine(JSON.stringify(entry))).toEqual({ entry });
  });

  it.each<[string, string, RegExp]>([
    ["not JSON", "{runId: 1", /^not JSON \(/],
    ["JSON but not an entry", "{}", /runId/],
    ["an entry without cells", JSON.stringify({ ...entry, cells: [] }), /cells/],
    ["a cell without its key", JSON.stringify({ ...entry, cells: [{ ...entry.cells[0], key: undefined }] }), /key/],
  ])("%s: a reason, on one line", (_, line, reason) => {
    const r = parseHistoryLine(line);
    expect(r).toHaveProperty("problem");
    const problem = (r as { problem: string }).problem;
    expect(problem).toMatch(reason);
    expect(problem).not.toContain("\n");
  });
});

describe("cellName", () => {
  it.each([
    ["oltp_read_only", 1, "oltp_read_only @ 1"],
    ["oltp_update_index", 64, "oltp_update_index @ 64"],
  ])("%s, %i → %s", (test, threads, name) => expect(cellName({ test, threads })).toBe(name));
});
