/**
 * What every storage kind implements: its preflight problems and its provisioning. The provider
 * (../provider.ts) picks the kind's `Provisioner` (./index.ts), records state around it and undoes it.
 */
import type { StorageFacts } from "../../../core/model/results.ts";
import type { StoragePlan } from "../../../core/storage/plan.ts";
import type { Runner } from "../../host/runner.ts";
import type { StateWriter } from "../state-file.ts";
import type { StorageMount } from "../../../core/model/engine/mounts.ts";
import type { StorageEngine, StorageRequest } from "../types.ts";

/** The host and engine a provisioner works on. */
export interface StorageHost {
  engine: StorageEngine;
  runner: Runner;
  /** A host path as this process sees it (under the provider's hostRoot). */
  hp(p: string): string;
  /** The engine listens on a local socket, so its host paths are this host's (seen under hostRoot). */
  engineIsLocal(): boolean;
}

/** One thing that stops a kind from being set up here; `pkg` when a Debian package fixes it. */
export interface Problem {
  what: string;
  pkg?: string;
}

/** What provisioning one server's storage works with: every resource goes into `writer` the moment it exists. */
export interface ProvisionStep {
  req: StorageRequest;
  labels: Record<string, string>;
  writer: StateWriter;
  warnings: string[];
}

/** A kind's result: the server's data mount, its facts now, and how to measure them again after the run. */
export interface Provisioned {
  mount: StorageMount;
  facts: StorageFacts;
  needsHolder: boolean;
  refresh(): Promise<Partial<StorageFacts>>;
}

export interface Provisioner<P extends StoragePlan = StoragePlan> {
  /** Set when the kind works on the engine's host directly (not through the engine): why it needs root there. */
  hostRoot?: string;
  /** Kind-specific preflight problems (the shared ones are in ../preflight.ts). Creates nothing. */
  problems(plan: P, host: StorageHost): Promise<Problem[]>;
  provision(plan: P, step: ProvisionStep, host: StorageHost): Promise<Provisioned>;
}
