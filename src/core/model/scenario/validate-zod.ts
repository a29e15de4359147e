/**
 * zod's issues as scenario lines: each issue becomes a field path and a problem in plain words ("expected a positive
 * integer, got 0"), with what the schema accepts read from the schema itself and a "did you mean" where it helps.
 */
import { z } from "zod";
import { didYouMean, show } from "./suggest.ts";
import { dot, type Path } from "./validate-problems.ts";

function getAt(raw: unknown, path: Path): unknown {
  let cur: unknown = raw;
  for (const k of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[k as string];
  }
  return cur;
}

export type Schema = z.core.$ZodType;

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

/** Each of zod's issues as a field path and a message (an unknown-keys issue gives one line per key). */
export function formatZodIssues(error: z.ZodError, raw: unknown, schemas: Map<string, Schema>): Array<[Path, string]> {
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
