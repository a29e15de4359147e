/**
 * What every stage of a run shares: its dependencies and options, the event sink, the clock, the abort signal,
 * the stage timings, the labels of what it creates and the teardown stack.
 */
import { randomBytes } from "node:crypto";
import { CancelledError } from "../../core/base/errors.ts";
import { PROGRESS_EVERY_SECONDS, type Phase, type RunEvent } from "../../core/model/events.ts";
import { resourceLabels } from "../../core/base/labels.ts";
import type { Plan } from "../../core/plan/plan.ts";
import type { Scenario } from "../../core/model/scenario/schema.ts";
import type { Engine } from "../../core/model/engine/engine.ts";
import { mysql2Probe, type Probe } from "../../adapters/mysql/probe.ts";
import { DisposableStack } from "../disposables.ts";
import type { RunDeps, RunOptions } from "./types.ts";
import type { LoadedScript } from "../../core/model/scenario/custom.ts";
import { selfOwner } from "../../adapters/host/process-identity.ts";
import type { SpeedProbe } from "../../adapters/host/cpu-speed.ts";

export class RunContext {
  readonly scenario: Scenario;
  readonly engine: Engine;
  readonly probe: Probe;
  readonly signal: AbortSignal;
  readonly sessionId: string;
  readonly stack = new DisposableStack();
  readonly timings: Record<string, number> = {};
  /**
   * When the run started, in ms of the monotonic clock ({@link clock}): budgets, deadlines and stage timings are
   * differences of it, so a step of the wall clock (NTP, a manual date change) never distorts them.
   */
  readonly wallStart: number;
  /** Set by the results session (a resumed run keeps its id). */
  runId = "";
  /** The scenario's own Lua scripts, read before anything is created (empty without custom tests). */
  scripts: LoadedScript[] = [];
  /** The speed probe on the servers' CPUs while the cells run (run/speed.ts); undefined when they are not watched. */
  speed: SpeedProbe | undefined;

  constructor(
    readonly deps: RunDeps,
    readonly opts: RunOptions,
    readonly plan: Plan,
  ) {
    this.scenario = opts.scenario;
    this.engine = deps.engine;
    this.probe = deps.probe ?? mysql2Probe;
    this.signal = opts.signal ?? new AbortController().signal;
    this.sessionId = opts.sessionId ?? randomBytes(6).toString("hex");
    this.wallStart = this.clock();
  }

  /** Milliseconds of a monotonic clock (performance.now; tests inject one): for durations only, never dates. */
  clock(): number {
    return (this.deps.monotonicMs ?? (() => performance.now()))();
  }

  now(): Date {
    return (this.deps.now ?? (() => new Date()))();
  }
  at(): string {
    return this.now().toISOString();
  }
  emit(e: RunEvent): void {
    this.opts.onEvent?.(e);
  }
  warn(message: string): void {
    this.emit({ type: "warning", at: this.at(), message });
  }
  phase(p: Phase, extra: Partial<Extract<RunEvent, { type: "phase" }>> = {}): void {
    this.emit({ type: "phase", at: this.at(), phase: p, ...extra });
  }
  throwIfAborted(): void {
    if (this.signal.aborted) throw new CancelledError();
  }
  /** Run `fn` and add its wall time to the stage's timing. */
  async time<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const t0 = this.clock();
    try {
      return await fn();
    } finally {
      this.timings[key] = (this.timings[key] ?? 0) + (this.clock() - t0) / 1000;
    }
  }
  /**
   * Run a long step and say every {@link PROGRESS_EVERY_SECONDS} that it still runs (a `progress` event with the
   * seconds so far and the latest line `fn` noted), so that no front end is silent through a slow build or start.
   */
  async withProgress<T>(phase: Phase, subject: string, fn: (note: (line: string) => void) => Promise<T>): Promise<T> {
    const t0 = this.clock();
    let detail: string | undefined;
    const timer = setInterval(() => {
      const seconds = Math.round((this.clock() - t0) / 1000);
      this.emit({
        type: "progress",
        at: this.at(),
        phase,
        subject,
        seconds,
        ...(detail === undefined ? {} : { detail }),
      });
    }, PROGRESS_EVERY_SECONDS * 1000);
    try {
      return await fn((line) => {
        if (line.trim() !== "") detail = line.trim();
      });
    } finally {
      clearInterval(timer);
    }
  }
  /** Labels for a resource of this run. */
  labels(extra: Record<string, string>): Record<string, string> {
    return resourceLabels(
      {
        sessionId: this.sessionId,
        runId: this.runId,
        hostId: this.engine.hostId,
        ...selfOwner(),
      },
      extra,
    );
  }
}
