/**
 * Containers on a Docker engine (dockerode): the containers part of the engine port
 * (core/model/engine/containers.ts). Create, start, stop, inspect, read logs, copy a file in, and `run` (create,
 * attach, start, wait, remove) with its output streamed line by line.
 */
import type Docker from "dockerode";
import { PassThrough } from "node:stream";
import { pack } from "tar-stream";
import type {
  ContainerFile,
  ContainerListing,
  ContainerPort,
  ContainerSpec,
  ContainerState,
  RunOpts,
  RunResult,
} from "../../core/model/engine/containers.ts";
import { createContainerOptions } from "./container-spec.ts";
import { outputCutShort, statusCode, tolerate } from "./engine-errors.ts";

/** A label filter in the Engine API's list query (every filter must match). */
export function labelQuery(labelFilters: string[]): string {
  return JSON.stringify({ label: labelFilters });
}

/**
 * The containers of one engine. Its own calls (run's create, kill and remove) go through `this`, so a decorator
 * that calls these methods with itself as `this` (the lost-host guard) sees them too.
 */
export class DockerContainers implements ContainerPort {
  constructor(private readonly docker: Docker) {}

  async create(spec: ContainerSpec): Promise<string> {
    const c = await this.docker.createContainer(createContainerOptions(spec));
    if (spec.files?.length) {
      try {
        await c.putArchive(await tarOf(spec.files), { path: "/" });
      } catch (e) {
        await this.remove(c.id); // not started: nothing of it is left behind; the put's failure is raised
        throw e;
      }
    }
    return c.id;
  }

  async putFile(id: string, path: string, content: string, mode = 0o644): Promise<void> {
    const slash = path.lastIndexOf("/");
    const dir = path.slice(0, slash) || "/";
    const base = path.slice(slash + 1);
    const p = pack();
    p.entry({ name: base, mode, mtime: new Date(0) }, content);
    p.finalize();
    const chunks: Buffer[] = [];
    for await (const c of p) chunks.push(c as Buffer);
    await this.docker.getContainer(id).putArchive(Buffer.concat(chunks), { path: dir });
  }

  async start(id: string): Promise<void> {
    await tolerate(this.docker.getContainer(id).start(), [304]);
  }
  async stop(id: string, timeoutSeconds: number): Promise<void> {
    await tolerate(this.docker.getContainer(id).stop({ t: timeoutSeconds }), [304, 404]);
  }
  async kill(id: string, signal = "SIGKILL"): Promise<void> {
    await tolerate(this.docker.getContainer(id).kill({ signal }), [404, 409, 304]);
  }
  async remove(id: string): Promise<void> {
    await tolerate(this.docker.getContainer(id).remove({ force: true, v: true }), [404, 409]);
  }
  async pause(id: string): Promise<void> {
    await tolerate(this.docker.getContainer(id).pause(), [404, 409, 304], /already paused/);
  }
  async unpause(id: string): Promise<void> {
    await tolerate(this.docker.getContainer(id).unpause(), [404, 409, 304], /is not paused/);
  }
  async inspect(id: string): Promise<ContainerState> {
    const i = await this.docker.getContainer(id).inspect();
    const ips: Record<string, string> = {};
    for (const [name, n] of Object.entries(i.NetworkSettings.Networks ?? {})) if (n.IPAddress) ips[name] = n.IPAddress;
    return {
      running: i.State.Running,
      paused: i.State.Paused,
      exitCode: i.State.Running ? null : i.State.ExitCode,
      oomKilled: i.State.OOMKilled,
      ips,
    };
  }
  async idOf(nameOrId: string): Promise<string | undefined> {
    try {
      return (await this.docker.getContainer(nameOrId).inspect()).Id;
    } catch (e) {
      if (statusCode(e) === 404) return undefined;
      throw e;
    }
  }
  async logs(id: string, tail = 200): Promise<string> {
    try {
      const buf = (await this.docker
        .getContainer(id)
        .logs({ stdout: true, stderr: true, tail, follow: false })) as unknown as Buffer;
      return demuxBuffer(buf);
    } catch (e) {
      if (statusCode(e) === 404) return "";
      throw e;
    }
  }

  async run(spec: ContainerSpec, opts: RunOpts): Promise<RunResult> {
    const id = await this.create(spec);
    opts.onCreated?.(id);
    const c = this.docker.getContainer(id);
    let output = "";
    const partial = { out: "", err: "" };
    const feed = (which: "out" | "err") => (d: Buffer) => {
      const text = d.toString("utf8");
      output += text;
      const buf = partial[which] + text;
      const lines = buf.split("\n");
      partial[which] = lines.pop() ?? "";
      for (const l of lines) opts.onLine?.(l);
    };
    let timedOut = false;
    let cancelled = false;
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      cancelled = true;
      void this.kill(id, "SIGKILL");
    };
    try {
      const stream = await c.attach({ stream: true, stdout: true, stderr: true });
      const out = new PassThrough();
      const err = new PassThrough();
      out.on("data", feed("out"));
      err.on("data", feed("err"));
      this.docker.modem.demuxStream(stream, out, err);
      // A stream error is not an end: it is kept and raised once the container has stopped (below).
      let streamError: Error | undefined;
      const ended = new Promise<void>((resolve) => {
        stream.on("end", () => resolve());
        stream.on("close", () => resolve());
        stream.on("error", (e: Error) => {
          streamError = e;
          resolve();
        });
      });
      if (opts.signal?.aborted) onAbort();
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      if (!cancelled) await c.start();
      if (opts.timeoutMs) {
        timer = setTimeout(() => {
          timedOut = true;
          void this.kill(id, "SIGKILL");
        }, opts.timeoutMs);
      }
      const res = (await c.wait()) as { StatusCode: number };
      await Promise.race([ended, new Promise((r) => setTimeout(r, 2000))]);
      for (const w of ["out", "err"] as const) if (partial[w]) opts.onLine?.(partial[w]);
      // Cancelled: the caller discards the output anyway, and the kill itself may break the stream.
      if (streamError && !cancelled) throw outputCutShort(`container ${spec.name} (image ${spec.image})`, streamError);
      return { exitCode: res.StatusCode, output, timedOut, cancelled };
    } finally {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      await this.remove(id);
    }
  }

  async list(labelFilters: string[]): Promise<ContainerListing[]> {
    const cs = await this.docker.listContainers({ all: true, filters: labelQuery(labelFilters) });
    return cs.map((c) => ({
      id: c.Id,
      name: (c.Names[0] ?? "").replace(/^\//, ""),
      labels: c.Labels ?? {},
      state: c.State,
    }));
  }
}

/**
 * One tar archive of the files, at their paths from the root, stamped at time zero. No folder entries: the engine
 * makes missing folders itself, and entries for existing ones (/usr) would reset their mode and time.
 */
export async function tarOf(files: readonly ContainerFile[]): Promise<Buffer> {
  const p = pack();
  for (const f of files)
    p.entry({ name: f.path.replace(/^\/+/, ""), mode: f.mode ?? 0o644, mtime: new Date(0) }, f.content);
  p.finalize();
  const chunks: Buffer[] = [];
  for await (const c of p) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Decode a non-TTY docker log buffer (8-byte frame headers) into text. */
export function demuxBuffer(buf: Buffer | string): string {
  if (typeof buf === "string") return buf;
  let out = "";
  let i = 0;
  while (i + 8 <= buf.length) {
    const type = buf[i];
    const len = buf.readUInt32BE(i + 4);
    if (type !== 0 && type !== 1 && type !== 2) return buf.toString("utf8");
    out += buf.subarray(i + 8, i + 8 + len).toString("utf8");
    i += 8 + len;
  }
  return out;
}
