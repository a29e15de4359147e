import { describe, expect, it } from "vitest";
import { DockerEngine } from "../../../../src/adapters/docker/engine.ts";
import { TwinbenchError } from "../../../../src/core/base/errors.ts";

describe("an engine that does not answer", () => {
  it("facts() is a typed ENGINE_UNREACHABLE with a hint, not an internal error (calibrate --show before doctor --fix)", async () => {
    const engine = new DockerEngine("local", { socketPath: "/nonexistent/twinbench-test-docker.sock" });
    const e = await engine.facts().then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(TwinbenchError);
    expect((e as TwinbenchError).code).toBe("ENGINE_UNREACHABLE");
    expect((e as TwinbenchError).message).toContain("/nonexistent/twinbench-test-docker.sock");
    expect((e as TwinbenchError).hint).toContain("doctor --fix");
  });
});
