/**
 * The library API of twinbench: `import { loadScenario, planRun, runScenario } from "twinbench"`.
 *
 * This module is the one place that lists what the package exports from `"twinbench"`; `twinbench/testcontainers`
 * (src/testcontainers/) and `twinbench/testing` (src/testing/) are the two other entry points. Nothing here comes
 * from the CLI or the TUI. docs/api.md describes every name with an example.
 *
 * @packageDocumentation
 */

// Scenarios: load, validate, plan.
export {
  loadScenario,
  loadScenarioFile,
  loadScenarioText,
  readNeutralConfig,
  type LoadScenarioOptions,
  type LoadedScenario,
} from "./adapters/scenario-file.ts";
export { validateScenario, type ValidateResult } from "./core/model/scenario/validate.ts";
export type { ValidateContext } from "./core/model/scenario/validate-problems.ts";
export type { Scenario, ServerSpec, Storage, Workload, Transport } from "./core/model/scenario/schema.ts";
export { planRun, type Plan } from "./core/plan/plan.ts";
export type { SetupCosts } from "./core/model/setup-costs.ts";
export type {
  Cell,
  CellRecord,
  RunManifest,
  ServerManifest,
  MustMatchRow,
  TranslationEntry,
} from "./core/model/results.ts";

// Running: the engine, its adapters, its events.
export { runScenario, RunControl, type RunDeps, type RunOptions, type RunSummary, type ImageInfo } from "./app/run.ts";
export { createRunDeps, type CreateRunDepsOptions } from "./app/deps.ts";
export { clean, cleanResources, type CleanOptions, type CleanReport } from "./app/clean.ts";
export type { RunEvent, RunEventType, EventSink, Phase } from "./core/model/events.ts";
export { DockerEngine } from "./adapters/docker/engine.ts";
export { listLabelled, type LabelledResources } from "./core/model/engine/engine.ts";
export { type Engine } from "./core/model/engine/engine.ts";
export { LABEL } from "./core/base/labels.ts";

// Images.
export {
  ensureImages,
  ensureImage,
  loadLock,
  type EnsureImageOptions,
  type EnsuredImage,
} from "./adapters/images/index.ts";
export { pinImages, type PinOptions, type PinOutcome } from "./adapters/images/index.ts";
export type { DigestEdit } from "./core/images/pin.ts";
export type { Lock, LockEntry } from "./core/images/lock.ts";

// Config: the per-server rendering of the neutral config and the must-match comparison.
export { renderConfig, type RenderInput, type RenderOutput } from "./core/config/render.ts";
export { mustMatch, MUST_MATCH_ROWS, type MustMatchServer } from "./core/config/mustmatch.ts";

// sysbench output.
export { parseSysbench, parseSysbenchFile } from "./core/model/sysbench/parse.ts";
export { SysbenchParseError } from "./core/model/sysbench/error.ts";
export type { SysbenchResult, IntervalSample, LatencyMs } from "./core/model/sysbench/result.ts";

// Reports: the model, its renderers, results folders, run-to-run comparison.
export {
  buildRunReport,
  type RunReport,
  type ReportOptions,
  type ServerLine,
  type ConfigIdentity,
} from "./core/report/model.ts";
export type { RatioTable, RatioRow, RatioCell, CellStatus } from "./core/stats/ratio-model.ts";
export type { Metric } from "./core/stats/metric.ts";
export {
  VERDICTS,
  FDR,
  cellVerdict,
  verdictOf,
  directionOf,
  equivalenceOf,
  type Verdict,
  type Direction,
  type Equivalence,
  type FdrReading,
  type CellVerdict,
} from "./core/model/verdict.ts";
export {
  verdictWordOf,
  verdictLabel,
  cellVerdictText,
  verdictSentence,
  shortLegend,
  VERDICT_WORDS,
  DIRECTION_WORDS,
  STATE_MARKS,
  STATE_WORDS,
  type VerdictWord,
} from "./core/model/vocabulary.ts";
export { renderText } from "./core/report/text.ts";
export { renderMarkdown } from "./core/report/markdown.ts";
export { renderCsv, renderCostCsv } from "./core/report/csv.ts";
export { costTableFromSides } from "./core/stats/costs.ts";
export { costLines } from "./core/report/costs.ts";
export { renderJson } from "./core/report/json.ts";
export { renderHtml } from "./core/report/html.ts";
export { buildHtmlData, type HtmlData } from "./core/report/html-data.ts";
export { readResultsFolder, writeReports, loadChartJsSource, type ResultsFolder } from "./adapters/report-files.ts";
export {
  compareRuns,
  findRegressions,
  assertNoRegression,
  type RunData,
  type CompareOptions,
  type RunComparison,
  type Regression,
} from "./core/stats/compare.ts";
export type { FactDiff } from "./core/stats/run-differences.ts";
export {
  renderComparisonText,
  renderComparisonMarkdown,
  renderComparisonCsv,
  comparisonJson,
} from "./core/report/compare.ts";

// Errors.
export {
  TwinbenchError,
  InputError,
  CancelledError,
  isTwinbenchError,
  formatError,
  type ErrorDetails,
  type ExitCode,
} from "./core/base/errors.ts";
