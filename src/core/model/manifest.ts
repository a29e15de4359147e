/**
 * run.json as it is read back: a results folder is input like any other. Its scenario goes through the same schema
 * it was validated with when the run wrote it, its run id must have the form twinbench gives run ids, and the fields
 * a resume relies on must have their types. Pure: the caller reads the file.
 */
import { z } from "zod";
import { InputError } from "../base/errors.ts";
import { ScenarioSchema } from "./scenario/schema.ts";
import type { RunManifest } from "./results.ts";

/**
 * A run id as twinbench makes them (`YYYYMMDD-HHMMSS-xxxx`, src/app/run/session.ts newRunId), optionally followed by
 * a host's part (`-<host>`, `-<host>-p<N>`): no dot, no slash, so that it can never name a parent folder.
 */
export const RUN_ID_FORMAT = /^\d{8}-\d{6}-[0-9a-f]{4}(-[a-z0-9][a-z0-9_-]{0,40})?$/;

/**
 * A run id given by a caller that is not a generated one (tests, the testcontainers helper): letters, digits, `-`
 * and `_` only, at most 96 characters. Never `.` or `..`.
 */
export const RUN_ID_SAFE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,95}$/;

export function isGeneratedRunId(id: string): boolean {
  return RUN_ID_FORMAT.test(id);
}

const cell = z.looseObject({
  index: z.number().int(),
  key: z.string().max(512),
  server: z.string().max(64),
  test: z.string().max(128),
  script: z.string().max(128),
  threads: z.number().int().min(1),
  repeat: z.number().int().min(1),
});

/** The fields a report and a resume read; the rest of run.json is kept as it is. */
export const RunManifestSchema = z.looseObject({
  runId: z.string().regex(RUN_ID_SAFE, { message: "expected a run id of letters, digits, - and _ only" }),
  twinbenchVersion: z.string().max(64),
  scenarioFile: z.string().max(4096).optional(),
  scenario: ScenarioSchema,
  overrides: z.array(z.string().max(4096)).max(1000),
  cells: z.array(cell),
  estimateSeconds: z.number(),
  hosts: z.array(z.unknown()),
  servers: z.array(z.looseObject({ id: z.string().max(64) })),
  startedAt: z.string(),
  status: z.enum(["running", "ok", "partial", "failed", "cancelled"]),
  fingerprint: z.string().max(256).optional(),
});

/**
 * Check a parsed run.json. `resume`: the run id must also be a generated one (it names containers, mount points and
 * state files). Throws InputError RESULTS_INVALID naming the file and the field; returns the manifest unchanged
 * (the schema's defaults are not applied, so the fingerprint of the recorded scenario stays as it was written).
 */
export function checkRunManifest(raw: unknown, file: string, o: { resume?: boolean } = {}): RunManifest {
  const r = RunManifestSchema.safeParse(raw);
  const problems = r.success ? [] : r.error.issues.map((i) => issueLine(file, raw, i));
  if (r.success && o.resume && !isGeneratedRunId(r.data.runId)) problems.push(notGenerated(file, r.data.runId));
  if (problems.length > 0) throw invalid(file, "run.json", problems);
  return raw as RunManifest;
}

/** One schema problem: the file, the field, what was expected, and the value found when it is a short string. */
function issueLine(file: string, raw: unknown, i: z.core.$ZodIssue): string {
  let v: unknown = raw;
  for (const k of i.path) v = v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  const found = typeof v === "string" && v.length <= 100 ? ` (found ${JSON.stringify(v)})` : "";
  return `${file}: ${i.path.map(String).join(".") || "(top level)"}: ${i.message}${found}`;
}

const notGenerated = (file: string, runId: string) =>
  `${file}: runId: ${JSON.stringify(runId)} is not a run id twinbench makes (YYYYMMDD-HHMMSS-xxxx)`;

const invalid = (file: string, what: string, problems: string[]) =>
  new InputError(`${file} is not a valid twinbench ${what}: ${problems[0]}`, {
    code: "RESULTS_INVALID",
    hint: `pass the folder a run wrote, unedited; restore ${what} from a copy if it was changed`,
    problems,
  });

/** hosts-run.json as `run --resume` reads it: what a multi-host run was started with. */
export const HostsRunManifestSchema = z.looseObject({
  runId: z.string().max(128),
  scenario: ScenarioSchema,
  scenarioFile: z.string().max(4096).optional(),
  overrides: z.array(z.string().max(4096)).max(1000),
  imageTransfer: z.enum(["send", "build"]).optional(),
  force: z.boolean().optional(),
  startedAt: z.string().optional(),
});

/**
 * Check a parsed hosts-run.json before a resume uses it: its scenario against the scenario schema, its run id (every
 * host's resource names, mount points and state files derive from it) against the generated format. Throws
 * InputError RESULTS_INVALID naming the file, the field and the value; returns the file's content unchanged.
 */
export function checkHostsRunManifest(raw: unknown, file: string): z.infer<typeof HostsRunManifestSchema> {
  const r = HostsRunManifestSchema.safeParse(raw);
  const problems = r.success ? [] : r.error.issues.map((i) => issueLine(file, raw, i));
  if (r.success && !isGeneratedRunId(r.data.runId)) problems.push(notGenerated(file, r.data.runId));
  if (problems.length > 0) throw invalid(file, "hosts-run.json", problems);
  return raw as z.infer<typeof HostsRunManifestSchema>;
}

/** A run id read from `file` for a resume: refused (RESULTS_INVALID naming the value and the file) unless generated. */
export function checkResumedRunId(runId: string, file: string): string {
  if (!isGeneratedRunId(runId)) throw invalid(file, "results folder", [notGenerated(file, runId)]);
  return runId;
}
