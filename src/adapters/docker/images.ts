/**
 * Images on a Docker engine (dockerode): the images part of the engine port (core/model/engine/images.ts).
 * Failures keep docker-modem's `statusCode` (404, 409, …).
 */
import type Docker from "dockerode";
import type { ImageDetails, ImageListing, ImagePort } from "../../core/model/engine/images.ts";

function statusCode(e: unknown): number | undefined {
  const c = (e as { statusCode?: unknown } | null)?.statusCode;
  return typeof c === "number" ? c : undefined;
}

export class DockerImages implements ImagePort {
  constructor(private readonly docker: Docker) {}

  async inspect(ref: string): Promise<ImageDetails | undefined> {
    try {
      const i = await this.docker.getImage(ref).inspect();
      return { id: i.Id, labels: i.Config?.Labels ?? {}, sizeBytes: i.Size, repoDigests: i.RepoDigests ?? [] };
    } catch (e) {
      if (statusCode(e) === 404) return undefined;
      throw e;
    }
  }
  async list(label: string): Promise<ImageListing[]> {
    const infos = await this.docker.listImages({ filters: { label: [label] } });
    return infos.map((i) => ({
      id: i.Id,
      repoTags: i.RepoTags ?? [],
      labels: i.Labels ?? {},
      created: i.Created,
      size: i.Size,
    }));
  }
  async remove(ref: string): Promise<void> {
    await this.docker.getImage(ref).remove();
  }
  async tag(id: string, repo: string, tag: string): Promise<void> {
    await this.docker.getImage(id).tag({ repo, tag });
  }
  build(
    context: NodeJS.ReadableStream,
    opts: { labels: Record<string, string>; buildArgs?: Record<string, string>; signal?: AbortSignal },
  ): Promise<NodeJS.ReadableStream> {
    return this.docker.buildImage(context, {
      labels: opts.labels,
      ...(opts.buildArgs && Object.keys(opts.buildArgs).length > 0 ? { buildargs: opts.buildArgs } : {}),
      rm: true,
      forcerm: true,
      // The version=1 (classic) builder: streams step output as JSON events.
      version: "1",
      ...(opts.signal ? { abortSignal: opts.signal } : {}),
    } as Docker.ImageBuildOptions);
  }
  async importTar(tar: NodeJS.ReadableStream, changes: string[]): Promise<NodeJS.ReadableStream> {
    return (await this.docker.importImage(tar as unknown as string, { changes } as object)) as NodeJS.ReadableStream;
  }
  async distribution(ref: string): Promise<{ digest: string }> {
    const d = (await this.docker.getImage(ref).distribution({})) as { Descriptor?: { digest?: unknown } };
    const digest = d.Descriptor?.digest;
    if (typeof digest !== "string")
      throw new Error(`the engine's distribution answer for ${ref} has no Descriptor.digest`);
    return { digest };
  }
  async pull(ref: string): Promise<NodeJS.ReadableStream> {
    return (await this.docker.pull(ref)) as NodeJS.ReadableStream;
  }
  save(ref: string): Promise<NodeJS.ReadableStream> {
    return this.docker.getImage(ref).get();
  }
  async load(source: NodeJS.ReadableStream): Promise<NodeJS.ReadableStream> {
    return (await this.docker.loadImage(source, { quiet: true })) as unknown as NodeJS.ReadableStream;
  }
}
