import { describe, expect, it } from "vitest";
import {
  CONNECTION_HEADROOM,
  MIN_MAX_CONNECTIONS,
  parseCpuset,
  plannedMaxConnections,
  requiredMaxConnections,
} from "../../../../src/core/model/scenario/limits.ts";
import { SERVERS_AB, scenario, validated } from "../../../support/scenario.ts";
import type { Scenario } from "../../../../src/core/model/scenario/schema.ts";

describe("connections", () => {
  it.each([
    [[1, 2, 4], 14],
    [[300], 310],
    [[16, 1], 26],
  ])("threads %j need %d connections", (threads, want) => {
    expect(requiredMaxConnections({ workload: { threads } } as never)).toBe(want);
    expect(want - Math.max(...threads)).toBe(CONNECTION_HEADROOM);
  });

  it.each([
    ["unset: the servers' floor", {}, undefined, MIN_MAX_CONNECTIONS],
    [
      "unset, many threads: threads + headroom",
      { workload: { tests: ["oltp_point_select"], threads: [200] } },
      undefined,
      210,
    ],
    ["auto", { config: { set: { max_connections: "auto" } } }, undefined, 151],
    ["set for every server", { config: { set: { max_connections: 500 } } }, "a", 500],
    [
      "set for one server only",
      { servers: [{ ...SERVERS_AB[0], config: { set: { max_connections: 300 } } }, SERVERS_AB[1]] },
      "a",
      300,
    ],
    [
      "the other server keeps the default",
      { servers: [{ ...SERVERS_AB[0], config: { set: { max_connections: 300 } } }, SERVERS_AB[1]] },
      "b",
      151,
    ],
  ])("%s", (_, over, id, want) => {
    expect(plannedMaxConnections(scenario(over, { check: "schema" }), id)).toBe(want);
  });
});

describe("parseCpuset", () => {
  it.each([
    ["1", [1]],
    ["0-2,5", [0, 1, 2, 5]],
    ["3,1,1-2", [1, 2, 3]],
    ["2-1", undefined],
  ])("%s → %j", (v, want) => {
    expect(parseCpuset(v)).toEqual(want);
  });
});

describe("limits of a validated scenario", () => {
  it("plans max_connections as the most threads + 10 (at least 151) unless config.set says more", () => {
    expect(plannedMaxConnections((validated() as { scenario: Scenario }).scenario)).toBe(151);
    expect("scenario" in validated((d) => (d.config = { set: { max_connections: "auto" } }))).toBe(true);
    const r = validated((d) => (d.workload.threads = [1, 300]));
    if ("errors" in r) throw new Error(r.errors.join("\n"));
    expect(plannedMaxConnections(r.scenario)).toBe(310);
    const r2 = validated((d) => {
      d.workload.threads = [1, 300];
      d.config = { set: { max_connections: 1000 } };
    });
    expect(plannedMaxConnections((r2 as { scenario: Scenario }).scenario)).toBe(1000);
  });
});
