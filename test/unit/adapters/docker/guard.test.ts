/**
 * The lost-host guard over the engine port's resources (src/adapters/docker/guard.ts): every resource's calls are
 * raced against the host's loss, a resource's own internal calls included; images pass through unguarded.
 */
import { describe, expect, it } from "vitest";
import { HostGuard, guardedEngine } from "../../../../src/adapters/docker/guard.ts";
import type { ContainerSpec } from "../../../../src/core/model/engine/containers.ts";
import { FakeEngine } from "../../../support/fake-engine.ts";

describe("guardedEngine", () => {
  it("answers the probed facts instead of asking the engine", async () => {
    const e = new FakeEngine("b");
    e.alive = false;
    expect(await guardedEngine(e, { id: "b", kernel: "probed" }).facts()).toEqual({ id: "b", kernel: "probed" });
  });

  it("a lost host rejects the calls of every resource, and of ping", async () => {
    const e = new FakeEngine("b");
    const guard = new HostGuard("b");
    const g = guardedEngine(e, { id: "b" }, guard);
    guard.declareLost("test");
    for (const call of [
      () => g.ping(),
      () => g.containers.inspect("c1"),
      () => g.networks.create("n", {}),
      () => g.volumes.inspect("v"),
      () => g.exec.run("c1", ["true"]),
    ])
      await expect(call()).rejects.toMatchObject({ code: "HOST_LOST" });
    expect(e.networkNames.size).toBe(1); // the call itself was made: only its answer is raced against the loss
  });

  it("a resource's own calls go through the guard too: run's kill on a dead connection does not reject", async () => {
    const e = new FakeEngine("b");
    const seen: string[] = [];
    const kill = e.containers.kill;
    e.containers.kill = async (id, signal) => {
      seen.push(`kill ${id}`);
      return kill(id, signal);
    };
    // A run that kills its container through `this`, as the Docker containers' run does on cancel.
    e.containers.run = async function (this: typeof e.containers, spec: ContainerSpec) {
      e.alive = false;
      await this.kill("c9");
      return { exitCode: 137, output: spec.name, timedOut: false, cancelled: true };
    };
    const g = guardedEngine(e, { id: "b" }, new HostGuard("b"));
    expect(await g.containers.run({ name: "x", image: "y", labels: {} }, {})).toMatchObject({ cancelled: true });
    expect(seen).toEqual(["kill c9"]);
    await expect(e.containers.kill("c9")).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });

  it("hands out the engine's images as they are", () => {
    const e = new FakeEngine("b");
    expect(guardedEngine(e, { id: "b" }).images).toBe(e.images);
  });
});
