import { describe, expect, it } from "vitest";
import { isOrphan, LABEL, resourceLabels, resourceName } from "../../src/core/labels.ts";

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
});
