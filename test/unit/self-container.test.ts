/**
 * Whether twinbench runs inside a container of its engine: "no" only when the engine has no such container (or there
 * is no hostname to ask about). An engine that does not answer is an error, never read as "not in a container".
 * /.dockerenv and /etc/hostname are stood in for.
 */
import { describe, expect, it, vi } from "vitest";

vi.mock("node:fs", async (orig) => ({ ...(await orig<typeof import("node:fs")>()), existsSync: () => true }));
vi.mock("node:fs/promises", async (orig) => ({
  ...(await orig<typeof import("node:fs/promises")>()),
  readFile: async () => "abc123\n",
}));

const { selfContainerId } = await import("../../src/adapters/docker/self.ts");
type Engine = import("../../src/adapters/docker/engine.ts").Engine;

describe("selfContainerId", () => {
  it("the engine's answer: its id, or undefined when it has no such container", async () => {
    expect(await selfContainerId({ containerId: async () => "full-id" } as Partial<Engine> as Engine)).toBe("full-id");
    expect(await selfContainerId({ containerId: async () => undefined } as Partial<Engine> as Engine)).toBeUndefined();
  });

  it("an engine that does not answer is an ENGINE error naming the container", async () => {
    const engine = {
      containerId: async () => {
        throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
      },
    } as Partial<Engine> as Engine;
    await expect(selfContainerId(engine)).rejects.toMatchObject({
      code: "ENGINE",
      message: expect.stringContaining("container abc123"),
    });
  });
});
