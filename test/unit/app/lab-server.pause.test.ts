/** Pausing an idle server: only the engine's refusal is retried; an engine that does not answer is an error. */
import { describe, expect, it } from "vitest";
import { LabServer } from "../../../src/app/lab-server.ts";
import { type LabServerInit } from "../../../src/app/lab-server-init.ts";
import type { ContainerPort } from "../../../src/core/model/engine/containers.ts";
import { FakeEngine } from "../../support/fake-engine.ts";
import { TwinbenchError } from "../../../src/core/base/errors.ts";

const connectionError = () =>
  Object.assign(new Error("connect ECONNREFUSED /var/run/docker.sock"), { code: "ECONNREFUSED" });
const answer = (statusCode: number) => Object.assign(new Error(`HTTP ${statusCode}`), { statusCode });

describe("pausing an idle server", () => {
  const serverWith = (pause: ContainerPort["pause"]) => {
    const init = { id: "maria", runId: "r1", labels: () => ({}) } as Partial<LabServerInit> as LabServerInit;
    const engine = new FakeEngine();
    engine.containers.pause = pause;
    const s = new LabServer(init, engine, {} as never, {} as never, {} as never);
    s.containerId = "c1";
    return s;
  };

  it("an engine that does not answer is an ENGINE error naming the server, not 'the freezer refused'", async () => {
    let calls = 0;
    const err = await serverWith(async () => {
      calls++;
      throw connectionError();
    })
      .pause()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TwinbenchError);
    expect(err).toMatchObject({ code: "ENGINE" });
    expect((err as Error).message).toContain('pausing server "maria"');
    expect(calls).toBe(1);
  });

  it("the engine's refusal (500) is retried", async () => {
    let calls = 0;
    const ok = await serverWith(async () => {
      if (calls++ === 0) throw answer(500);
    }).pause();
    expect(ok).toBe(true);
    expect(calls).toBe(2);
  });
});
