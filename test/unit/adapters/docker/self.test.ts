/**
 * Whether twinbench runs inside a container of its engine: "no" only when the engine has no such container (or there
 * is no hostname to ask about). An engine that does not answer is an error, never read as "not in a container".
 * /.dockerenv and /etc/hostname are stood in for.
 */
import { describe, expect, it } from "vitest";
import { selfContainerId, type SelfFiles } from "../../../../src/adapters/docker/self.ts";
import { FakeEngine } from "../../../support/fake-engine.ts";

const inContainer: SelfFiles = { exists: () => true, read: async () => "abc123\n" };

describe("selfContainerId", () => {
  it("the engine's answer: its id, or undefined when it has no such container", async () => {
    const engine = (id: string | undefined) => {
      const e = new FakeEngine();
      e.containers.idOf = async () => id;
      return e;
    };
    expect(await selfContainerId(engine("full-id"), inContainer)).toBe("full-id");
    expect(await selfContainerId(engine(undefined), inContainer)).toBeUndefined();
  });

  it("an engine that does not answer is an ENGINE error naming the container", async () => {
    const engine = new FakeEngine();
    engine.containers.idOf = async () => {
      throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    };
    await expect(selfContainerId(engine, inContainer)).rejects.toMatchObject({
      code: "ENGINE",
      message: expect.stringContaining("container abc123"),
    });
  });
});
