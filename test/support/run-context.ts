/**
 * A run stage's surroundings without Docker or a disk: a RunContext over the fake engine with a fixed clock and the
 * events it emits, and a results session kept in memory (manifest, recorded cells, actions, saves, raw files).
 */
import { RunContext } from "../../src/app/run/context.ts";
import type { ResultsSession } from "../../src/app/run/session.ts";
import type { RunDeps, RunOptions } from "../../src/app/run/types.ts";
import type { RunEvent } from "../../src/core/model/events.ts";
import type { CellRecord, RunManifest } from "../../src/core/model/results.ts";
import type { Scenario } from "../../src/core/model/scenario/schema.ts";
import type { Plan } from "../../src/core/plan/plan.ts";
import { FakeEngine } from "./fake-engine.ts";
import { scenario as scenarioOf } from "./scenario.ts";

/** The fixed clock of {@link stageContext}. */
export const STAGE_NOW = "2020-01-02T03:04:05.000Z";

export interface StageContextOptions {
  scenario?: Scenario;
  deps?: Partial<RunDeps>;
  opts?: Partial<RunOptions>;
  plan?: Plan;
}

/** A RunContext on the fake engine (unless `deps.engine` is given), and what it emitted. */
export function stageContext(o: StageContextOptions = {}) {
  const engine = new FakeEngine();
  const events: RunEvent[] = [];
  const ctx = new RunContext(
    { engine, now: () => new Date(STAGE_NOW), ...o.deps } as RunDeps,
    {
      scenario: o.scenario ?? scenarioOf(),
      neutralCnf: "",
      outDir: "/nonexistent",
      onEvent: (e) => events.push(e),
      ...o.opts,
    },
    o.plan ?? ({ cells: [], estimate: { totalSeconds: 0 } } as unknown as Plan),
  );
  const warnings = () => events.flatMap((e) => (e.type === "warning" ? [e.message] : []));
  return { ctx, events, engine, warnings };
}

/**
 * A results session in memory: what a stage reads and writes through it, counted. `cells` are what its store reads
 * back; `previous` the records of a run being resumed; `appended` what a stage appends to cells.jsonl.
 */
export function memorySession(
  manifest: Partial<RunManifest> = {},
  cells: CellRecord[] = [],
  previous: CellRecord[] = [],
) {
  const raw = new Map<string, string>();
  const appended: CellRecord[] = [];
  const s = {
    previous,
    appended,
    manifest: { runId: "r1", hosts: [], servers: [], actions: [], status: "running", ...manifest } as RunManifest,
    saves: 0,
    raw,
    dir: "/nonexistent/run",
    store: { readCells: async () => cells },
    async save() {
      s.saves++;
    },
    action(action: string, server?: string, detail?: string) {
      (s.manifest.actions ??= []).push({ at: STAGE_NOW, server, action, detail });
    },
    async appendCell(rec: CellRecord) {
      appended.push(rec);
    },
    async writeRaw(name: string, text: string) {
      raw.set(name, text);
      return `raw/${name}`;
    },
  };
  return { session: s as unknown as ResultsSession, state: s };
}
