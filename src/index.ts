/**
 * The library API: `import { planRun, runScenario } from "twinbench"`. Drive a run with an AbortSignal and an
 * event callback; the same events feed the TUI and the CLI.
 */
export { planRun } from "./core/plan/plan.ts";
export { runScenario, RunControl, type RunDeps, type RunOptions, type RunSummary } from "./app/run.ts";
export { DockerEngine, type Engine } from "./adapters/docker/engine.ts";
export { loadDeps } from "./cli/commands/shared.ts";
export type { RunEvent, EventSink } from "./core/events.ts";
export type { Scenario } from "./core/scenario/schema.ts";
export type { SysbenchResult } from "./core/sysbench/result.ts";
export type { Cell, CellRecord, RunManifest } from "./core/results.ts";
