/**
 * A server counts as dead only when the engine has no such container (404). Any other inspect error is
 * the engine's and is raised, so a transient error never restarts a live server. Fake engine, no Docker.
 */
import { describe, expect, it } from "vitest";
import { LabServer } from "../../../src/app/lab-server.ts";
import { type LabServerInit } from "../../../src/app/lab-server-init.ts";
import type { ContainerPort } from "../../../src/core/model/engine/containers.ts";
import { FakeEngine } from "../../../test/support/fake-engine.ts";
import { TwinbenchError } from "../../../src/core/base/errors.ts";

function serverWith(inspect: ContainerPort["inspect"]): LabServer {
  const engine = new FakeEngine();
  engine.containers.inspect = inspect;
  const init = { id: "maria", runId: "r1", labels: () => ({}) } as Partial<LabServerInit> as LabServerInit;
  const s = new LabServer(init, engine, {} as never, {} as never, {} as never);
  s.containerId = "c1";
  return s;
}
const modemError = (statusCode: number, message: string) => Object.assign(new Error(message), { statusCode });
const state = (running: boolean) => ({
  running,
  paused: false,
  exitCode: running ? null : 1,
  oomKilled: false,
  ips: {},
});

describe("LabServer.isRunning", () => {
  it("reads the container's state", async () => {
    expect(await serverWith(async () => state(true)).isRunning()).toBe(true);
    expect(await serverWith(async () => state(false)).isRunning()).toBe(false);
  });

  it("no such container (404) is dead", async () => {
    expect(await serverWith(() => Promise.reject(modemError(404, "no such container"))).isRunning()).toBe(false);
  });

  it("any other inspect error is an ENGINE error naming the server, not 'dead'", async () => {
    const err = await serverWith(() => Promise.reject(modemError(500, "server error")))
      .isRunning()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TwinbenchError);
    expect((err as TwinbenchError).code).toBe("ENGINE");
    expect((err as Error).message).toMatch(/server "maria".*server error/);
  });

  it("a twinbench error (the host is lost) is raised as it is", async () => {
    const lost = new TwinbenchError("host a is lost", { code: "HOST_LOST" });
    await expect(serverWith(() => Promise.reject(lost)).isRunning()).rejects.toBe(lost);
  });
});
