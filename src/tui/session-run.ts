/**
 * A run started from the session screen: the library's run (src/app/) with the run screen as its only front end.
 * The screen's Ctrl-C/q cancels gracefully (the run tears down and writes its folder); a second one removes the
 * run's resources and exits with 130, as `twinbench run` does.
 */
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import type { ExitCode } from "../core/base/errors.ts";
import type { RunEvent } from "../core/model/events.ts";
import { newRunId, runScenario, RunControl } from "../app/run.ts";
import { prepareLab, resolveRunInput } from "../app/start.ts";
import { cleanSession } from "../app/clean.ts";
import { trapSignals } from "../app/signals.ts";
import { selfContainerId } from "../adapters/docker/self.ts";
import type { MountRunScreen } from "./run-screen.tsx";

export async function runWithScreen(
  file: string,
  mount: MountRunScreen,
  o: { resultsDir?: string } = {},
): Promise<ExitCode> {
  const input = await resolveRunInput({ file, sets: [] });
  // Before the screen owns the terminal: the engine check and the sweep may print (doctor --fix on a fresh host).
  const lab = await prepareLab(input.scenario, { log: (l) => process.stderr.write(l + "\n") });
  for (const n of lab.notices) process.stderr.write(`notice: ${n}\n`);
  const runId = newRunId(new Date());
  const control = new RunControl();
  const sessionId = randomBytes(6).toString("hex");
  const trap = trapSignals({
    force: () => void cleanSession([lab.deps.engine], sessionId).finally(() => process.exit(130)),
  });
  const screen = mount({ onCancel: trap.interrupt, onSkip: () => control.skipCurrent() });
  let finished = false;
  const dispatch = (e: RunEvent) => {
    if (e.type === "run-finished") finished = true;
    screen.dispatch(e);
  };
  try {
    const summary = await runScenario(lab.deps, {
      scenario: input.scenario,
      scenarioFile: input.scenarioFile,
      overrides: input.overrides,
      neutralCnf: lab.neutralCnf,
      outDir: resolve(join(o.resultsDir ?? "results", runId)),
      runId,
      sessionId,
      readyTimeoutMs: 180_000,
      signal: trap.signal,
      control,
      onEvent: dispatch,
      selfContainerId: await selfContainerId(lab.deps.engine),
    });
    return summary.exitCode;
  } finally {
    trap.dispose();
    // A run that threw before run-finished never ends the screen by itself; close() is idempotent.
    if (!finished) screen.close();
    await screen.done;
  }
}
