/** What every stage of a multi-host run shares: options, hosts and their state, the folder, the event sink. */
import { randomBytes } from "node:crypto";
import { CancelledError } from "../../core/base/errors.ts";
import type { HostFacts, RunManifest } from "../../core/model/results.ts";
import type { HostSpec, Scenario } from "../../core/model/scenario/schema.ts";
import type { HostRun } from "../../core/report/hosts.ts";
import { displayEngineUrl, isPlainRemote, parseEngineUrl } from "../../core/hosts/url.ts";
import type { Engine } from "../../core/model/engine/engine.ts";
import type { HostsFolder } from "../../adapters/results/hosts-folder.ts";
import type { ImageInfo } from "../run/types.ts";
import type { HostsDeps, HostsEvent, HostsOptions, HostsSummary, HostTarget, RunPart } from "./types.ts";

export interface HostState {
  t: HostTarget;
  run: HostRun;
  alive: boolean;
  images: Map<string, Promise<ImageInfo>>;
  facts?: HostFacts;
  engine: Engine;
}

export class HostsContext {
  readonly signal: AbortSignal;
  readonly sessionId: string;
  readonly scenario: Scenario;
  readonly mode: HostsSummary["mode"];
  readonly states: HostState[];
  /** Every run started, in order: which folder holds which host's which pass. */
  readonly parts: RunPart[] = [];
  /** Lines for the report (image id notes, mixed hosts, hosts that could not be cleaned). */
  readonly notes: string[] = [];

  constructor(
    readonly deps: HostsDeps,
    readonly opts: HostsOptions,
    readonly folder: HostsFolder,
  ) {
    this.signal = opts.signal ?? new AbortController().signal;
    this.sessionId = opts.sessionId ?? randomBytes(6).toString("hex");
    // A resume keeps the recorded hosts in the scenario (each part's fingerprint), even when --host moved an engine.
    this.scenario = opts.resume ? opts.scenario : { ...opts.scenario, hosts: deps.hosts.map((h) => h.spec) };
    this.mode = this.scenario.shard ? "shard" : "hosts";
    this.states = deps.hosts.map((t) => ({
      t,
      engine: t.engine,
      alive: true,
      images: new Map(),
      run: { id: t.spec.id, engine: safeUrl(t.spec), status: "running" as RunManifest["status"] },
    }));
  }

  at(): string {
    return (this.deps.now ?? (() => new Date()))().toISOString();
  }
  info(message: string, host?: string, level: HostsEvent["level"] = "info"): void {
    this.opts.onEvent?.(host, { type: "hosts", at: this.at(), level, host, message });
  }
  live(): HostState[] {
    return this.states.filter((s) => s.alive);
  }
  lose(s: HostState, status: HostRun["status"], why: string): void {
    s.alive = false;
    s.run.status = status;
    s.run.error = why;
    this.info(
      `host ${s.t.spec.id} ${status === "unreachable" ? "is unreachable" : "failed"}: ${why}`,
      s.t.spec.id,
      "error",
    );
  }
  /** A line for the report and hosts.json, once (stages may meet the same problem on every pass). */
  note(line: string): void {
    if (!this.notes.includes(line)) this.notes.push(line);
  }
  /** A part whose results folder is damaged (run.json unreadable): left out of the report, with a note. */
  readonly damaged = (folder: string, why: string): void =>
    this.note(
      `the results in hosts/${folder} are damaged and left out of this report (${why}); the host stays listed with its status`,
    );
  throwIfAborted(): void {
    if (this.signal.aborted) throw new CancelledError();
  }
}

export const msg = (e: unknown) => (e instanceof Error ? e.message : String(e));

function safeUrl(spec: HostSpec): string {
  try {
    const u = parseEngineUrl(spec.engine, { tls: spec.tls !== undefined });
    // Plain HTTP to another machine runs only with insecure: true, and every report says so.
    return `${displayEngineUrl(u)}${spec.insecure && isPlainRemote(u) ? " (plain HTTP, insecure: true)" : ""}`;
  } catch {
    return spec.engine; // not a URL twinbench can parse: shown as given (connecting to it fails with its own error)
  }
}
