/** The multi-host run's public types. */
import type { RunEvent } from "../../core/model/events.ts";
import type { HostSpec } from "../../core/model/scenario/schema.ts";
import type { HostRun } from "../../core/report/hosts.ts";
import type { Engine } from "../../core/model/engine/engine.ts";
import type { ImageOps } from "../../adapters/images/transfer.ts";
import type { RunDeps, RunOptions, RunSummary } from "../run/types.ts";

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

export interface HostsOptions extends Omit<
  RunOptions,
  "outDir" | "runId" | "cellFilter" | "resume" | "onEvent" | "selfContainerId" | "control"
> {
  outDir: string;
  runId: string;
  /** send (default): build once on the first host, stream it to the others; build: every host builds its own. */
  imageTransfer?: ImageTransfer;
  /** Shard over hosts whose facts differ (the report then says the hosts were mixed). */
  force?: boolean;
  /**
   * Continue the multi-host run in outDir (its hosts-run.json): every host resumes its own folder on its own
   * engine, a host that does not answer is an error, and the reports are rewritten. `scenario` is the recorded one.
   */
  resume?: boolean;
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

/** One run on one host: pass 1 is the host's own cells, later passes take over the cells of lost hosts. */
export interface RunPart {
  host: string;
  pass: number;
  /** Folder under DIR/hosts/: the host id for pass 1, <host>.pass<N> after. */
  folder: string;
}
