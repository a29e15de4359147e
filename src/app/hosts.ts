/**
 * Several hosts: one run engine (runScenario) per host, each on its own Docker engine, concurrently.
 *
 *   connect → images on every host (build there, or send one build over the API) → host facts (engine info plus a
 *   probe container) → image parity → [shard: hosts must be alike, unless --force] → one runScenario per host
 *   (cellFilter c.host === id, results in DIR/hosts/<id>/) → [shard: cells of lost hosts to the survivors] →
 *   DIR/report-hosts.md (+ for a shard: the merged DIR/run.json, cells.jsonl, raw/).
 *
 * sysbench always runs in a sidecar beside its server on the same engine (runScenario's design), so only events
 * and logs cross the network: the latency to an engine never enters a measurement.
 * All engine access goes through the Engine port; image save/load through ImageOps.
 */
import { randomBytes } from "node:crypto";
import { hostname as osHostname } from "node:os";
import { cp, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { CancelledError, InputError, TwinbenchError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";
import { LABEL, resourceLabels, resourceName } from "../core/labels.ts";
import type { Cell, CellRecord, HostFacts, RunManifest } from "../core/results.ts";
import type { HostSpec, Scenario } from "../core/scenario/schema.ts";
import { planRun } from "../core/plan/plan.ts";
import { shardMismatches } from "../core/hosts/facts.ts";
import { dpkgQueryCommand, imageIdNotes, imageParity, parityError, parseDpkgList, type HostImageFacts } from "../core/hosts/parity.ts";
import { missingCells, redistribute } from "../core/hosts/shard.ts";
import { mergeShard, type ResultPart } from "../core/hosts/merge.ts";
import { compareHosts, renderHostsHtml, renderHostsMarkdown, renderHostsText, renderShardMarkdown, type HostRun } from "../core/hosts/report.ts";
import { displayEngineUrl, parseEngineUrl } from "../core/hosts/url.ts";
import type { Engine } from "../adapters/docker/engine.ts";
import type { ImageOps } from "../adapters/images/transfer.ts";
import { probeHostFacts } from "../adapters/docker/host-probe.ts";
import { writeFileAtomic } from "../adapters/results/store.ts";
import { readResultsFolder } from "../adapters/report-files.ts";
import { cleanResources } from "./clean.ts";
import { runScenario, type ImageInfo, type RunDeps, type RunOptions, type RunSummary } from "./run.ts";

export const LOAD_IMAGE = "sysbench-1.0";

export interface HostTarget {
  spec: HostSpec;
  /** Connected (not necessarily reachable) engine; its hostId is spec.id. */
  engine: Engine;
  /** This host's run dependencies: storage on this engine, an ensureImage that builds on this engine. */
  deps: RunDeps;
}

export interface HostsDeps {
  hosts: HostTarget[];
  images: ImageOps;
  /** Report files for the merged folder of a sharded run. */
  writeReports?(dir: string): Promise<unknown>;
  /** The run engine (tests inject a fake). */
  runOne?: (deps: RunDeps, opts: RunOptions) => Promise<RunSummary>;
  /** Ping deadline per host. */
  pingTimeoutMs?: number;
  /** How often a running host's engine is pinged (3 misses in a row: the host is lost). Default 2000 ms. */
  watchEveryMs?: number;
  /** After a host is lost, how long its run gets to unwind by itself. Default 30 s. */
  lostGraceMs?: number;
  now?: () => Date;
}

export type ImageTransfer = "send" | "build";

export interface HostsEvent {
  type: "hosts";
  at: string;
  level: "info" | "warning" | "error";
  host?: string;
  message: string;
}

export interface HostsOptions extends Omit<RunOptions, "outDir" | "runId" | "cellFilter" | "resume" | "onEvent" | "selfContainerId" | "control"> {
  outDir: string;
  runId: string;
  /** send (default): build once on the first host, stream it to the others; build: every host builds its own. */
  imageTransfer?: ImageTransfer;
  /** Shard over hosts whose facts differ (the report then says the hosts were mixed). */
  force?: boolean;
  onEvent?: (host: string | undefined, e: RunEvent | HostsEvent) => void;
  selfContainerId?: (engine: Engine) => Promise<string | undefined>;
}

export interface HostsSummary {
  mode: "hosts" | "shard";
  status: RunSummary["status"];
  exitCode: RunSummary["exitCode"];
  dir: string;
  runId: string;
  hosts: HostRun[];
  /** The host-vs-host report (compare mode) or the shard summary, as printed. */
  reportText: string;
  reportFile: string;
  /** Merged results folder (shard mode). */
  mergedDir?: string;
}

/** The run id of one host's (and pass's) run: resource names, labels and storage state stay distinct per engine. */
export function hostRunId(runId: string, host: string, pass = 1): string {
  return pass === 1 ? `${runId}-${host}` : `${runId}-${host}-p${pass}`;
}

/**
 * Watches one host's engine during its run. A dead engine can leave API calls hanging for ever (a `wait` whose
 * connection drops never settles), so once the engine stops answering pings every call through the guarded engine
 * rejects with HOST_LOST, in-flight ones included, and runScenario unwinds (its teardown's calls fail fast too).
 */
export class HostGuard {
  lost: TwinbenchError | undefined;
  private rejectLost!: (e: TwinbenchError) => void;
  private readonly lostPromise: Promise<never>;
  private timer: NodeJS.Timeout | undefined;
  constructor(readonly hostId: string) {
    this.lostPromise = new Promise<never>((_, rej) => (this.rejectLost = rej));
    this.lostPromise.catch(() => undefined);
  }
  declareLost(why: string): void {
    if (this.lost) return;
    this.lost = new TwinbenchError(`host "${this.hostId}" was lost: its engine stopped answering (${why})`, {
      code: "HOST_LOST",
      hint: `check the engine on host ${this.hostId}; then \`twinbench clean --host ${this.hostId}\` removes what the run left there`,
    });
    this.rejectLost(this.lost);
  }
  /** Ping every `everyMs`; `misses` failures in a row declare the host lost. */
  watch(ping: () => Promise<void>, opts: { everyMs?: number; misses?: number; timeoutMs?: number } = {}): void {
    const every = opts.everyMs ?? 2000;
    const misses = opts.misses ?? 3;
    let failed = 0;
    let busy = false;
    this.timer = setInterval(() => {
      if (busy || this.lost) return;
      busy = true;
      withDeadline(ping(), opts.timeoutMs ?? 5000, () => new Error(`no answer within ${(opts.timeoutMs ?? 5000) / 1000} s`))
        .then(
          () => (failed = 0),
          (e: unknown) => {
            failed++;
            if (failed >= misses) this.declareLost(`${misses} pings in a row failed, the last with: ${msg(e).replace(/^no Docker engine answers for host "[^"]*": /, "")}`);
          },
        )
        .finally(() => (busy = false));
    }, every);
    this.timer.unref();
  }
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
  /**
   * Settles like `p`, unless the host is lost first: then `p` gets `graceMs` to unwind by itself (its teardown
   * writes the results folder) before this rejects with HOST_LOST.
   */
  orLost<T>(p: Promise<T>, graceMs: number): Promise<T> {
    p.catch(() => undefined);
    const lostThenGrace = this.lostPromise.catch(async (e: unknown) => {
      let t: NodeJS.Timeout | undefined;
      await Promise.race([p.then(() => undefined, () => undefined), new Promise((r) => (t = setTimeout(r, graceMs)))]);
      clearTimeout(t);
      throw e;
    });
    return Promise.race([p, lostThenGrace]);
  }
  /** Race a call against the loss of the host. */
  guard<T>(p: Promise<T>): Promise<T> {
    if (this.lost) {
      p.catch(() => undefined);
      return Promise.reject(this.lost);
    }
    return Promise.race([p, this.lostPromise]);
  }
}

/** Connection-level failures: the engine is gone, not the request wrong. */
function isConnectionError(e: unknown): boolean {
  const code = (e as { code?: string } | null)?.code ?? (e as { cause?: { code?: string } } | null)?.cause?.code;
  return ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOENT", "EHOSTUNREACH", "ENETUNREACH", "HOST_LOST"].includes(code ?? "") || /socket hang up/.test(msg(e));
}

/**
 * The engine a host's run sees: facts() answers the probed facts; every call is raced against the host's loss;
 * kill() (fired and forgotten inside run()) never rejects on a dead connection. Methods run with the proxy as
 * `this`, so the engine's own internal calls are guarded too.
 */
export function guardedEngine(engine: Engine, facts: HostFacts, guard?: HostGuard): Engine {
  const proxy: Engine = new Proxy(engine, {
    get(target, prop) {
      if (prop === "facts") return async () => facts;
      const v = Reflect.get(target, prop, target) as unknown;
      if (typeof v !== "function") return v;
      const fn = v as (...a: unknown[]) => unknown;
      return (...args: unknown[]) => {
        const r = fn.apply(proxy, args);
        if (!(r instanceof Promise)) return r;
        const g = guard ? guard.guard(r) : r;
        if (prop === "kill") return g.catch((e: unknown) => (isConnectionError(e) ? undefined : Promise.reject(e)));
        return g;
      };
    },
  });
  return proxy;
}

async function withDeadline<T>(p: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, rej) => (timer = setTimeout(() => rej(onTimeout()), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

const msg = (e: unknown) => (e instanceof Error ? e.message : String(e));

interface HostState {
  t: HostTarget;
  run: HostRun;
  alive: boolean;
  images: Map<string, Promise<ImageInfo>>;
  facts?: HostFacts;
  engine: Engine;
}

export async function runHosts(deps: HostsDeps, opts: HostsOptions): Promise<HostsSummary> {
  const now = deps.now ?? (() => new Date());
  const at = () => now().toISOString();
  const signal = opts.signal ?? new AbortController().signal;
  const runOne = deps.runOne ?? runScenario;
  const sessionId = opts.sessionId ?? randomBytes(6).toString("hex");
  const scenario: Scenario = { ...opts.scenario, hosts: deps.hosts.map((h) => h.spec) };
  const mode: HostsSummary["mode"] = scenario.shard ? "shard" : "hosts";
  const transfer: ImageTransfer = opts.imageTransfer ?? "send";
  const dir = opts.outDir;
  const info = (message: string, host?: string, level: HostsEvent["level"] = "info") => opts.onEvent?.(host, { type: "hosts", at: at(), level, host, message });

  if (deps.hosts.length === 0) throw new InputError("no hosts to run on", { code: "HOSTS_NONE", hint: "give hosts: in the scenario or --host ID=URL" });
  if (scenario.compare === "hosts" && deps.hosts.length < 2)
    throw new InputError(`compare: hosts needs at least two hosts, got ${deps.hosts.length} (${deps.hosts.map((h) => h.spec.id).join(", ")})`, {
      code: "HOSTS_TOO_FEW",
      hint: "add another --host ID=URL",
    });
  await ensureEmptyDir(dir);

  const states: HostState[] = deps.hosts.map((t) => ({
    t,
    engine: t.engine,
    alive: true,
    images: new Map(),
    run: { id: t.spec.id, engine: safeUrl(t.spec), status: "running" as RunManifest["status"] },
  }));
  const lose = (s: HostState, status: HostRun["status"], why: string) => {
    s.alive = false;
    s.run.status = status;
    s.run.error = why;
    info(`host ${s.t.spec.id} ${status === "unreachable" ? "is unreachable" : "failed"}: ${why}`, s.t.spec.id, "error");
  };
  const live = () => states.filter((s) => s.alive);
  const throwIfAborted = () => {
    if (signal.aborted) throw new CancelledError();
  };

  // 1. Reach every host.
  await Promise.all(
    states.map(async (s) => {
      try {
        await withDeadline(s.engine.ping(), deps.pingTimeoutMs ?? 15_000, () => new Error(`no answer within ${(deps.pingTimeoutMs ?? 15_000) / 1000} s`));
        info(`host ${s.t.spec.id}: engine ${s.run.engine} answers`, s.t.spec.id);
      } catch (e) {
        lose(s, "unreachable", `engine ${s.run.engine} does not answer: ${msg(e).replace(/^no Docker engine answers for host "[^"]*": /, "")}`);
      }
    }),
  );
  if (live().length === 0)
    throw new TwinbenchError(`no host is reachable: ${states.map((s) => `${s.t.spec.id} (${s.run.error})`).join("; ")}`, {
      code: "HOST_UNREACHABLE",
      hint: "check the engine URLs (docker -H URL version)",
    });
  if (mode === "hosts" && scenario.compare === "hosts" && live().length < states.length)
    info(`continuing with ${live().map((s) => s.t.spec.id).join(", ")}: the run will end partial`, undefined, "warning");

  // 2. Images on every host.
  const imageNames = [...new Set([...scenario.servers.map((s) => s.image), LOAD_IMAGE])];
  const progress = (host: string) => (image: string) => (step: string, line?: string) => opts.onEvent?.(host, { type: "image-progress", at: at(), image, step, line });
  const source = live()[0]!;
  const ensureOn = (s: HostState, name: string): Promise<ImageInfo> => {
    let p = s.images.get(name);
    if (!p) {
      p = transfer === "build" || s === source ? s.t.deps.ensureImage(name, progress(s.t.spec.id)(name), signal) : sendTo(s, name);
      s.images.set(name, p);
    }
    return p;
  };
  const sendTo = async (s: HostState, name: string): Promise<ImageInfo> => {
    const src = await ensureOn(source, name);
    const have = await deps.images.inspect(s.engine, src.tag);
    if (!have) {
      info(`image ${src.tag}: sending from host ${source.t.spec.id} to host ${s.t.spec.id}`, s.t.spec.id);
      const r = await deps.images.send(source.engine, s.engine, src.tag, { signal });
      info(`image ${src.tag}: sent to host ${s.t.spec.id} (${(r.bytes / 2 ** 20).toFixed(0)} MiB in ${r.seconds.toFixed(1)} s)`, s.t.spec.id);
    }
    const there = await deps.images.inspect(s.engine, src.tag);
    if (!there) throw new TwinbenchError(`image ${src.tag} is missing on host ${s.t.spec.id} after sending it`, { code: "IMAGE_SEND_FAILED", hint: "check the target engine's logs" });
    return { ...src, id: there.id, cacheHit: Boolean(have) };
  };
  try {
    for (const name of imageNames) await ensureOn(source, name); // the source first: a broken build fails once
  } catch (e) {
    if (e instanceof CancelledError || signal.aborted) throw e;
    throw new TwinbenchError(`images on host ${source.t.spec.id}: ${msg(e)}`, { code: (e as TwinbenchError).code ?? "IMAGE_BUILD_FAILED", hint: (e as TwinbenchError).hint, cause: e });
  }
  await Promise.all(
    live().map(async (s) => {
      try {
        for (const name of imageNames) await ensureOn(s, name);
      } catch (e) {
        if (signal.aborted) return;
        lose(s, "failed", `images: ${msg(e)}`);
      }
    }),
  );
  throwIfAborted();

  // 3. Host facts: engine info plus a probe container.
  const loadTag = (await ensureOn(source, LOAD_IMAGE)).tag;
  await Promise.all(
    live().map(async (s) => {
      try {
        s.facts = await probeFacts(s, loadTag);
      } catch (e) {
        lose(s, "unreachable", `reading host facts: ${msg(e)}`);
      }
    }),
  );
  throwIfAborted();

  // 4. Image parity: the same pinned images everywhere, or no comparison.
  const imageFacts: HostImageFacts[] = [];
  for (const s of live()) {
    for (const name of imageNames) {
      const img = await ensureOn(s, name);
      const ins = await deps.images.inspect(s.engine, img.tag);
      imageFacts.push({ host: s.t.spec.id, name, tag: img.tag, id: ins?.id ?? img.id, labels: ins?.labels ?? {}, packages: await packagesOf(s, img.tag) });
    }
  }
  const problems = imageParity(imageFacts);
  if (problems.length) throw parityError(problems);
  const notes = [...imageIdNotes(imageFacts)];
  info(`images identical on ${live().map((s) => s.t.spec.id).join(", ")} (${imageNames.length} images: tags, labels and installed packages)`);

  // 5. Sharding needs alike hosts.
  let mixed: string[] = [];
  if (mode === "shard") {
    mixed = shardMismatches(live().map((s) => s.facts!));
    if (mixed.length && !opts.force)
      throw new InputError(`refusing to shard over hosts that differ: ${mixed.join("; ")}`, {
        code: "HOSTS_DIFFER",
        problems: mixed,
        hint: "shard over identical machines, use compare: hosts to measure the difference, or pass --force (the report then says the hosts were mixed)",
      });
    if (mixed.length) {
      info(`sharding over unlike hosts (--force): ${mixed.join("; ")}`, undefined, "warning");
      notes.push(`hosts were mixed (--force): ${mixed.join("; ")}`);
    }
  }

  // 6. One run per host, concurrently.
  const plan = planRun(scenario);
  const parts: Array<{ host: string; folder: string }> = [];
  const runOn = async (s: HostState, folder: string, runId: string, filter: (c: Cell) => boolean): Promise<void> => {
    const id = s.t.spec.id;
    const guard = new HostGuard(id);
    guard.watch(() => s.t.engine.ping(), { everyMs: deps.watchEveryMs });
    const hostDeps: RunDeps = { ...s.t.deps, engine: guardedEngine(s.t.engine, s.facts!, guard), ensureImage: (name) => ensureOn(s, name) };
    parts.push({ host: id, folder });
    try {
      const r = await guard.orLost(runOne(hostDeps, {
        ...opts,
        scenario,
        outDir: join(dir, "hosts", folder),
        runId,
        resume: false,
        sessionId,
        cellFilter: filter,
        onEvent: (e) => opts.onEvent?.(id, e),
        selfContainerId: opts.selfContainerId ? await opts.selfContainerId(s.t.engine).catch(() => undefined) : undefined,
      }), deps.lostGraceMs ?? 30_000);
      if (s.run.status === "running" || s.run.status === "ok") s.run.status = r.status;
      s.run.dir = join("hosts", id);
      if (r.status === "cancelled") s.alive = false;
    } catch (e) {
      if (signal.aborted) {
        s.run.status = "cancelled";
        s.alive = false;
        return;
      }
      const reachable = !guard.lost && (await withDeadline(s.t.engine.ping(), 5000, () => new Error("timeout")).then(() => true, () => false));
      s.run.dir = join("hosts", id);
      lose(s, reachable ? "failed" : "unreachable", reachable ? msg(e) : `its engine (${s.run.engine}) stopped answering during the run (${guard.lost ? msg(guard.lost).replace(/^.*stopped answering \((.*)\)$/s, "$1") : msg(e)})`);
    } finally {
      guard.stop();
    }
  };
  await Promise.all(live().map((s) => runOn(s, s.t.spec.id, hostRunId(opts.runId, s.t.spec.id), (c) => c.host === s.t.spec.id)));

  // 7. Shard: the cells of lost hosts go to the survivors, whole groups at a time, until done or nobody is left.
  if (mode === "shard") {
    const assigned = new Map(plan.cells.map((c) => [c.key, c.host ?? ""]));
    for (let pass = 2; pass <= states.length + 1 && !signal.aborted; pass++) {
      const records = await readCells(dir, parts);
      const missing = missingCells(plan.cells, records);
      const survivors = live().map((s) => s.t.spec.id);
      if (missing.length === 0 || survivors.length === 0) break;
      // Only cells whose current host was lost move; a survivor's own failed cells are cell failures, not moved.
      const lostCells = missing.filter((c) => !survivors.includes(assigned.get(c.key) ?? ""));
      if (lostCells.length === 0) break;
      const moved = redistribute(lostCells, survivors);
      for (const [h, cs] of moved) for (const c of cs) assigned.set(c.key, h);
      info(`moving ${lostCells.length} cells of lost host(s) ${[...new Set(lostCells.map((c) => c.host))].join(", ")} to ${[...moved].filter(([, cs]) => cs.length).map(([h, cs]) => `${h} (${cs.length})`).join(", ")}`, undefined, "warning");
      await Promise.all(
        [...moved].filter(([, cs]) => cs.length > 0).map(([h, cs]) => {
          const keys = new Set(cs.map((c) => c.key));
          const s = states.find((x) => x.t.spec.id === h)!;
          return runOn(s, `${h}.pass${pass}`, hostRunId(opts.runId, h, pass), (c) => keys.has(c.key));
        }),
      );
    }
  }

  // 8. Teardown reaches every host: a failed host that still answers gets its run's leftovers removed.
  for (const s of states) {
    if (s.run.status !== "failed" && s.run.status !== "unreachable") continue;
    const ids = parts.filter((p) => p.host === s.t.spec.id).map((p) => (p.folder === s.t.spec.id ? hostRunId(opts.runId, p.host) : hostRunId(opts.runId, p.host, Number(p.folder.split(".pass")[1]))));
    if (ids.length === 0) ids.push(hostRunId(opts.runId, s.t.spec.id));
    const reachable = await withDeadline(s.t.engine.ping(), 5000, () => new Error("timeout")).then(() => true, () => false);
    if (!reachable) {
      notes.push(`host ${s.t.spec.id} could not be cleaned (unreachable): run \`twinbench clean --host ${s.t.spec.id}\` once it is back`);
      continue;
    }
    for (const runId of ids) await cleanResources(s.t.engine, { runId }).catch(() => undefined);
  }

  // 9. Reports.
  const cancelled = signal.aborted;
  const runs: HostRun[] = [];
  for (const s of states) {
    const folder = await readResultsFolder(join(dir, "hosts", s.t.spec.id)).catch(() => undefined);
    runs.push({ ...s.run, ...(folder ? { manifest: folder.manifest, cells: folder.cells, dir: join("hosts", s.t.spec.id) } : {}) });
    if (s.run.status === "running") s.run.status = cancelled ? "cancelled" : "failed";
  }
  for (const r of runs) if (r.status === "running") r.status = cancelled ? "cancelled" : "failed";

  let status: RunSummary["status"];
  let reportText: string;
  let mergedDir: string | undefined;
  const reportFile = join(dir, "report-hosts.md");
  if (mode === "shard") {
    const folders: ResultPart[] = [];
    for (const p of parts) {
      const f = await readResultsFolder(join(dir, "hosts", p.folder)).catch(() => undefined);
      if (f) folders.push({ host: p.host, folder: p.folder, manifest: f.manifest, cells: f.cells });
    }
    const failures = states.filter((s) => s.run.status === "failed" || s.run.status === "unreachable").map((s) => ({ host: s.t.spec.id, message: s.run.error ?? s.run.status }));
    const hostFacts = states.map((s) => s.facts).filter((f): f is HostFacts => f !== undefined);
    if (folders.length === 0) {
      status = cancelled ? "cancelled" : "failed";
      reportText = `Sharded run ${opts.runId}: no host produced results.\n${failures.map((f) => `host ${f.host}: ${f.message}`).join("\n")}\n`;
      await writeFileAtomic(reportFile, reportText);
    } else {
      const merged = mergeShard({ runId: opts.runId, parts: folders, plannedCells: plan.cells, hostFacts, mixed, failures, cancelled });
      await mkdir(join(dir, "raw"), { recursive: true });
      await writeFileAtomic(join(dir, "run.json"), JSON.stringify(merged.manifest, null, 2) + "\n");
      await writeFileAtomic(join(dir, "cells.jsonl"), merged.cells.map((c) => JSON.stringify(c) + "\n").join(""));
      for (const c of merged.rawCopies) await cp(join(dir, c.from), join(dir, c.to), { recursive: true }).catch(() => undefined);
      if (deps.writeReports) await deps.writeReports(dir).catch((e) => info(`reports: ${msg(e)}`, undefined, "warning"));
      status = merged.manifest.status === "running" ? "failed" : merged.manifest.status;
      const md = renderShardMarkdown({ runId: opts.runId, hosts: runs, manifest: merged.manifest, cells: merged.cells, notes });
      await writeFileAtomic(reportFile, md);
      reportText = md;
      mergedDir = dir;
    }
  } else {
    const cmp = compareHosts(runs, { notes });
    reportText = renderHostsText(cmp);
    await writeFileAtomic(reportFile, renderHostsMarkdown(cmp));
    await writeFileAtomic(join(dir, "report-hosts.html"), renderHostsHtml(cmp));
    await writeFileAtomic(
      join(dir, "hosts.json"),
      JSON.stringify({ runId: opts.runId, notes, hosts: runs.map(({ manifest, cells, ...r }) => ({ ...r, facts: manifest?.hosts[0] })), facts: cmp.facts, serverFacts: cmp.serverFacts, images: imageFacts.map(({ packages, ...i }) => ({ ...i, packages: packages ? Object.keys(packages).length : null })) }, null, 2) + "\n",
    );
    status = cancelled ? "cancelled" : runs.every((r) => r.status === "ok") ? "ok" : runs.some((r) => r.manifest && (r.status === "ok" || r.status === "partial")) ? "partial" : "failed";
  }
  const exitCode: RunSummary["exitCode"] = status === "ok" ? 0 : status === "cancelled" ? 130 : 1;
  return { mode, status, exitCode, dir, runId: opts.runId, hosts: runs, reportText, reportFile, mergedDir };

  // ---- helpers ----

  async function probeFacts(s: HostState, tag: string): Promise<HostFacts> {
    const id = s.t.spec.id;
    const runId = hostRunId(opts.runId, id);
    const labels = resourceLabels({ sessionId, runId, hostId: id, pid: process.pid, hostname: osHostname() }, { [LABEL.role]: "probe" });
    const base = await s.t.engine.facts();
    return probeHostFacts(s.t.engine, { ...base, id }, { image: tag, runId, labels, engineUrl: safeUrl(s.t.spec), signal, onWarning: (m) => info(`host ${id}: ${m}`, id, "warning") });
  }

  async function packagesOf(s: HostState, tag: string): Promise<Record<string, string> | undefined> {
    const id = s.t.spec.id;
    const runId = hostRunId(opts.runId, id);
    const labels = resourceLabels({ sessionId, runId, hostId: id, pid: process.pid, hostname: osHostname() }, { [LABEL.role]: "probe" });
    const cmd = dpkgQueryCommand();
    try {
      const r = await s.t.engine.run(
        { name: resourceName(runId, "pkgs", randomBytes(3).toString("hex")), image: tag, entrypoint: [cmd[0]!], cmd: cmd.slice(1), labels, networkMode: "none" },
        { timeoutMs: 60_000, signal },
      );
      if (r.exitCode !== 0) return undefined;
      const pkgs = parseDpkgList(r.output);
      return Object.keys(pkgs).length ? pkgs : undefined;
    } catch {
      return undefined; // no dpkg in the image (official-mode images on other distributions): labels decide
    }
  }
}

function safeUrl(spec: HostSpec): string {
  try {
    return displayEngineUrl(parseEngineUrl(spec.engine, { tls: spec.tls !== undefined }));
  } catch {
    return spec.engine;
  }
}

async function ensureEmptyDir(dir: string): Promise<void> {
  const entries = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return [] as string[];
    throw e;
  });
  if (entries.length > 0)
    throw new InputError(`results folder ${dir} already exists and is not empty`, { code: "RESULTS_EXISTS", hint: "choose another --out" });
  await mkdir(join(dir, "hosts"), { recursive: true });
}

async function readCells(dir: string, parts: ReadonlyArray<{ folder: string }>): Promise<CellRecord[]> {
  const out: CellRecord[] = [];
  for (const p of parts) {
    const f = await readResultsFolder(join(dir, "hosts", p.folder)).catch(() => undefined);
    if (f) out.push(...f.cells);
  }
  return out;
}
