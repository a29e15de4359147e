/**
 * Stages 2 and 4: images on every host (built on the first, sent over the API to the others; or each host builds
 * its own), then image parity: the same tags, labels and installed packages everywhere, or no comparison.
 */
import { randomBytes } from "node:crypto";
import { CancelledError, TwinbenchError } from "../../core/base/errors.ts";
import { LABEL, resourceLabels, resourceName } from "../../core/base/labels.ts";
import {
  dpkgQueryCommand,
  imageIdNotes,
  imageParity,
  parityError,
  parseDpkgList,
  type HostImageFacts,
} from "../../core/hosts/parity.ts";
import { isCommandNotRunnable } from "../../adapters/docker/engine-errors.ts";
import type { RunResult } from "../../core/model/engine/containers.ts";
import { LOAD_IMAGE } from "../run/images.ts";
import type { ImageInfo } from "../run/types.ts";
import { msg, type HostsContext, type HostState } from "./context.ts";
import { hostRunId } from "./types.ts";
import { selfOwner } from "../../adapters/host/process-identity.ts";

export class HostImages {
  readonly names: string[];
  private readonly source: HostState;

  constructor(private readonly ctx: HostsContext) {
    this.names = [...new Set([...ctx.scenario.servers.map((s) => s.image), LOAD_IMAGE])];
    this.source = ctx.live()[0]!;
  }

  /** The image on host `s`: built there, or (send) built on the source host and streamed over. Memoised. */
  ensureOn(s: HostState, name: string): Promise<ImageInfo> {
    let p = s.images.get(name);
    if (!p) {
      const send = (this.ctx.opts.imageTransfer ?? "send") === "send" && s !== this.source;
      p = send ? this.sendTo(s, name) : s.t.deps.ensureImage(name, this.progress(s.t.spec.id, name), this.ctx.signal);
      s.images.set(name, p);
    }
    return p;
  }

  private progress(host: string, image: string) {
    return (step: string, line?: string) =>
      this.ctx.opts.onEvent?.(host, { type: "image-progress", at: this.ctx.at(), image, step, line });
  }

  private async sendTo(s: HostState, name: string): Promise<ImageInfo> {
    const { ctx, source } = this;
    const src = await this.ensureOn(source, name);
    const have = await ctx.deps.images.inspect(s.engine, src.tag);
    if (!have) {
      ctx.info(`image ${src.tag}: sending from host ${source.t.spec.id} to host ${s.t.spec.id}`, s.t.spec.id);
      const r = await ctx.deps.images.send(source.engine, s.engine, src.tag, { signal: ctx.signal });
      ctx.info(
        `image ${src.tag}: sent to host ${s.t.spec.id} (${(r.bytes / 2 ** 20).toFixed(0)} MiB in ${r.seconds.toFixed(1)} s)`,
        s.t.spec.id,
      );
    }
    const there = await ctx.deps.images.inspect(s.engine, src.tag);
    if (!there)
      throw new TwinbenchError(`image ${src.tag} is missing on host ${s.t.spec.id} after sending it`, {
        code: "IMAGE_SEND_FAILED",
        hint: "check the target engine's logs",
      });
    return { ...src, id: there.id, cacheHit: Boolean(have) };
  }

  /** Every image on every live host; the source first (a broken build fails once), a host that fails is out. */
  async ensureEverywhere(): Promise<void> {
    const { ctx, source } = this;
    try {
      for (const name of this.names) await this.ensureOn(source, name);
    } catch (e) {
      if (e instanceof CancelledError || ctx.signal.aborted) throw e;
      const code = e instanceof TwinbenchError ? e.code : "IMAGE_BUILD_FAILED";
      throw new TwinbenchError(`images on host ${source.t.spec.id}: ${msg(e)}`, {
        code,
        hint: e instanceof TwinbenchError ? e.hint : undefined,
        cause: e,
      });
    }
    await Promise.all(
      ctx.live().map(async (s) => {
        try {
          for (const name of this.names) await this.ensureOn(s, name);
        } catch (e) {
          if (ctx.signal.aborted) return; // cancelled: the run stops below, the host is not at fault
          ctx.lose(s, "failed", `images: ${msg(e)}`);
        }
      }),
    );
    ctx.throwIfAborted();
  }

  /** The load image's tag on the source host (for the facts probe). */
  async loadTag(): Promise<string> {
    return (await this.ensureOn(this.source, LOAD_IMAGE)).tag;
  }

  /** Image parity over the live hosts; throws when they differ. Returns the facts and the notes for the report. */
  async checkParity(): Promise<HostImageFacts[]> {
    const { ctx } = this;
    const imageFacts: HostImageFacts[] = [];
    for (const s of ctx.live()) {
      for (const name of this.names) {
        const img = await this.ensureOn(s, name);
        const ins = await ctx.deps.images.inspect(s.engine, img.tag);
        imageFacts.push({
          host: s.t.spec.id,
          name,
          tag: img.tag,
          id: ins?.id ?? img.id,
          labels: ins?.labels ?? {},
          packages: await this.packagesOf(s, img.tag),
        });
      }
    }
    const problems = imageParity(imageFacts);
    if (problems.length) throw parityError(problems);
    ctx.notes.push(...imageIdNotes(imageFacts));
    ctx.info(
      `images identical on ${ctx
        .live()
        .map((s) => s.t.spec.id)
        .join(", ")} (${this.names.length} images: tags, labels and installed packages)`,
    );
    return imageFacts;
  }

  private async packagesOf(s: HostState, tag: string): Promise<Record<string, string> | undefined> {
    const { ctx } = this;
    const id = s.t.spec.id;
    const runId = hostRunId(ctx.opts.runId, id);
    const labels = resourceLabels(
      { sessionId: ctx.sessionId, runId, hostId: id, ...selfOwner() },
      { [LABEL.role]: "probe" },
    );
    const cmd = dpkgQueryCommand();
    const fellBack = (why: string): undefined => {
      ctx.note(`parity fell back to labels on host ${id}: image ${tag}: ${why}`);
      return undefined;
    };
    let r: RunResult;
    try {
      r = await s.t.engine.containers.run(
        {
          name: resourceName(runId, "pkgs", randomBytes(3).toString("hex")),
          image: tag,
          entrypoint: [cmd[0]!],
          cmd: cmd.slice(1),
          labels,
          network: { kind: "none" },
        },
        { timeoutMs: 60_000, signal: ctx.signal },
      );
    } catch (e) {
      if (isCommandNotRunnable(e)) return undefined; // no dpkg in the image (official-mode images on other distributions): labels decide
      if (e instanceof CancelledError || ctx.signal.aborted) throw e;
      return fellBack(`cannot list its packages (${msg(e)})`);
    }
    if (r.cancelled) return undefined; // the run is stopping: the next stage raises the cancellation
    if (r.exitCode !== 0)
      return fellBack(
        `${cmd[0]} exited with ${r.exitCode}${r.timedOut ? " (timed out)" : ""}: ${r.output.trim().split("\n").slice(-3).join(" / ")}`,
      );
    const pkgs = parseDpkgList(r.output);
    return Object.keys(pkgs).length ? pkgs : fellBack(`${cmd[0]} listed no packages`);
  }
}
