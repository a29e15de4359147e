import { describe, expect, it } from "vitest";
import { inRun, isOrphan, runIdInRun, LABEL, resourceLabels, resourceName } from "../../../src/core/base/labels.ts";

const ctx = { sessionId: "s1", runId: "r1", hostId: "local", pid: 4242, hostname: "box" };

describe("labels", () => {
  it("labels carry session, run, host, pid and hostname", () => {
    expect(resourceLabels(ctx, { [LABEL.role]: "server" })).toEqual({
      "twinbench.session": "s1",
      "twinbench.run": "r1",
      "twinbench.host": "local",
      "twinbench.pid": "4242",
      "twinbench.hostname": "box",
      "twinbench.role": "server",
    });
  });
  it("names are docker-safe", () => {
    expect(resourceName("20261201-0800-ab12", "maria db", "net")).toBe("tb-20261201-0800-ab12-maria_db-net");
  });
  it.each([
    [{ "twinbench.pid": "4242", "twinbench.hostname": "box" }, true, false],
    [{ "twinbench.pid": "4242", "twinbench.hostname": "box" }, false, true],
    [{ "twinbench.pid": "4242", "twinbench.hostname": "other" }, false, false],
    [{ "twinbench.hostname": "box" }, true, false],
  ])("orphan detection %o alive=%s → %s", (labels, alive, expected) => {
    expect(isOrphan(labels, "box", () => alive)).toBe(expected);
  });

  it("a run id finds its own resources and every host's every pass, whatever the number of passes", () => {
    const r = (run: string, host = "local") => ({ [LABEL.run]: run, [LABEL.host]: host });
    const run = "20261201-180000-ab12";
    expect(inRun(r(run), run)).toBe(true);
    for (const pass of [1, 2, 4, 5, 9, 12]) {
      const id = pass === 1 ? `${run}-kernel-26` : `${run}-kernel-26-p${pass}`;
      expect(inRun(r(id, "kernel-26"), run)).toBe(true);
    }
    expect(inRun(r(`${run}-b-p7`, "b"), `${run}-b`)).toBe(false); // a host's run id is exact: its later passes have their own
    expect(inRun(r(`${run}-b-p7`, "a"), run)).toBe(false); // the host label must name the host in the id
    expect(inRun(r(`${run}-b-px`, "b"), run)).toBe(false);
    expect(inRun(r(`${run}9-b`, "b"), run)).toBe(false);
    expect(inRun(r("other"), run)).toBe(false);
    expect(inRun({}, run)).toBe(false);
  });

  it("a storage record's run id (no host label) is in a run when it is the run's or one of its hosts' runs'", () => {
    const run = "20261201-180000-ab12";
    for (const id of [run, `${run}-a`, `${run}-kernel-26-p7`]) expect(runIdInRun(id, run)).toBe(true);
    for (const id of [`${run}9`, `${run}9-a`, `${run}-`, `${run}-A`, "x"]) expect(runIdInRun(id, run)).toBe(false);
  });
});
