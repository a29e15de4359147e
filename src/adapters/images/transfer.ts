/**
 * Images across hosts: inspect a pinned image on one engine, and send it from one engine to another over the API
 * (`GET /images/{name}/get` streamed straight into `POST /images/load`, the `docker save | docker load` pair) without
 * a temporary file. The load answer is a JSON stream whose failures show only as `error`/`errorDetail` events, so
 * every event is checked.
 */
import { CancelledError, TwinbenchError } from "../../core/base/errors.ts";
import type { Engine } from "../../core/model/engine/engine.ts";
import { readJsonStream } from "./stream.ts";

export interface InspectedImage {
  /** sha256:... */
  id: string;
  labels: Record<string, string>;
  sizeBytes?: number;
}

/** The image operations the multi-host orchestration needs, over the engine port's clients. */
export interface ImageOps {
  inspect(engine: Engine, ref: string): Promise<InspectedImage | undefined>;
  send(from: Engine, to: Engine, ref: string, opts?: SendOptions): Promise<SendResult>;
}

export interface SendOptions {
  signal?: AbortSignal;
  /** Called with the bytes streamed so far, at most once per MiB. */
  onBytes?: (bytes: number) => void;
}

export interface SendResult {
  bytes: number;
  seconds: number;
}

export function inspectImage(engine: Engine, ref: string): Promise<InspectedImage | undefined> {
  return engine.images.inspect(ref);
}

/** Stream `ref` from one engine into another. Resolves after the target reported the image loaded. */
export async function sendImage(from: Engine, to: Engine, ref: string, opts: SendOptions = {}): Promise<SendResult> {
  const t0 = performance.now();
  const fail = (what: string, e: unknown, hint: string) =>
    new TwinbenchError(
      `sending image ${ref} from host "${from.hostId}" to host "${to.hostId}": ${what}: ${e instanceof Error ? e.message : String(e)}`,
      {
        code: "IMAGE_SEND_FAILED",
        hint,
        cause: e,
      },
    );
  if (opts.signal?.aborted) throw new CancelledError();
  let source: NodeJS.ReadableStream;
  try {
    source = await from.images.save(ref);
  } catch (e) {
    throw fail(
      "the source engine did not export it",
      e,
      `check that ${ref} exists on host "${from.hostId}" (twinbench images list)`,
    );
  }
  let bytes = 0;
  let lastReport = 0;
  source.on("data", (d: Buffer) => {
    bytes += d.length;
    if (opts.onBytes && bytes - lastReport >= 1 << 20) {
      lastReport = bytes;
      opts.onBytes(bytes);
    }
  });
  const onAbort = () => (source as unknown as { destroy?: (e?: Error) => void }).destroy?.(new CancelledError());
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    let answer: NodeJS.ReadableStream;
    try {
      answer = await to.images.load(source);
    } catch (e) {
      if (opts.signal?.aborted) throw new CancelledError();
      throw fail(
        "the target engine refused the load",
        e,
        `check the target engine's free space and logs (host "${to.hostId}")`,
      );
    }
    let error: string | undefined;
    await readJsonStream(answer, (ev) => {
      const o = ev as { error?: string; errorDetail?: { message?: string } };
      if (o.error !== undefined || o.errorDetail !== undefined)
        error ??= o.errorDetail?.message ?? o.error ?? "unknown load error";
    }).catch((e: unknown) => {
      error ??= `the load stream broke: ${(e as Error).message}`;
    });
    if (opts.signal?.aborted) throw new CancelledError();
    if (error !== undefined)
      throw fail(
        "the target engine reported",
        new Error(error),
        `check the target engine's free space and logs (host "${to.hostId}")`,
      );
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
  }
  const there = await inspectImage(to, ref);
  if (!there)
    throw fail(
      "after the load",
      new Error(`the image is not present on the target`),
      `retry; check the target engine's logs (host "${to.hostId}")`,
    );
  return { bytes, seconds: (performance.now() - t0) / 1000 };
}

/** The real ImageOps (dockerode through each engine's client). */
export const dockerImageOps: ImageOps = {
  inspect: (engine, ref) => inspectImage(engine, ref),
  send: sendImage,
};
