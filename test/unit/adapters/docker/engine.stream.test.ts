/**
 * An error on a container's output stream is not the end of the stream. `run` and `exec` surface it as
 * ENGINE_STREAM ("output may be cut short") instead of returning the part read so far as if it were everything.
 * The dockerode client is replaced by a fake whose attach/exec streams fail mid-output.
 */
import { describe, expect, it } from "vitest";
import { PassThrough } from "node:stream";
import type Docker from "dockerode";
import { DockerContainers } from "../../../../src/adapters/docker/containers.ts";
import { DockerExec } from "../../../../src/adapters/docker/exec.ts";
import { TwinbenchError } from "../../../../src/core/base/errors.ts";

/** A fake dockerode: one container whose attached (or exec) stream writes a line, then ends or fails. */
function fakeDocker(outcome: "end" | "error") {
  const stream = new PassThrough();
  const finish = () => {
    stream.write("first line\n");
    setImmediate(() => (outcome === "end" ? stream.end() : stream.destroy(new Error("socket hang up"))));
  };
  const container = {
    attach: async () => stream,
    start: async () => finish(),
    wait: async () => {
      await new Promise((r) => stream.once("close", r));
      return { StatusCode: 0 };
    },
    remove: async () => undefined,
    kill: async () => undefined,
    exec: async () => ({ start: async () => (finish(), stream), inspect: async () => ({ ExitCode: 0 }) }),
  };
  return {
    createContainer: async () => ({ id: "c1" }),
    getContainer: () => container,
    // Non-TTY demux, reduced to a copy of stdout: the stream's own events are what is under test.
    modem: { demuxStream: (s: PassThrough, out: PassThrough) => s.on("data", (d: Buffer) => out.write(d)) },
  };
}

const containersOn = (docker: unknown) => new DockerContainers(docker as Docker);
const execOn = (docker: unknown) => new DockerExec(docker as Docker);

const spec = { name: "tb-x", image: "img:1", labels: {} };

describe("engine output streams", () => {
  it("run: a stream that ends returns its whole output", async () => {
    const lines: string[] = [];
    const r = await containersOn(fakeDocker("end")).run(spec, { onLine: (l) => lines.push(l) });
    expect(r.output).toBe("first line\n");
    expect(lines).toEqual(["first line"]);
  });

  it("run: a stream error is ENGINE_STREAM, naming the container and saying the output may be cut short", async () => {
    const err = await containersOn(fakeDocker("error"))
      .run(spec, {})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TwinbenchError);
    expect((err as TwinbenchError).code).toBe("ENGINE_STREAM");
    expect((err as Error).message).toMatch(/container tb-x \(image img:1\).*may be cut short: socket hang up/);
  });

  it("exec: a stream error is ENGINE_STREAM naming the program, never its arguments (they may hold a password)", async () => {
    const err = await execOn(fakeDocker("error"))
      .run("c1", ["mysql", "--password=s3cret", "-e", "SELECT 1"])
      .catch((e: unknown) => e);
    expect((err as TwinbenchError).code).toBe("ENGINE_STREAM");
    expect((err as Error).message).toMatch(/exec of mysql in container c1.*may be cut short/);
    expect((err as Error).message).not.toContain("s3cret");
  });
});
