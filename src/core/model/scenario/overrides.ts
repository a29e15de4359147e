/**
 * `--set PATH=VALUE` overrides, applied to the parsed scenario document before validation. PATH is a dot path
 * (maps and list indexes: `config.set.innodb_io_capacity`, `workload.threads.0`); VALUE is parsed as YAML
 * (`[1,4]` is a list, `5s` a string, `2000` a number); `null` (or nothing after `=`) removes the key.
 */
import { parse as parseYaml } from "yaml";

export interface Override {
  /** The argument as given, e.g. "workload.threads=[1,4]". */
  set: string;
  path: string[];
  value: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

export function parseSet(arg: string): Override | { error: string } {
  const eq = arg.indexOf("=");
  if (eq < 0) return { error: `--set ${arg}: expected PATH=VALUE, e.g. workload.duration=5s` };
  const pathText = arg.slice(0, eq).trim();
  const path = pathText.split(".");
  if (!pathText || path.some((p) => p === ""))
    return { error: `--set ${arg}: expected a dot path before "=", got ${JSON.stringify(pathText)}` };
  let value: unknown;
  try {
    value = parseYaml(arg.slice(eq + 1));
  } catch (e) {
    return { error: `--set ${arg}: the value is not valid YAML: ${(e as Error).message.split("\n")[0]}` };
  }
  return { set: arg, path, value: value === undefined ? null : value };
}

/** Apply every --set in order to a copy of `raw`. Errors name the --set. */
export function applyOverrides(
  raw: unknown,
  sets: readonly string[],
): { raw: unknown; errors: string[]; applied: Override[] } {
  const doc: unknown = raw === undefined || raw === null ? {} : structuredClone(raw);
  const errors: string[] = [];
  const applied: Override[] = [];
  for (const arg of sets) {
    const o = parseSet(arg);
    if ("error" in o) {
      errors.push(o.error);
      continue;
    }
    const e = applyOne(doc, o);
    if (e) errors.push(`--set ${arg}: ${e}`);
    else applied.push(o);
  }
  return { raw: doc, errors, applied };
}

function applyOne(doc: unknown, o: Override): string | undefined {
  if (!isRecord(doc)) return "the scenario is not a mapping";
  let cur: unknown = doc;
  for (let i = 0; i < o.path.length; i++) {
    const seg = o.path[i];
    const last = i === o.path.length - 1;
    const here = o.path.slice(0, i).join(".") || "the scenario";
    if (Array.isArray(cur)) {
      if (!/^\d+$/.test(seg)) return `${here} is a list: expected an index, got ${JSON.stringify(seg)}`;
      const idx = Number(seg);
      if (last) {
        if (idx > cur.length) return `index ${idx} is past the end of ${here} (${cur.length} items)`;
        if (o.value === null) {
          if (idx < cur.length) cur.splice(idx, 1);
        } else cur[idx] = o.value;
        return undefined;
      }
      if (idx >= cur.length) return `index ${idx} is past the end of ${here} (${cur.length} items)`;
      cur = cur[idx];
    } else if (isRecord(cur)) {
      if (last) {
        if (o.value === null) delete cur[seg];
        else cur[seg] = o.value;
        return undefined;
      }
      if (cur[seg] === undefined || cur[seg] === null) cur[seg] = {};
      cur = cur[seg];
    } else {
      return `${here} is ${JSON.stringify(cur)}, not a mapping or a list`;
    }
  }
  return undefined;
}

/** The last override whose path is a prefix of `path` or lies under it (the --set an error came from). */
export function overrideFor(path: readonly string[], applied: readonly Override[]): Override | undefined {
  for (let i = applied.length - 1; i >= 0; i--) {
    const p = applied[i].path;
    const n = Math.min(p.length, path.length);
    if (p.slice(0, n).join(".") === path.slice(0, n).join(".")) return applied[i];
  }
  return undefined;
}
