import { describe, expect, it } from "vitest";
import {
  inRun,
  isOrphan,
  labelOwner,
  ownerStatus,
  runIdInRun,
  LABEL,
  resourceLabels,
  resourceName,
  type ProcessProbe,
} from "../../../src/core/base/labels.ts";

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
  const me = { hostname: "box", pidNs: "4026531836", bootId: "b1" };
  const running = (): ProcessProbe => ({ state: "running", startTime: "500" });
  const gone = (): ProcessProbe => ({ state: "gone" });
  const unreadable = (): ProcessProbe => ({ state: "unreadable", reason: "EACCES" });
  const own = {
    "twinbench.pid": "4242",
    "twinbench.hostname": "box",
    "twinbench.pidns": "4026531836",
    "twinbench.boot": "b1",
  };
  it.each([
    ["its process is gone (ENOENT)", own, gone, true],
    ["its process runs", own, running, false],
    ["its /proc entry cannot be read (EACCES is not absence)", own, unreadable, false],
    ["another host", { ...own, "twinbench.hostname": "other" }, gone, false],
    [
      "another pid namespace (a run in a container beside one on the host)",
      { ...own, "twinbench.pidns": "4026532999" },
      gone,
      false,
    ],
    ["another boot", { ...own, "twinbench.boot": "b0" }, gone, false],
    [
      "labels of an older twinbench, without namespace or boot",
      { "twinbench.pid": "4242", "twinbench.hostname": "box" },
      gone,
      false,
    ],
    ["no owner at all (tests, tools)", { "twinbench.hostname": "box" }, gone, false],
    ["its pid now belongs to a process started later", { ...own, "twinbench.start": "400" }, running, true],
  ] as const)("orphan: %s", (_what, labels, probe, expected) => {
    expect(isOrphan(labels, me, probe)).toBe(expected);
  });
  it("a caller that cannot read its own namespace or boot judges no owner dead", () => {
    expect(ownerStatus(labelOwner(own)!, { hostname: "box" }, gone)).toBe("unknown");
    expect(ownerStatus(labelOwner(own)!, { hostname: "box", pidNs: "4026531836" }, gone)).toBe("unknown");
    expect(ownerStatus(labelOwner(own)!, me, gone)).toBe("dead");
  });
  it("labels carry the owner's pid namespace, boot id and start time when known", () => {
    const l = resourceLabels({ ...ctx, pidNs: "4026531836", bootId: "b1", startTime: "500" });
    expect(labelOwner(l)).toEqual({ pid: 4242, hostname: "box", pidNs: "4026531836", bootId: "b1", startTime: "500" });
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
