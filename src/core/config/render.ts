/**
 * Render the neutral config for one server: (neutral cnf text, family, version, storage kind, scenario, server id)
 * → (cnf text, translation report, asymmetries). Pure.
 *
 * Layers, later wins: the base file (lab/my.cnf or config.base) → the profile (config.profile) → the scenario's
 * `config.set` (every server) → `servers[].config.set` (this server only; each key is a deliberate asymmetry).
 * Then every merged option goes through the dialect table. Options the table does not know are passed through
 * unchanged and flagged "unknown to the dialect table" (never dropped silently, never refused here: the server
 * itself is the judge, and a start failure names the option).
 */
import { InputError } from "../base/errors.ts";
import type { TranslationEntry } from "../model/results.ts";
import type { Scenario } from "../model/scenario/schema.ts";
import { formatCnfLine, normalizeOptionName, parseCnf, type CnfSection } from "./cnf.ts";
import { EXCLUSIVE_GROUPS, SUPPORTED_FROM, dialectOption, findRule } from "./dialect.ts";
import {
  type DialectContext,
  type Family,
  type Outcome,
  type RenderedOption,
  type StorageKind,
} from "./dialect-types.ts";
import { compareVersions, formatVersion, parseVersion } from "./version.ts";

export type Profile = Scenario["config"]["profile"];

/** Input of {@link renderConfig}: the neutral config text, the server's family and version, its storage, the scenario and the server id. */
export interface RenderInput {
  /** Text of the neutral config (lab/my.cnf or the scenario's config.base). */
  neutral: string;
  family: Family;
  /** Server version, e.g. "11.8.9" or "9.7.4-2". */
  version: string;
  storageKind: StorageKind;
  scenario: Scenario;
  /** The scenario's server id (servers[].id). */
  serverId: string;
  /** Name of the neutral file in messages; default scenario.config.base. */
  neutralSource?: string;
}

/** A server's rendered option file, with the fate of every neutral option and the asymmetries. */
export interface RenderOutput {
  cnf: string;
  translation: TranslationEntry[];
  /** Deliberate (servers[].config.set) and unavoidable differences for this server, one sentence each. */
  asymmetries: string[];
  /** Unknown options, versions outside the table, suspicious values. */
  warnings: string[];
  /** The rendered [mysqld] options in file order. */
  options: RenderedOption[];
}

/** What each profile adds on top of the base file. */
export const PROFILES: Record<Profile, Array<{ key: string; value: string | null }>> = {
  neutral: [],
  durable: [
    { key: "log_bin", value: "binlog" },
    { key: "binlog_format", value: "ROW" },
    { key: "sync_binlog", value: "1" },
  ],
};

const TRANSLATED_SECTION = "mysqld";

interface Merged {
  key: string;
  value: string | null;
  loose: boolean;
  source: string;
  perServer: boolean;
}

/** A config.set value → option-file value. `skip_*: true` is a bare flag; `skip_*: false` removes the option. */
function setValue(key: string, v: string | number | boolean): string | null | undefined {
  if (typeof v === "boolean") {
    if (key.startsWith("skip_")) return v ? null : undefined;
    return v ? "ON" : "OFF";
  }
  return String(v);
}

/** One assignment of a config layer: `value` undefined removes the option (`skip_*: false`). */
export interface LayerAssignment {
  key: string;
  value: string | null | undefined;
  /** The value as written (config.set), for the asymmetry sentence. */
  raw: string | number | boolean | null;
  loose: boolean;
  /** `file:line`, `profile NAME`, `config.set` or `servers.ID.config.set`. */
  source: string;
  perServer: boolean;
}

/**
 * Every assignment of one server's config layers in order, later wins: the base file's [mysqld] section, the
 * profile, the scenario's config.set, then servers[].config.set. {@link renderConfig} merges them; so does
 * {@link resolveNeutralOption}, which needs one value before any family or version is known.
 */
export function configLayers(
  parsed: ReturnType<typeof parseCnf>,
  scenario: Scenario,
  server: Scenario["servers"][number],
  source: string,
): LayerAssignment[] {
  const out: LayerAssignment[] = [];
  for (const e of parsed.sections.find((s) => s.name === TRANSLATED_SECTION)?.entries ?? []) {
    out.push({
      key: e.key,
      value: e.value,
      raw: e.value,
      loose: e.loose,
      source: `${source}:${e.line}`,
      perServer: false,
    });
  }
  for (const p of PROFILES[scenario.config.profile]) {
    out.push({
      key: p.key,
      value: p.value,
      raw: p.value,
      loose: false,
      source: `profile ${scenario.config.profile}`,
      perServer: false,
    });
  }
  const layers: Array<{ set: Record<string, string | number | boolean>; from: string; perServer: boolean }> = [
    { set: scenario.config.set, from: "config.set", perServer: false },
    { set: server.config?.set ?? {}, from: `servers.${server.id}.config.set`, perServer: true },
  ];
  for (const layer of layers) {
    for (const [rawKey, raw] of Object.entries(layer.set)) {
      const key = normalizeOptionName(rawKey);
      const loose = rawKey.toLowerCase().replace(/-/g, "_").startsWith("loose_");
      out.push({ key, value: setValue(key, raw), raw, loose, source: layer.from, perServer: layer.perServer });
    }
  }
  return out;
}

/**
 * One option's neutral value for one server after every layer (base file, profile, config.set,
 * servers[].config.set), before the dialect table: what {@link renderConfig} starts from. Undefined when no layer
 * sets it (or a later one removes it, directly or through an exclusive alternative). Pure; for options the dialect
 * keeps as written (innodb_buffer_pool_size is pinned on every family), this is the rendered value too.
 */
export function resolveNeutralOption(
  input: Pick<RenderInput, "neutral" | "scenario" | "serverId" | "neutralSource">,
  option: string,
): { value: string | null; source: string } | undefined {
  const name = normalizeOptionName(option);
  const server = input.scenario.servers.find((s) => s.id === input.serverId);
  if (!server) return undefined;
  const source = input.neutralSource ?? input.scenario.config.base;
  const group = EXCLUSIVE_GROUPS.find((g) => g.includes(name)) ?? [name];
  let found: { value: string | null; source: string } | undefined;
  for (const a of configLayers(parseCnf(input.neutral, source), input.scenario, server, source)) {
    if (a.key === name) found = a.value === undefined ? undefined : { value: a.value, source: a.source };
    else if (group.includes(a.key) && a.value !== undefined) found = undefined;
  }
  return found;
}

/** Render the neutral config for one server of a scenario (what `twinbench config render` prints). Pure. Throws InputError CONFIG_UNKNOWN_SERVER. */
export function renderConfig(input: RenderInput): RenderOutput {
  const { family, scenario, serverId } = input;
  const version = parseVersion(input.version);
  const source = input.neutralSource ?? scenario.config.base;
  const server = scenario.servers.find((s) => s.id === serverId);
  if (!server) {
    throw new InputError(`server "${serverId}" is not in scenario "${scenario.name}"`, {
      code: "CONFIG_UNKNOWN_SERVER",
      hint: `use one of: ${scenario.servers.map((s) => s.id).join(", ")}`,
    });
  }
  const warnings: string[] = [];
  const asymmetries: string[] = [];
  const translation: TranslationEntry[] = [];
  const familyName = family === "mariadb" ? "MariaDB" : "MySQL";
  if (compareVersions(version, SUPPORTED_FROM[family]) < 0) {
    warnings.push(
      `${familyName} ${formatVersion(version)} is older than the dialect table covers (${SUPPORTED_FROM[family]}): options may be refused`,
    );
  }

  // --- layers
  const parsed = parseCnf(input.neutral, source);
  const other: CnfSection[] = parsed.sections.filter((s) => s.name !== TRANSLATED_SECTION);
  for (const s of other)
    warnings.push(`${source}: section [${s.name}] copied unchanged (only [${TRANSLATED_SECTION}] is translated)`);

  const merged = mergeLayers(configLayers(parsed, scenario, server, source), serverId, translation, asymmetries);

  // --- dialect
  const ctx: DialectContext = {
    family,
    version,
    storageKind: input.storageKind,
    maxThreads: Math.max(...scenario.workload.threads),
    neutral: new Map([...merged.values()].map((m) => [m.key, m.value])),
  };
  const results = applyDialect(merged, ctx, serverId, warnings, asymmetries);
  const { cnfLines, dropped, options } = writeOptions(results, translation);

  const header = [
    `# Rendered by twinbench from ${source} for server "${serverId}" (${familyName} ${input.version}),`,
    `# storage ${input.storageKind}, profile ${scenario.config.profile}. Generated: change the neutral config or the`,
    "# scenario's config.set instead, and see the translation report for every option's fate.",
  ];
  const otherText = other.flatMap((s) => [
    "",
    `[${s.name}]`,
    ...s.entries.map((e) => formatCnfLine(e.rawKey, e.value)),
  ]);
  const cnf = [
    ...header,
    `[${TRANSLATED_SECTION}]`,
    ...cnfLines,
    ...(dropped.length ? ["", ...dropped] : []),
    ...otherText,
    "",
  ].join("\n");
  return { cnf, translation, asymmetries, warnings, options };
}

/**
 * Merge the layers' assignments in order: a later one replaces an earlier one and every member of its exclusive
 * group (each replaced or removed option is recorded as dropped), and max_connections is added when no layer sets it.
 */
function mergeLayers(
  assignments: LayerAssignment[],
  serverId: string,
  translation: TranslationEntry[],
  asymmetries: string[],
): Map<string, Merged> {
  const merged = new Map<string, Merged>();
  const assign = (m: Merged): void => {
    for (const group of EXCLUSIVE_GROUPS) {
      if (!group.includes(m.key)) continue;
      for (const other of group) {
        const prev = merged.get(other);
        if (other === m.key || !prev) continue;
        merged.delete(other);
        translation.push({
          option: other,
          value: prev.value,
          source: prev.source,
          fate: "drop",
          rendered: [],
          reason: `replaced by ${m.key}${m.value === null ? "" : `=${m.value}`} from ${m.source}`,
        });
      }
    }
    const prev = merged.get(m.key);
    if (prev) merged.delete(m.key);
    merged.set(m.key, m);
  };
  const unset = (key: string, from: string): void => {
    const prev = merged.get(key);
    if (!prev) return;
    merged.delete(key);
    translation.push({
      option: key,
      value: prev.value,
      source: prev.source,
      fate: "drop",
      rendered: [],
      reason: `removed by ${key}=false in ${from}`,
    });
  };

  for (const a of assignments) {
    if (a.perServer)
      asymmetries.push(`${serverId}: ${a.key}=${String(a.raw)} set for this server only (servers[].config.set)`);
    if (a.value === undefined) unset(a.key, a.source);
    else assign({ key: a.key, value: a.value, loose: a.loose, source: a.source, perServer: a.perServer });
  }
  if (!merged.has("max_connections")) {
    merged.set("max_connections", {
      key: "max_connections",
      value: "auto",
      loose: false,
      source: "renderer",
      perServer: false,
    });
  }

  return merged;
}

/** Each merged option through the dialect table's rule for this server (or passed through, with a warning). */
function applyDialect(
  merged: Map<string, Merged>,
  ctx: DialectContext,
  serverId: string,
  warnings: string[],
  asymmetries: string[],
): Array<{ m: Merged; outcome: Outcome }> {
  const { family, version } = ctx;
  const familyName = family === "mariadb" ? "MariaDB" : "MySQL";
  const results: Array<{ m: Merged; outcome: Outcome }> = [];
  for (const m of merged.values()) {
    const rule = findRule(m.key, family, version);
    let outcome: Outcome;
    if (!rule) {
      const known = dialectOption(m.key) !== undefined;
      outcome = {
        fate: "keep",
        lines: [{ name: m.key, value: m.value }],
        reason: known
          ? `no dialect rule for ${familyName} ${formatVersion(version)}: passed through as written`
          : "unknown to the dialect table: passed through as written (the server refuses it if it does not know it)",
      };
      warnings.push(`${m.key} (${m.source}): ${outcome.reason}`);
    } else {
      try {
        outcome = rule.apply(m.key, m.value, ctx);
      } catch (e) {
        throw new InputError(
          `${m.source}: ${m.key}=${String(m.value)} cannot be rendered for ${familyName}: ${(e as Error).message}`,
          {
            code: "CONFIG_BAD_VALUE",
            hint: "fix the value in the neutral config or the scenario's config.set",
          },
        );
      }
    }
    if (m.loose)
      outcome = {
        ...outcome,
        lines: outcome.lines.map((l) => (l.name.startsWith("loose_") ? l : { ...l, name: `loose_${l.name}` })),
      };
    if (outcome.asymmetry) asymmetries.push(`${serverId}: ${outcome.asymmetry}`);
    if (outcome.warning) warnings.push(`${m.key} (${m.source}): ${outcome.warning}`);
    results.push({ m, outcome });
  }
  return results;
}

/**
 * The rendered options and cnf lines, in order, with each option's fate recorded; options written directly
 * (keep/rename) win over lines a translation generates for the same name.
 */
function writeOptions(
  results: Array<{ m: Merged; outcome: Outcome }>,
  translation: TranslationEntry[],
): { options: RenderedOption[]; cnfLines: string[]; dropped: string[] } {
  // Options written directly (keep/rename) win over lines a translation generates for the same name.
  const direct = new Set(
    results
      .filter((r) => r.outcome.fate === "keep" || r.outcome.fate === "rename")
      .flatMap((r) => r.outcome.lines.map((l) => l.name)),
  );
  const options: RenderedOption[] = [];
  const cnfLines: string[] = [];
  const dropped: string[] = [];
  for (const { m, outcome } of results) {
    const generated = outcome.fate === "translate";
    const lines = generated ? outcome.lines.filter((l) => !direct.has(l.name)) : outcome.lines;
    const shadowed = generated ? outcome.lines.filter((l) => direct.has(l.name)).map((l) => l.name) : [];
    const rendered = lines.map((l) => formatCnfLine(l.name, l.value));
    translation.push({
      option: m.key,
      value: m.value,
      source: m.source,
      fate: m.source === "renderer" ? "add" : outcome.fate,
      rendered,
      reason: outcome.reason + (shadowed.length ? ` (${shadowed.join(", ")} set explicitly elsewhere)` : ""),
    });
    const from = formatCnfLine(m.key, m.value);
    if (outcome.fate === "drop") {
      dropped.push(`# dropped ${from} (${m.source}): ${outcome.reason}`);
      continue;
    }
    if (outcome.fate !== "keep") cnfLines.push(`# ${from} (${m.source}): ${outcome.fate}`);
    for (const l of lines) {
      const at = options.findIndex((o) => o.name === l.name);
      if (at >= 0) {
        options.splice(at, 1);
        const idx = cnfLines.findIndex((c) => c.startsWith(`${l.name} =`) || c === l.name);
        if (idx >= 0) cnfLines.splice(idx, 1);
      }
      options.push(l);
      cnfLines.push(formatCnfLine(l.name, l.value));
    }
  }
  return { options, cnfLines, dropped };
}
