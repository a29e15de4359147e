/**
 * The image half of the engine port: what the image builder, `images list|rm` and the transfer between hosts need
 * from an engine, and its dockerode implementation. Failures keep docker-modem's `statusCode` (404, 409, …).
 */
import type Docker from "dockerode";

export interface ImageDetails {
  /** sha256:... */
  id: string;
  labels: Record<string, string>;
  sizeBytes?: number;
  /** The `<repo>@sha256:…` references the engine knows this image by (pulled or pushed by digest). */
  repoDigests?: string[];
}

export interface ImageListing {
  id: string;
  repoTags: string[];
  labels: Record<string, string>;
  /** Seconds since the epoch. */
  created: number;
  size: number;
}

export interface ImagePort {
  /** The image, or undefined when the engine has none such (404). */
  inspect(ref: string): Promise<ImageDetails | undefined>;
  /** Images carrying the label `label` (any value). */
  list(label: string): Promise<ImageListing[]>;
  remove(ref: string): Promise<void>;
  tag(id: string, repo: string, tag: string): Promise<void>;
  /** Build a context tar with the classic builder; resolves to its JSON event stream (check every event). */
  build(
    context: NodeJS.ReadableStream,
    opts: { labels: Record<string, string>; buildArgs?: Record<string, string>; signal?: AbortSignal },
  ): Promise<NodeJS.ReadableStream>;
  /** Import a rootfs tar as an untagged image; resolves to its JSON event stream. */
  importTar(tar: NodeJS.ReadableStream, changes: string[]): Promise<NodeJS.ReadableStream>;
  /**
   * Ask the registry, through the engine, for a tag's manifest (downloads no layers): resolves to the digest of what
   * the registry serves for it (the manifest list / OCI index when there is one). Rejects when none answers.
   */
  distribution(ref: string): Promise<{ digest: string }>;
  /** Pull an image (`repo:tag` or `repo@sha256:…`); resolves to its JSON progress stream (check every event). */
  pull(ref: string): Promise<NodeJS.ReadableStream>;
  /** `docker save` as a stream. */
  save(ref: string): Promise<NodeJS.ReadableStream>;
  /** `docker load` of a stream; resolves to its JSON answer stream. */
  load(source: NodeJS.ReadableStream): Promise<NodeJS.ReadableStream>;
}

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
