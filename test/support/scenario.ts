/**
 * The one scenario builder of the unit tests: a small valid scenario document, with overrides so that each test
 * states only what matters to it. `scenario()` validates it as `twinbench` does (validateScenario, against a fixed
 * image lock and a two-core host); `{ check: "schema" }` only parses it with the schema, for tests of code that
 * takes a parsed scenario without the validation's checks (an image name outside the lock, say).
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { ScenarioSchema, type Scenario } from "../../src/core/model/scenario/schema.ts";
import { validateScenario, type ValidateResult } from "../../src/core/model/scenario/validate.ts";
import { type ValidateContext } from "../../src/core/model/scenario/validate-problems.ts";

/** The image lock and host the unit tests validate against. */
export const TEST_CONTEXT: ValidateContext = {
  lockImages: ["mariadb-11.8", "mariadb-10.11", "mysql-9.7", "sysbench-1.0"],
  hostCpus: 2,
};

/** A scenario document as a test writes it (YAML's shape, before validation). */

export type ScenarioDoc = Record<string, any>;

/** Two servers named a and b: MariaDB 11.8 against MySQL 9.7. */
export const SERVERS_AB = [
  { id: "a", image: "mariadb-11.8" },
  { id: "b", image: "mysql-9.7" },
];

/** The same two servers named by their family. */
export const SERVERS_BY_FAMILY = [
  { id: "mariadb", image: "mariadb-11.8" },
  { id: "mysql", image: "mysql-9.7" },
];

/**
 * What to change in the base document: its top-level keys replace the base's whole (a `workload` given is the whole
 * workload). A function gets the document so far to change in place (one workload key, or deleting a key).
 */
export type ScenarioOverrides = ScenarioDoc;
export type ScenarioPatch = ScenarioOverrides | ((doc: ScenarioDoc) => void);

/** The base document: servers a and b, oltp_read_only at 1 thread for 10 s, everything else the schema's defaults. */
export function scenarioDoc(...patches: ScenarioPatch[]): ScenarioDoc {
  let doc: ScenarioDoc = {
    name: "t",
    servers: SERVERS_AB.map((s) => ({ ...s })),
    workload: { tests: ["oltp_read_only"], threads: [1], duration: "10s" },
  };
  for (const p of patches) {
    if (typeof p === "function") p(doc);
    else doc = { ...doc, ...structuredClone(p) };
  }
  return doc;
}

export interface ScenarioOptions {
  /** "validate" (the default): validateScenario, throwing its errors; "schema": ScenarioSchema.parse only. */
  check?: "validate" | "schema";
  /** The image lock and host to validate against (TEST_CONTEXT by default). */
  ctx?: ValidateContext;
  /** The file name the errors name. */
  file?: string;
}

/** A scenario from the base document with `patches` applied in order (see ScenarioOverrides). */
export function scenario(patches: ScenarioPatch | ScenarioPatch[] = [], opts: ScenarioOptions = {}): Scenario {
  return scenarioFrom(scenarioDoc(...(Array.isArray(patches) ? patches : [patches])), opts);
}

/** A scenario from a whole document (no base), validated or parsed as `opts` says. */
export function scenarioFrom(doc: unknown, opts: ScenarioOptions = {}): Scenario {
  if (opts.check === "schema") return ScenarioSchema.parse(doc);
  const r = validateScenario(doc, opts.file ?? "t.yaml", opts.ctx ?? TEST_CONTEXT);
  if ("errors" in r) throw new Error(r.errors.join("\n"));
  return r.scenario;
}

/** A scenario file of the repository (e.g. scenarios/quick.yaml), with `patch` applied to its document first. */
export function scenarioFile(path: string, patch: (doc: ScenarioDoc) => void = () => {}, opts: ScenarioOptions = {}) {
  const doc = parse(readFileSync(path, "utf8")) as ScenarioDoc;
  patch(doc);
  return scenarioFrom(doc, { file: path, ...opts });
}

/** The file name the validation tests' errors and warnings start with. */
export const VALIDATION_FILE = "scenarios/x.yaml";

/**
 * The document the validation tests change one field of: servers mariadb and mysql, the server on CPU 1 with 4g and
 * the load on CPU 0, a 2g tmpfs, oltp_read_only at 1, 2 and 4 threads for 10 s. It is valid and has no warnings.
 */
export function validationDoc(): ScenarioDoc {
  return {
    name: "x",
    servers: SERVERS_BY_FAMILY.map((s) => ({ ...s })),
    resources: { server: { cpuset: "1", memory: "4g" }, load: { cpuset: "0" } },
    storage: { kind: "tmpfs", size: "2g" },
    workload: { tests: ["oltp_read_only"], threads: [1, 2, 4], duration: "10s" },
  };
}

/** validateScenario of validationDoc() changed by `mut`, as VALIDATION_FILE against TEST_CONTEXT. */
export function validated(mut: (d: ScenarioDoc) => void = () => {}): ValidateResult {
  const d = validationDoc();
  mut(d);
  return validateScenario(d, VALIDATION_FILE, TEST_CONTEXT);
}

/** The errors of validated(mut); none when it is valid. */
export function validationErrors(mut: (d: ScenarioDoc) => void): string[] {
  const r = validated(mut);
  return "errors" in r ? r.errors : [];
}

/** The warnings of validated(mut), which must be valid. */
export function validationWarnings(mut: (d: ScenarioDoc) => void): string[] {
  const r = validated(mut);
  if ("errors" in r) throw new Error(`unexpected errors: ${r.errors.join("\n")}`);
  return r.warnings;
}
