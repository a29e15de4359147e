/**
 * Pure scenario validation: zod for the shape (schema.ts), then the cross-field rules. Every problem is one line
 * `FILE: dot.path: problem` that shows the offending value. Warnings use the same form.
 */
import { z } from "zod";
import { ScenarioSchema, parseDuration, parsePercent, parseSize, trimSeconds, type Scenario } from "./schema.ts";
import { didYouMean, show } from "./suggest.ts";
import { DEFAULT_SETUP_COSTS } from "../setup-costs.ts";
import { LEGACY_OPTIONS, LEGACY_TABLE_NOTE, LEGACY_TESTS, resolveTest } from "./legacy.ts";
import {
  MANAGED_OPTIONS,
  NOT_IN_1_0_20,
  STOCK_SCRIPTS,
  SYSBENCH_OPTIONS,
  WRITE_SCRIPTS,
  checkOptionValue,
  normalizeOptionName,
  own,
} from "../sysbench/options.ts";

/** What {@link validateScenario} checks against: the lock's image names and this host's CPU count. */
export interface ValidateContext {
  /** Image names in the image lock file (e.g. "mariadb-11.8"). */
  lockImages: string[];
  /** CPUs online on this host (ids 0..n-1); cpusets are not checked when absent. */
  hostCpus?: number;
}

/** A valid scenario with its warnings, or every error as a `file: dot.path: message` line. */
export type ValidateResult = { scenario: Scenario; warnings: string[] } | { errors: string[] };

/** Connections twinbench keeps besides sysbench's (readiness probe, variables capture, monitoring). */
export const CONNECTION_HEADROOM = 10;
/**
 * The longest cell, warm-up or lead-in: its deadline (one and a half times its length plus a minute) must stay
 * below the 2^31 ms a Node timer can wait.
 */
export const MAX_CELL_SECONDS = 7 * 86400;
/** The longest budget of an adaptive run. */
export const MAX_BUDGET_SECONDS = 20 * 86400;
/**
 * What one sysbench row takes on disk at least (id, k, c CHAR(120), pad CHAR(60): 188 bytes of columns, plus the
 * row header and the index on k); a data dir smaller than rows × this cannot hold the tables.
 */
export const MIN_ROW_BYTES = 200;
/** innodb_buffer_pool_size in lab/my.cnf, used when the scenario does not set it. */
export const DEFAULT_BUFFER_POOL = "1024M";

/** max_connections the scenario needs: the most sysbench threads plus twinbench's own headroom. */
export function requiredMaxConnections(s: Pick<Scenario, "workload">): number {
  return Math.max(...s.workload.threads) + CONNECTION_HEADROOM;
}

/** The servers' own default, kept as a floor (as the config renderer does: src/core/config/dialect.ts). */
export const MIN_MAX_CONNECTIONS = 151;

/**
 * max_connections the lab writes for `serverId`: config.set's value, or (unset / "auto") the most threads + 10,
 * at least 151.
 */
export function plannedMaxConnections(s: Scenario, serverId?: string): number {
  const server = s.servers.find((x) => x.id === serverId);
  const set = server?.config?.set.max_connections ?? s.config.set.max_connections;
  const n = set === undefined ? NaN : Number(set);
  return Number.isInteger(n) ? n : Math.max(MIN_MAX_CONNECTIONS, requiredMaxConnections(s));
}

/** "0-2,5" → [0, 1, 2, 5], or undefined for a reversed range. */
export function parseCpuset(v: string): number[] | undefined {
  const out = new Set<number>();
  for (const part of v.split(",")) {
    const [a, b] = part.split("-").map(Number);
    const end = b ?? a;
    if (end < a) return undefined;
    for (let i = a; i <= end; i++) out.add(i);
  }
  return [...out].sort((x, y) => x - y);
}

type Path = ReadonlyArray<PropertyKey>;
const dot = (p: Path) => p.map(String).join(".");

function getAt(raw: unknown, path: Path): unknown {
  let cur: unknown = raw;
  for (const k of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[k as string];
  }
  return cur;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

// ---------------------------------------------------------------------------------------------------------------
// zod issues → lines

type Schema = z.core.$ZodType;

/** The schema under wrappers that do not change what is accepted (optional, default, nullable, …). */
function unwrap(schema: Schema | undefined): Schema | undefined {
  if (
    schema instanceof z.ZodOptional ||
    schema instanceof z.ZodDefault ||
    schema instanceof z.ZodPrefault ||
    schema instanceof z.ZodNullable ||
    schema instanceof z.ZodReadonly ||
    schema instanceof z.ZodCatch
  )
    return unwrap(schema.unwrap());
  if (schema instanceof z.ZodPipe) return unwrap(schema.in);
  return schema;
}

/** "a positive integer", "an integer from 1 to 64", "a number": from the schema's own JSON Schema. */
function describeNumber(schema: z.ZodNumber): string {
  const js = z.toJSONSchema(schema);
  const isInt = js.type === "integer";
  const lower =
    js.minimum ??
    (typeof js.exclusiveMinimum === "number" ? (isInt ? js.exclusiveMinimum + 1 : js.exclusiveMinimum) : undefined);
  const upper =
    js.maximum ??
    (typeof js.exclusiveMaximum === "number" ? (isInt ? js.exclusiveMaximum - 1 : js.exclusiveMaximum) : undefined);
  // An integer schema's JSON Schema carries the safe-integer range: only bounds inside it were asked for.
  const min = lower !== undefined && lower > Number.MIN_SAFE_INTEGER ? lower : undefined;
  const max = upper !== undefined && upper < Number.MAX_SAFE_INTEGER ? upper : undefined;
  if (!isInt)
    return min !== undefined || max !== undefined ? `a number from ${min ?? "-∞"} to ${max ?? "∞"}` : "a number";
  if (min !== undefined && max !== undefined) return `an integer from ${min} to ${max}`;
  if (min === 1) return "a positive integer";
  if (min === 0) return "a non-negative integer";
  if (min !== undefined) return `an integer ≥ ${min}`;
  return "an integer";
}

/** A phrase for what a zod schema accepts: "a positive integer", `one of "a", "b"`. */
function describe(schema: Schema | undefined): string {
  const s = unwrap(schema);
  if (s instanceof z.ZodString) return "a string";
  if (s instanceof z.ZodBoolean) return "true or false";
  if (s instanceof z.ZodNumber) return describeNumber(s);
  if (s instanceof z.ZodArray) return "a list";
  if (s instanceof z.ZodObject || s instanceof z.ZodRecord) return "a mapping";
  if (s instanceof z.ZodEnum) return `one of ${s.options.map((v) => JSON.stringify(v)).join(", ")}`;
  if (s instanceof z.ZodLiteral) return [...s.values].map((v) => JSON.stringify(v)).join(" or ");
  if (s instanceof z.ZodUnion) {
    // Two mapping forms (compare's { numerator, denominator } and { base }) read as one "a mapping".
    const parts = [...new Set(s.options.map((o: Schema) => describe(o)))];
    return parts.length <= 2 ? parts.join(" or ") : `${parts.slice(0, -1).join(", ")} or ${parts[parts.length - 1]}`;
  }
  return "a valid value";
}

function enumValues(schema: Schema | undefined): string[] {
  const s = unwrap(schema);
  if (s instanceof z.ZodEnum) return s.options.map(String);
  if (s instanceof z.ZodLiteral) return [...s.values].map(String);
  if (s instanceof z.ZodUnion) return s.options.flatMap((o: Schema) => enumValues(o));
  return [];
}

function formatZodIssues(error: z.ZodError, raw: unknown, schemas: Map<string, Schema>): Array<[Path, string]> {
  const out: Array<[Path, string]> = [];
  for (const iss of error.issues) {
    const path: Path = iss.path;
    const value = getAt(raw, path);
    const schema = schemas.get(dot(path));
    const got = `got ${show(value)}`;
    switch (iss.code) {
      case "unrecognized_keys": {
        const obj = unwrap(schema);
        const known = obj instanceof z.ZodObject ? Object.keys(obj.shape) : [];
        for (const key of iss.keys) out.push([[...path, key], `unknown key${didYouMean(key, known)}`]);
        break;
      }
      case "invalid_union": {
        if (iss.discriminator && !("matches" in iss)) {
          const opts = (iss.options ?? []).map(String);
          const list = opts.map((o) => JSON.stringify(o)).join(", ");
          out.push([
            path,
            value === undefined
              ? `required key missing (expected one of ${list})`
              : `expected one of ${list}, got ${show(value)}${typeof value === "string" ? didYouMean(value, opts) : ""}`,
          ]);
          break;
        }
        const vals = enumValues(schema);
        const hint = typeof value === "string" && vals.length ? didYouMean(value, vals) : "";
        out.push([
          path,
          value === undefined
            ? `required key missing (expected ${describe(schema)})`
            : `expected ${describe(schema)}, ${got}${hint}`,
        ]);
        break;
      }
      case "invalid_value": {
        const vals = iss.values.map(String);
        const list = vals.map((v) => JSON.stringify(v)).join(", ");
        out.push([path, `expected one of ${list}, ${got}${typeof value === "string" ? didYouMean(value, vals) : ""}`]);
        break;
      }
      case "invalid_type":
        out.push([
          path,
          value === undefined
            ? `required key missing (expected ${describe(schema)})`
            : `expected ${describe(schema)}, ${got}`,
        ]);
        break;
      case "too_small":
      case "too_big": {
        const bound = iss.code === "too_small" ? iss.minimum : iss.maximum;
        if (iss.origin === "array") {
          const n = iss.code === "too_small" ? `at least ${bound}` : `at most ${bound}`;
          out.push([path, `expected a list of ${n} item${Number(bound) === 1 ? "" : "s"}, ${got}`]);
        } else if (iss.origin === "string") {
          out.push([
            path,
            iss.code === "too_small" && Number(bound) === 1
              ? `expected a non-empty string, ${got}`
              : `${iss.message}, ${got}`,
          ]);
        } else out.push([path, `expected ${describe(schema)}, ${got}`]);
        break;
      }
      default:
        // Messages written in schema.ts ("expected a duration like ..."): add the value.
        out.push([path, `${iss.message}, ${got}`]);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------

/** Validate a parsed scenario document. `file` prefixes every line. */
export function validateScenario(raw: unknown, file: string, ctx: ValidateContext): ValidateResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  const line = (path: Path, msg: string) => (path.length ? `${file}: ${dot(path)}: ${msg}` : `${file}: ${msg}`);
  const err = (path: Path, msg: string) => errors.push(line(path, msg));
  const warn = (path: Path, msg: string) => warnings.push(line(path, msg));

  if (!isRecord(raw)) return { errors: [line([], `expected a mapping at the top level, got ${show(raw)}`)] };

  const schemas = new Map<string, Schema>();
  const parsed = ScenarioSchema.safeParse(raw, {
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
    for (const [p, m] of formatZodIssues(parsed.error, raw, schemas)) err(p, m);
    return { errors };
  }
  const s: Scenario = structuredClone(parsed.data);
  const rawWorkload = isRecord(raw.workload) ? raw.workload : {};

  // -- workload.sysbench: names against 1.0.20, legacy names translated --------------------------------------
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
    if (!spec) {
      err(p, `unknown sysbench 1.0.20 option --${name}${didYouMean(name, knownNames)}`);
      continue;
    }
    const bad = checkOptionValue(spec.kind, value);
    if (bad) err(p, `${bad}, got ${show(value)}`);
    else extras[name] = normalizeValue(name, value);
  }
  s.workload.sysbench = extras;

  // -- servers and compare --------------------------------------------------------------------------------------
  const single = s.compare === "hosts" || s.compare === "runs";
  if (s.servers.length < 2 && !single)
    err(
      ["servers"],
      `expected at least 2 servers (the first two are the ratio's numerator and denominator), got ${s.servers.length}; ` +
        `one server is enough with compare: hosts or compare: runs`,
    );
  const firstById = new Map<string, number>();
  s.servers.forEach((srv, i) => {
    const prev = firstById.get(srv.id);
    if (prev !== undefined)
      err(["servers", i, "id"], `duplicate server id ${show(srv.id)} (already used by servers.${prev})`);
    else firstById.set(srv.id, i);
    if (/^sysbench/.test(srv.image))
      err(["servers", i, "image"], `${show(srv.image)} is the load (sysbench) image, not a server image`);
    else if (!ctx.lockImages.includes(srv.image))
      err(
        ["servers", i, "image"],
        `image ${show(srv.image)} is not in the image lock (${ctx.lockImages.length ? ctx.lockImages.join(", ") : "the lock is empty"})` +
          didYouMean(srv.image, ctx.lockImages),
      );
  });
  // Resource names are tb-RUN-ID-holder, tb-RUN-ID-net, tb-RUN-ID-load-XXXXXX ...: an id that is another id plus
  // "-..." could name the same container, network or volume.
  s.servers.forEach((srv, i) => {
    const other = s.servers.find((o) => o.id !== srv.id && srv.id.startsWith(`${o.id}-`));
    if (other)
      err(
        ["servers", i, "id"],
        `${show(srv.id)} begins with the server id ${show(other.id)} and "-", so their container, network and volume ` +
          `names can collide (the holder of ${show(other.id)} is named …-${other.id}-holder); choose ids where neither is the other plus "-…"`,
      );
  });
  const ids = s.servers.map((x) => x.id);
  if (s.compare && typeof s.compare === "object" && "base" in s.compare) {
    const v = s.compare.base;
    if (!ids.includes(v))
      err(["compare", "base"], `${show(v)} is not a server id (servers: ${ids.join(", ")})${didYouMean(v, ids)}`);
    else if (ids.length < 2)
      err(
        ["compare", "base"],
        `${show(v)} is the only server; a ladder needs at least one other server to compare with the base`,
      );
  } else if (s.compare && typeof s.compare === "object") {
    for (const side of ["numerator", "denominator"] as const) {
      const v = s.compare[side];
      if (!ids.includes(v))
        err(["compare", side], `${show(v)} is not a server id (servers: ${ids.join(", ")})${didYouMean(v, ids)}`);
    }
    if (s.compare.numerator === s.compare.denominator)
      err(
        ["compare", "denominator"],
        `${show(s.compare.denominator)} is also the numerator; compare two different servers`,
      );
  }
  s.servers.forEach((srv, i) => {
    const keys = Object.keys(srv.config?.set ?? {});
    if (keys.length)
      warn(
        ["servers", i, "config", "set"],
        `deliberate asymmetry: ${keys.join(", ")} set for ${srv.id} only; every report flags it`,
      );
  });

  // -- workload ---------------------------------------------------------------------------------------------------
  const w = s.workload;
  const legacyNames = Object.keys(LEGACY_TESTS);
  let usesLegacy = false;
  const seenTests = new Map<string, number>();
  w.tests.forEach((t, i) => {
    const p = ["workload", "tests", i];
    if (seenTests.has(t)) err(p, `duplicate test ${show(t)} (already workload.tests.${seenTests.get(t)})`);
    seenTests.set(t, i);
    const r = resolveTest(t);
    if (!r) {
      err(
        p,
        `unknown test ${show(t)}: expected a sysbench 1.0.20 script (${STOCK_SCRIPTS.join(", ")}) or a legacy name (${legacyNames.join(", ")})` +
          didYouMean(t.replace(/\.lua$/, ""), [...STOCK_SCRIPTS, ...legacyNames]),
      );
      return;
    }
    if (r.legacy) {
      usesLegacy = true;
      if (!r.legacy.exact) warn(p, `legacy test ${show(t)} runs as ${r.script}, not exactly: ${r.legacy.note}`);
    }
  });
  if (usesLegacy) warn(["workload", "tests"], `legacy test names run as sysbench 1.0.20 scripts: ${LEGACY_TABLE_NOTE}`);
  const seenThreads = new Map<number, number>();
  w.threads.forEach((t, i) => {
    if (seenThreads.has(t))
      err(["workload", "threads", i], `duplicate thread count ${t} (already workload.threads.${seenThreads.get(t)})`);
    seenThreads.set(t, i);
  });

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

  if (w.fresh === "per-test" && !w.tests.some((t) => WRITE_SCRIPTS.has(resolveTest(t)?.script ?? "")))
    warn(["workload", "fresh"], `per-test restores the data before write tests, and none of workload.tests writes`);

  // -- config values: one my.cnf line each ---------------------------------------------------------------------------
  const checkLines = (path: Path, set: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(set)) {
      if (/[\r\n\0]/.test(k)) err([...path, k], `an option name cannot hold a line break or NUL, got ${show(k)}`);
      else if (typeof v === "string" && /[\r\n\0]/.test(v))
        err([...path, k], `a value is one my.cnf line: it cannot hold a line break or NUL, got ${show(v)}`);
    }
  };
  checkLines(["config", "set"], s.config.set);
  s.servers.forEach((srv, i) => checkLines(["servers", i, "config", "set"], srv.config?.set ?? {}));

  // -- max_connections --------------------------------------------------------------------------------------------
  if (w.threads.length) {
    const need = requiredMaxConnections(s);
    const check = (path: Path, v: unknown) => {
      if (v === undefined || (typeof v === "string" && v.trim().toLowerCase() === "auto")) return;
      const n = Number(v);
      if (!Number.isInteger(n)) err(path, `expected an integer or "auto", got ${show(v)}`);
      else if (n < need)
        err(
          path,
          `${n} is lower than the ${need} connections this scenario needs (workload.threads up to ${Math.max(...w.threads)}, ` +
            `plus ${CONNECTION_HEADROOM} for twinbench's own)`,
        );
    };
    check(["config", "set", "max_connections"], s.config.set.max_connections);
    s.servers.forEach((srv, i) =>
      check(["servers", i, "config", "set", "max_connections"], srv.config?.set.max_connections),
    );
  }

  // -- cpusets ----------------------------------------------------------------------------------------------------
  const cpus: Partial<Record<"server" | "load", number[]>> = {};
  for (const who of ["server", "load"] as const) {
    const v = s.resources[who].cpuset;
    if (v === undefined) continue;
    const p = ["resources", who, "cpuset"];
    const list = parseCpuset(v);
    if (!list) {
      err(p, `reversed range in cpuset ${show(v)}`);
      continue;
    }
    cpus[who] = list;
    if (ctx.hostCpus !== undefined) {
      const missing = list.filter((c) => c >= ctx.hostCpus!);
      if (missing.length)
        err(
          p,
          `${missing.length > 1 ? "CPUs" : "CPU"} ${missing.join(", ")} ${missing.length > 1 ? "do" : "does"} not exist on this host (it has ${ctx.hostCpus === 1 ? "CPU 0" : `CPUs 0-${ctx.hostCpus - 1}`}), got ${show(v)}`,
        );
    }
  }
  if (trimSeconds(s.workload) > 0 && s.workload.duration === undefined)
    err(["workload", "trim"], "needs workload.duration: an events-bounded cell has no fixed length to trim");
  if (s.resources.confineDaemons && s.resources.load.cpuset === undefined)
    err(["resources", "confineDaemons"], "needs resources.load.cpuset: the daemons are moved to the load CPUs");
  if (cpus.server && cpus.load) {
    const both = cpus.server.filter((c) => cpus.load!.includes(c));
    if (both.length)
      warn(
        ["resources"],
        `server cpuset ${show(s.resources.server.cpuset)} and load cpuset ${show(s.resources.load.cpuset)} overlap on CPU ${both.join(", ")}; ` +
          `sysbench competes with the server there`,
      );
  }

  // -- storage ----------------------------------------------------------------------------------------------------
  const memory = s.resources.server.memory === undefined ? undefined : parseSize(s.resources.server.memory);
  const storages: Array<{ path: Path; storage: Scenario["storage"]; set: Record<string, unknown> }> = [
    { path: ["storage"], storage: s.storage, set: s.config.set },
  ];
  s.servers.forEach((srv, i) => {
    if (srv.storage)
      storages.push({
        path: ["servers", i, "storage"],
        storage: srv.storage,
        set: { ...s.config.set, ...(srv.config?.set ?? {}) },
      });
  });
  // The global storage only matters when some server uses it.
  const globalUsed = s.servers.some((x) => !x.storage);
  for (const { path, storage, set } of storages) {
    if (path.length === 1 && !globalUsed) continue;
    if (storage.kind === "bind" && !storage.path.startsWith("/"))
      err([...path, "path"], `expected an absolute host path (e.g. /mnt/array), got ${show(storage.path)}`);
    if (storage.kind === "raid0" && storage.loop?.dir !== undefined && !storage.loop.dir.startsWith("/"))
      err(
        [...path, "loop", "dir"],
        `expected an absolute host path (e.g. /var/lib/twinbench/loop), got ${show(storage.loop.dir)}`,
      );
    if (storage.kind === "tmpfs") {
      const tmpfs = parseSize(storage.size)!;
      const data = s.workload.tables * s.workload.tableSize * MIN_ROW_BYTES;
      if (data > tmpfs)
        err(
          [...path, "size"],
          `tmpfs size ${show(storage.size)} cannot hold the tables: workload.tables ${s.workload.tables} × ` +
            `workload.tableSize ${s.workload.tableSize} rows take at least ${Math.ceil(data / 2 ** 20)} MiB ` +
            `(${MIN_ROW_BYTES} bytes a row), before the redo log and system tablespace`,
        );
    }
    if (storage.kind === "raid0") {
      if (!storage.devices && !storage.loop)
        err(path, `raid0 needs its members: devices (2 or more /dev/... paths) or loop: { members: N, size: SIZE }`);
      if (storage.devices && storage.loop) err(path, `raid0 takes devices or loop, not both`);
    }
    if (storage.kind === "tmpfs" && memory !== undefined) {
      const tmpfs = parseSize(storage.size)!;
      const bpRaw = set.innodb_buffer_pool_size ?? DEFAULT_BUFFER_POOL;
      const bp = typeof bpRaw === "string" || typeof bpRaw === "number" ? parseSize(bpRaw) : undefined;
      const mem = show(s.resources.server.memory);
      if (tmpfs > memory)
        err(
          [...path, "size"],
          `tmpfs size ${show(storage.size)} is larger than the server memory limit resources.server.memory ${mem}; ` +
            `tmpfs pages count against the server container's memory`,
        );
      else if (bp !== undefined && tmpfs + bp > memory)
        warn(
          [...path, "size"],
          `tmpfs size ${show(storage.size)} plus innodb_buffer_pool_size ${show(bpRaw)} exceeds resources.server.memory ${mem}; ` +
            `the server can be OOM-killed as the data dir fills`,
        );
    }
  }

  // -- hosts --------------------------------------------------------------------------------------------------------
  const hosts = s.hosts ?? [];
  const hostIdx = new Map<string, number>();
  hosts.forEach((h, i) => {
    if (hostIdx.has(h.id))
      err(["hosts", i, "id"], `duplicate host id ${show(h.id)} (already used by hosts.${hostIdx.get(h.id)})`);
    else hostIdx.set(h.id, i);
  });
  if (s.shard) {
    if (hosts.length < 2)
      err(["shard"], `shard: true spreads cells over hosts and needs at least 2 hosts, got ${hosts.length}`);
    if (s.compare === "hosts")
      err(["shard"], `shard: true and compare: hosts exclude each other (compare runs every cell on every host)`);
  }

  return errors.length ? { errors } : { scenario: s, warnings };
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
