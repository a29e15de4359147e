/**
 * The images part of the engine port: what the image builder, `images list|rm` and the transfer between hosts need
 * from an engine. Types only. Failures keep the engine's HTTP status as `statusCode` (404, 409, …).
 */

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
