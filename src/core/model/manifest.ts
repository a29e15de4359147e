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
  const problems = r.success
    ? []
    : r.error.issues.map((i) => `${file}: ${i.path.map(String).join(".") || "(top level)"}: ${i.message}`);
  if (r.success && o.resume && !isGeneratedRunId(r.data.runId))
    problems.push(
      `${file}: runId: ${JSON.stringify(r.data.runId)} is not a run id twinbench makes (YYYYMMDD-HHMMSS-xxxx)`,
    );
  if (problems.length > 0)
    throw new InputError(`${file} is not a valid twinbench run.json: ${problems[0]}`, {
      code: "RESULTS_INVALID",
      hint: "pass the folder a run wrote, unedited; restore run.json from a copy if it was changed",
      problems,
    });
  return raw as RunManifest;
}
