/**
 * Pure scenario validation: zod for the shape (schema.ts), then the cross-field rules, section by section
 * (validate-options.ts, validate-servers.ts, validate-workload.ts, validate-resources.ts). Every problem is one line
 * `FILE: dot.path: problem` that shows the offending value. Warnings use the same form.
 */
import { z } from "zod";
import { ScenarioSchema, type Scenario } from "./schema.ts";
import { show } from "./suggest.ts";
import { formatZodIssues, type Schema } from "./validate-zod.ts";
import { dot, type Path, type Problems, type ValidateContext } from "./validate-problems.ts";
import { checkSysbenchOptions } from "./validate-options.ts";
import { checkConfigLines, checkHosts, checkServers } from "./validate-servers.ts";
import { checkLengthAndRepeats, checkTestsAndThreads } from "./validate-workload.ts";
import { liftCustomTests } from "./custom.ts";
import { checkCpusets, checkMaxConnections, checkStorage } from "./validate-resources.ts";

/** A valid scenario with its warnings, or every error as a `file: dot.path: message` line. */
export type ValidateResult = { scenario: Scenario; warnings: string[] } | { errors: string[] };

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Validate a parsed scenario document. `file` prefixes every line. */
export function validateScenario(raw: unknown, file: string, ctx: ValidateContext): ValidateResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  const line = (path: Path, msg: string) => (path.length ? `${file}: ${dot(path)}: ${msg}` : `${file}: ${msg}`);
  const problems: Problems = {
    err: (path, msg) => errors.push(line(path, msg)),
    warn: (path, msg) => warnings.push(line(path, msg)),
  };

  if (!isRecord(raw)) return { errors: [line([], `expected a mapping at the top level, got ${show(raw)}`)] };
  // Custom test entries ({ script, writes }) become names in workload.tests and entries of workload.scripts.
  const doc = liftCustomTests(raw, problems);

  const schemas = new Map<string, Schema>();
  const parsed = ScenarioSchema.safeParse(doc, {
    reportInput: true,
    error: (iss) => {
      // Root issues come without a path; issues inside union members too (skip those).
      const owner = iss.schema ?? (iss.inst instanceof z.ZodType ? iss.inst : undefined);
      if (iss.path && owner) schemas.set(dot(iss.path), owner);
      else if (iss.inst === ScenarioSchema) schemas.set("", ScenarioSchema);
      return undefined;
    },
  });
  if (!parsed.success) {
    for (const [p, m] of formatZodIssues(parsed.error, doc, schemas)) problems.err(p, m);
    return { errors };
  }
  if (errors.length) return { errors };
  const s: Scenario = structuredClone(parsed.data);
  const rawWorkload = isRecord(doc.workload) ? doc.workload : {};

  checkSysbenchOptions(s, rawWorkload, problems);
  checkServers(s, ctx, problems);
  checkTestsAndThreads(s, problems);
  checkLengthAndRepeats(s, problems);
  checkConfigLines(s, problems);
  checkMaxConnections(s, problems);
  checkCpusets(s, ctx, problems);
  checkStorage(s, problems);
  checkHosts(s, problems);

  return errors.length ? { errors } : { scenario: s, warnings };
}
