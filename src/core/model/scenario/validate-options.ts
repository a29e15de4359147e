/**
 * workload.sysbench: every option name checked against sysbench 1.0.20, legacy (0.4/0.5) names translated or
 * refused, options twinbench sets itself refused, and values normalized to the option's kind.
 */
import { parseDuration, type Scenario } from "./schema.ts";
import { didYouMean, show } from "./suggest.ts";
import { LEGACY_OPTIONS } from "./legacy.ts";
import {
  MANAGED_OPTIONS,
  NOT_IN_1_0_20,
  SYSBENCH_OPTIONS,
  checkOptionValue,
  normalizeOptionName,
  own,
} from "../sysbench/options.ts";
import type { Path, Problems } from "./validate-problems.ts";

/**
 * Check `s.workload.sysbench` and replace it with the options sysbench is given; legacy options that name a workload
 * field move their value there. `rawWorkload` is the document's own workload (to tell a set field from a default).
 */
export function checkSysbenchOptions(s: Scenario, rawWorkload: Record<string, unknown>, problems: Problems): void {
  const { err, warn } = problems;
  const extras: Record<string, string | number | boolean> = {};
  const knownNames = [...Object.keys(SYSBENCH_OPTIONS), ...Object.keys(LEGACY_OPTIONS)];
  for (const [key, value] of Object.entries(s.workload.sysbench)) {
    const p = ["workload", "sysbench", key];
    const name = normalizeOptionName(key);
    const legacy = own(LEGACY_OPTIONS, name);
    if (Object.hasOwn(NOT_IN_1_0_20, name)) {
      err(p, `--${name} is not a sysbench 1.0.20 option: ${NOT_IN_1_0_20[name]}`);
      continue;
    }
    if (legacy) {
      switch (legacy.kind) {
        case "rename": {
          const note = legacy.note ? ` (${legacy.note})` : "";
          warn(
            p,
            `legacy option --${name} is --${legacy.to} in sysbench 1.0.20; translated${legacy.exact ? "" : " (not exact)"}${note}`,
          );
          const bad = checkOptionValue(SYSBENCH_OPTIONS[legacy.to].kind, value);
          if (bad) err(p, `${bad}, got ${show(value)}`);
          else extras[legacy.to] = normalizeValue(legacy.to, value);
          break;
        }
        case "field":
          translateField(s, rawWorkload, legacy.field, name, legacy.to, value, p, err, warn);
          break;
        case "script":
          err(p, `legacy option --${name} chose the test in sysbench 0.4; ${legacy.note}`);
          break;
        case "drop":
          warn(p, `legacy option --${name} dropped: ${legacy.note}`);
          break;
        case "none":
          err(p, `legacy option --${name} has no sysbench 1.0.20 equivalent (${legacy.note}); remove it`);
          break;
      }
      continue;
    }
    if (Object.hasOwn(MANAGED_OPTIONS, name)) {
      err(p, `--${name} is set by twinbench ${MANAGED_OPTIONS[name]}; remove it from workload.sysbench`);
      continue;
    }
    const spec = own(SYSBENCH_OPTIONS, name);
    if (!spec && Object.keys(s.workload.scripts ?? {}).length > 0 && /^[a-z0-9][a-z0-9-]{0,63}$/.test(name)) {
      // A custom script declares options of its own (sysbench.cmdline.options): they cannot be checked here, and
      // go to the scenario's own scripts only (argv.ts); sysbench refuses one its script does not declare.
      extras[name] = value;
      continue;
    }
    if (!spec) {
      err(p, `unknown sysbench 1.0.20 option --${name}${didYouMean(name, knownNames)}`);
      continue;
    }
    const bad = checkOptionValue(spec.kind, value);
    if (bad) err(p, `${bad}, got ${show(value)}`);
    else extras[name] = normalizeValue(name, value);
  }
  s.workload.sysbench = extras;
}

function normalizeValue(name: string, value: string | number | boolean): string | number | boolean {
  const kind = own(SYSBENCH_OPTIONS, name)?.kind;
  if (kind?.type === "bool" && typeof value === "string") return /^(on|true|yes|1)$/i.test(value);
  if (kind?.type === "int" && typeof value === "string") return Number(value);
  return value;
}

/** A legacy option that twinbench sets from a workload field: move its value there, or refuse a conflict. */
function translateField(
  s: Scenario,
  rawWorkload: Record<string, unknown>,
  field: "tableSize" | "tables" | "duration" | "events" | "threads" | "engine",
  name: string,
  to: string,
  value: string | number | boolean,
  p: Path,
  err: (p: Path, m: string) => void,
  warn: (p: Path, m: string) => void,
): void {
  let v: unknown;
  if (field === "engine") {
    const e = String(value).toLowerCase();
    if (e !== "innodb" && e !== "myisam") return err(p, `expected innodb or myisam, got ${show(value)}`);
    v = e;
  } else {
    const n = typeof value === "number" ? value : Number(value);
    const min = field === "events" || field === "duration" ? 0 : 1;
    if (!Number.isInteger(n) || n < min)
      return err(p, `expected ${min ? "a positive" : "a non-negative"} integer, got ${show(value)}`);
    if (n === 0 && (field === "events" || field === "duration")) {
      warn(p, `legacy option --${name}=0 (no limit) dropped`);
      return;
    }
    v = field === "threads" ? [n] : n;
  }
  const target = `workload.${field}`;
  const explicit = rawWorkload[field];
  if (explicit !== undefined) {
    const same =
      JSON.stringify(field === "duration" ? parseDuration(explicit as string) : explicit) === JSON.stringify(v);
    if (!same)
      return err(
        p,
        `legacy option --${name}=${value} conflicts with ${target}: ${show(explicit)}; keep only ${target}`,
      );
    warn(p, `legacy option --${name} repeats ${target}; dropped`);
    return;
  }
  (s.workload as Record<string, unknown>)[field] = field === "duration" ? `${v}s` : v;
  warn(
    p,
    `legacy option --${name} is --${to} in sysbench 1.0.20, which twinbench sets from ${target}; translated to ${target}: ${show(field === "duration" ? `${v}s` : v)}`,
  );
}
