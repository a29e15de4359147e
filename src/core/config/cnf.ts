/**
 * The MySQL/MariaDB option-file format (`my.cnf`): parse text into sections and entries, and write them back.
 * Pure: the caller reads the file. Keys are compared in normalised form (lower case, `-` → `_`, no `--` or
 * `loose-` prefix); the original spelling is kept for messages.
 */
import { InputError } from "../base/errors.ts";

export interface CnfEntry {
  /** Normalised option name: lower case, dashes as underscores, without `--` and `loose_` prefixes. */
  key: string;
  /** The option name as written. */
  rawKey: string;
  /** Value after `=`, unquoted; null for a bare flag such as `skip-log-bin`. */
  value: string | null;
  /** Written with the `loose-` prefix (the server ignores it when unknown). */
  loose: boolean;
  /** 1-based line number in the source text. */
  line: number;
  /** Trailing `# comment` on the same line, without the `#`. */
  comment?: string;
}

export interface CnfSection {
  /** Section name without brackets, lower case (e.g. "mysqld"). */
  name: string;
  entries: CnfEntry[];
}

export interface ParsedCnf {
  sections: CnfSection[];
}

export function normalizeOptionName(name: string): string {
  let k = name.trim().toLowerCase().replace(/-/g, "_");
  if (k.startsWith("__")) k = k.slice(2);
  if (k.startsWith("loose_")) k = k.slice("loose_".length);
  return k;
}

/** Split `value # comment` at the first `#` outside quotes; strip matching quotes. */
function splitValue(raw: string): { value: string; comment?: string } {
  let quote: string | null = null;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#") {
      const comment = raw.slice(i + 1).trim();
      return { value: unquote(raw.slice(0, i).trim()), comment: comment === "" ? undefined : comment };
    }
  }
  return { value: unquote(raw.trim()) };
}

function unquote(v: string): string {
  if (v.length >= 2 && (v[0] === '"' || v[0] === "'") && v[v.length - 1] === v[0]) {
    return v.slice(1, -1).replace(/\\(.)/g, (_m, ch: string) => ({ n: "\n", t: "\t", s: " " })[ch as "n"] ?? ch);
  }
  return v;
}

/**
 * Parse option-file text. Entries before any section header are an error (servers ignore or refuse them), and so
 * are `!include` directives, which a pure renderer cannot follow.
 */
export function parseCnf(text: string, source = "my.cnf"): ParsedCnf {
  const sections: CnfSection[] = [];
  let current: CnfSection | undefined;
  const lines = text.split(/\r?\n/);
  lines.forEach((rawLine, idx) => {
    const lineNo = idx + 1;
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) return;
    if (line.startsWith("!")) {
      throw new InputError(`${source}:${lineNo}: "${line}" is not supported in a twinbench config`, {
        code: "CONFIG_INCLUDE_UNSUPPORTED",
        hint: "put the options into the file itself; the rendered config must be self-contained",
      });
    }
    const header = /^\[([^\]]+)\]\s*(?:#.*)?$/.exec(line);
    if (header) {
      const name = header[1].trim().toLowerCase();
      current = sections.find((s) => s.name === name);
      if (!current) {
        current = { name, entries: [] };
        sections.push(current);
      }
      return;
    }
    if (!current) {
      throw new InputError(`${source}:${lineNo}: option "${line}" comes before any [section]`, {
        code: "CONFIG_NO_SECTION",
        hint: "start the file with a [mysqld] line",
      });
    }
    const eq = line.indexOf("=");
    const hash = line.indexOf("#");
    let rawKey: string;
    let value: string | null = null;
    let comment: string | undefined;
    if (eq >= 0 && (hash < 0 || eq < hash)) {
      rawKey = line.slice(0, eq).trim();
      ({ value, comment } = splitValue(line.slice(eq + 1)));
    } else {
      rawKey = (hash >= 0 ? line.slice(0, hash) : line).trim();
      const c = hash >= 0 ? line.slice(hash + 1).trim() : "";
      comment = c === "" ? undefined : c;
    }
    if (!/^[A-Za-z0-9_.-]+$/.test(rawKey)) {
      throw new InputError(`${source}:${lineNo}: "${rawKey}" is not an option name`, {
        code: "CONFIG_BAD_LINE",
        hint: "write options as name = value, one per line",
      });
    }
    const norm = rawKey.toLowerCase().replace(/-/g, "_").replace(/^__/, "");
    current.entries.push({
      key: normalizeOptionName(rawKey),
      rawKey,
      value,
      loose: norm.startsWith("loose_"),
      line: lineNo,
      ...(comment === undefined ? {} : { comment }),
    });
  });
  return { sections };
}

/** Quote a value when the server would otherwise misread it (spaces, `#`, quotes). */
export function formatCnfValue(value: string): string {
  return /^[^\s#'"\\;]*$/.test(value) && value !== ""
    ? value
    : `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

export function formatCnfLine(name: string, value: string | null): string {
  return value === null ? name : `${name} = ${formatCnfValue(value)}`;
}

/**
 * Parse `SHOW GLOBAL VARIABLES` as printed by `mysql -N -B` / `mariadb -N -B` (tab-separated, with `\t`, `\n`, `\\`
 * and `\0` escaped) into a name → value record. A header line `Variable_name\tValue` is skipped.
 */
export function parseVariablesTsv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const tab = line.indexOf("\t");
    const name = tab < 0 ? line : line.slice(0, tab);
    if (name === "Variable_name") continue;
    const raw = tab < 0 ? "" : line.slice(tab + 1);
    out[name.toLowerCase()] = raw.replace(
      /\\([tn0\\])/g,
      (_m, c: string) => ({ t: "\t", n: "\n", "0": "\0", "\\": "\\" })[c as "t"],
    );
  }
  return out;
}
