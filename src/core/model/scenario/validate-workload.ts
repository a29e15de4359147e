/**
 * The workload's own rules across fields: tests and thread counts (unique, known scripts or legacy names), the cell's
 * length (duration or events), adaptive repeats, instances and budget, the report margin, the order seed and fresh.
 */
import { MAX_QUIET_WAIT_SECONDS, parseDuration, parsePercent, type Scenario } from "./schema.ts";
import { didYouMean, show } from "./suggest.ts";
import { DEFAULT_SETUP_COSTS } from "../setup-costs.ts";
import { LEGACY_TABLE_NOTE, LEGACY_TESTS, resolveTest, testWrites } from "./legacy.ts";
import { STOCK_SCRIPTS } from "../sysbench/options.ts";
import type { Problems } from "./validate-problems.ts";
import { MAX_BUDGET_SECONDS, MAX_CELL_SECONDS } from "./limits.ts";

/** workload.tests and workload.threads: each known and listed once. */
export function checkTestsAndThreads(s: Scenario, problems: Problems): void {
  const { err, warn } = problems;
  const w = s.workload;
  const legacyNames = Object.keys(LEGACY_TESTS);
  let usesLegacy = false;
  const seenTests = new Map<string, number>();
  w.tests.forEach((t, i) => {
    const p = ["workload", "tests", i];
    if (seenTests.has(t)) err(p, `duplicate test ${show(t)} (already workload.tests.${seenTests.get(t)})`);
    seenTests.set(t, i);
    const r = resolveTest(t, w.scripts);
    if (!r) {
      err(
        p,
        `unknown test ${show(t)}: expected a sysbench 1.0.20 script (${STOCK_SCRIPTS.join(", ")}), a legacy name (${legacyNames.join(", ")}) ` +
          `or your own script as { script: FILE.lua, writes: true|false }` +
          didYouMean(t.replace(/\.lua$/, ""), [...STOCK_SCRIPTS, ...legacyNames]),
      );
      return;
    }
    if (r.legacy) {
      usesLegacy = true;
      if (!r.legacy.exact) warn(p, `legacy test ${show(t)} runs as ${r.script}, not exactly: ${r.legacy.note}`);
    }
  });
  for (const name of Object.keys(w.scripts ?? {})) {
    const p = ["workload", "scripts", name];
    if (!/^[a-z0-9][a-z0-9_-]{0,30}$/.test(name))
      err(p, `expected a test name of lowercase letters, digits, - or _ (max 31), got ${show(name)}`);
    else if (resolveTest(name)) err(p, `${show(name)} is a stock test's name: give the custom test a name of its own`);
    else if (!w.tests.includes(name)) warn(p, `custom script ${show(name)} is not in workload.tests, so it never runs`);
  }
  if (usesLegacy) warn(["workload", "tests"], `legacy test names run as sysbench 1.0.20 scripts: ${LEGACY_TABLE_NOTE}`);
  const seenThreads = new Map<number, number>();
  w.threads.forEach((t, i) => {
    if (seenThreads.has(t))
      err(["workload", "threads", i], `duplicate thread count ${t} (already workload.threads.${seenThreads.get(t)})`);
    seenThreads.set(t, i);
  });
}

/** The cell's length, the repeats, instances and budget it allows, and the report and order options. */
export function checkLengthAndRepeats(s: Scenario, problems: Problems): void {
  const { err, warn } = problems;
  const w = s.workload;
  const duration = w.duration === undefined ? undefined : parseDuration(w.duration);
  const hasDuration = duration !== undefined && duration > 0;
  if (!hasDuration && w.events === undefined)
    err(
      ["workload"],
      w.duration === undefined
        ? `expected duration or events, got neither`
        : `expected duration or events, got duration ${show(w.duration)}`,
    );
  if (hasDuration && w.events !== undefined)
    err(
      ["workload", "events"],
      `give duration or events, not both (got duration ${show(w.duration)} and events ${w.events}); with events sysbench runs with --time=0`,
    );
  // -- upper bounds of the durations (a timer past 2^31 ms fires at once) ------------------------------------------
  for (const key of ["duration", "warmup", "trim"] as const) {
    const v = w[key];
    const secs = v === undefined ? undefined : parseDuration(v);
    if (secs !== undefined && secs > MAX_CELL_SECONDS)
      err(
        ["workload", key],
        `expected at most ${MAX_CELL_SECONDS / 86400} days (${MAX_CELL_SECONDS} s), got ${show(v)}`,
      );
  }
  if (w.quietWait !== undefined && parseDuration(w.quietWait)! > MAX_QUIET_WAIT_SECONDS)
    err(
      ["workload", "quietWait"],
      `expected at most ${MAX_QUIET_WAIT_SECONDS} s (a wait for outside work to end), got ${show(w.quietWait)}`,
    );
  if (w.budget !== undefined && parseDuration(w.budget)! > MAX_BUDGET_SECONDS)
    err(
      ["workload", "budget"],
      `expected at most ${MAX_BUDGET_SECONDS / 86400} days (${MAX_BUDGET_SECONDS} s), got ${show(w.budget)}`,
    );
  // -- adaptive repeats, instances, budget, report margin ----------------------------------------------------------
  if (typeof w.repeats === "object") {
    const r = w.repeats;
    if (r.min > r.max) err(["workload", "repeats", "min"], `min ${r.min} is above max ${r.max}`);
    const precision = parsePercent(r.precision)!;
    if (!(precision > 0))
      err(["workload", "repeats", "precision"], `expected a precision above 0%, got ${show(r.precision)}`);
    else if (precision >= 100)
      err(["workload", "repeats", "precision"], `expected a precision below 100%, got ${show(r.precision)}`);
  }
  const fixedRepeats = typeof w.repeats === "number" ? w.repeats : undefined;
  if (w.instances !== undefined && fixedRepeats !== undefined && w.instances > fixedRepeats)
    err(
      ["workload", "instances"],
      `${w.instances} instances need at least ${w.instances} repeats (one pair per instance), got repeats ${fixedRepeats}`,
    );
  if (w.budget !== undefined) {
    const budget = parseDuration(w.budget)!;
    // One round: every cell once on every server, at the cell's length plus sysbench's start-up.
    const cellSeconds = hasDuration ? duration! : (w.events ?? 0) / DEFAULT_SETUP_COSTS.eventsPerSecond;
    const round =
      w.tests.length * w.threads.length * s.servers.length * (cellSeconds + DEFAULT_SETUP_COSTS.cellOverheadSeconds);
    if (budget < round)
      err(
        ["workload", "budget"],
        `${show(w.budget)} is shorter than one round (${w.tests.length} tests × ${w.threads.length} thread counts × ${s.servers.length} servers × ` +
          `${cellSeconds + DEFAULT_SETUP_COSTS.cellOverheadSeconds} s = ${Math.ceil(round)} s)`,
      );
    if (typeof w.repeats === "number")
      warn(
        ["workload", "budget"],
        `a budget only bounds adaptive repeats; workload.repeats is the fixed count ${w.repeats}`,
      );
  }
  if (s.report?.margin !== undefined) {
    const m = parsePercent(s.report.margin)!;
    if (!(m > 0 && m < 100))
      err(["report", "margin"], `expected a margin above 0% and below 100%, got ${show(s.report.margin)}`);
  }
  if (s.orderSeed !== undefined && s.order !== "randomized")
    warn(["orderSeed"], `orderSeed only applies to order: randomized (order is ${show(s.order)})`);

  if (w.fresh === "per-test" && !w.tests.some((t) => testWrites(t, w.scripts)))
    warn(["workload", "fresh"], `per-test restores the data before write tests, and none of workload.tests writes`);
}
