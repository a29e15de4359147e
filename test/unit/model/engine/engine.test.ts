/** listLabelled (src/core/model/engine/engine.ts): one label query over containers, networks and volumes at once. */
import { describe, expect, it } from "vitest";
import { listLabelled } from "../../../../src/core/model/engine/engine.ts";
import { FakeEngine } from "../../../support/fake-engine.ts";

describe("listLabelled", () => {
  const engine = () => {
    const e = new FakeEngine();
    e.listed = [
      { kind: "container", id: "c1", name: "tb-r1-a", labels: { "twinbench.session": "s1", "twinbench.run": "r1" } },
      { kind: "network", id: "n1", name: "tb-r1-net", labels: { "twinbench.session": "s1", "twinbench.run": "r1" } },
      { kind: "volume", id: "tb-r1-data", name: "tb-r1-data", labels: { "twinbench.session": "s1" } },
      { kind: "container", id: "c2", name: "other", labels: { "twinbench.session": "s2" } },
    ];
    return e;
  };

  it("gives each kind's resources whose labels match every filter", async () => {
    const r = await listLabelled(engine(), ["twinbench.session=s1"]);
    expect(r.containers.map((c) => c.name)).toEqual(["tb-r1-a"]);
    expect(r.networks.map((n) => n.id)).toEqual(["n1"]);
    expect(r.volumes.map((v) => v.name)).toEqual(["tb-r1-data"]);
    const run = await listLabelled(engine(), ["twinbench.session", "twinbench.run=r1"]);
    expect([...run.containers, ...run.networks, ...run.volumes].map((x) => x.name)).toEqual(["tb-r1-a", "tb-r1-net"]);
  });

  it("fails when any listing fails: an engine that cannot list is never read as holding nothing", async () => {
    const e = engine();
    e.volumes.list = async () => Promise.reject(new Error("engine said 500"));
    await expect(listLabelled(e, [])).rejects.toThrow("engine said 500");
  });
});
