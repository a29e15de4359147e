/**
 * Reading a server's error log after a failed start: which option did it refuse? Pure; the caller fetches the log.
 * Formats as MariaDB 10.11/11.8 and MySQL 9.7 print them (test/fixtures/variables/startfail-*.log):
 *   MariaDB: `[ERROR] /usr/sbin/mariadbd: unknown variable 'innodb_frobnicate=3'`
 *   MySQL:   `[ERROR] [MY-000067] [Server] unknown variable 'innodb_frobnicate=3'.`
 *   both:    `Error while setting value 'maybe' to 'innodb-doublewrite'`, `unknown option '--x'`,
 *            `ambiguous option '--thread_c' (thread_cache_size, thread_concurrency)`
 */
import { normalizeOptionName } from "./cnf.ts";

export interface RefusedOption {
  /** Normalised option name (underscores). */
  option: string;
  value?: string;
  /** The log line that names it. */
  line: string;
}

const PATTERNS: Array<{
  re: RegExp;
  option: (m: RegExpMatchArray) => string;
  value?: (m: RegExpMatchArray) => string | undefined;
}> = [
  { re: /unknown variable '([^'=]+)(?:=([^']*))?'/i, option: (m) => m[1], value: (m) => m[2] },
  { re: /unknown option '-{0,2}([^'=]+)(?:=([^']*))?'/i, option: (m) => m[1], value: (m) => m[2] },
  { re: /Error while setting value '([^']*)' to '([^']+)'/i, option: (m) => m[2], value: (m) => m[1] },
  { re: /ambiguous option '-{0,2}([^'=]+)/i, option: (m) => m[1] },
  { re: /option '-{0,2}([^']+)' requires an argument/i, option: (m) => m[1] },
];

/** The first option the log says the server refused, or undefined when the log names none. */
export function findRefusedOption(log: string): RefusedOption | undefined {
  for (const line of log.split(/\r?\n/)) {
    for (const p of PATTERNS) {
      const m = line.match(p.re);
      if (m) {
        const value = p.value?.(m);
        return { option: normalizeOptionName(p.option(m)), ...(value === undefined ? {} : { value }), line };
      }
    }
  }
  return undefined;
}

/**
 * The last `n` lines of a failed start's log, with the lines that name the refused option marked `>> ` (others
 * indented by three spaces so columns stay aligned). When the line naming the option is older than the tail (MariaDB's
 * install-db prints its usage after the error), it is put first, followed by `   …`.
 */
export function startFailureTail(log: string, n = 30): { lines: string[]; refused?: RefusedOption } {
  const all = log.replace(/\s+$/, "").split(/\r?\n/);
  const refused = findRefusedOption(log);
  const tail = all.slice(-n);
  const names = refused ? [refused.option, refused.option.replace(/_/g, "-")] : [];
  const lines = tail.map((l) => (names.some((x) => l.includes(x)) ? `>> ${l}` : `   ${l}`));
  if (refused && !tail.includes(refused.line)) lines.unshift(`>> ${refused.line}`, "   …");
  else if (!refused) {
    // Servers print their real reason ([ERROR] lines) before pages of usage text: bring those forward.
    const errors = all
      .slice(0, -n)
      .filter((l) => /\[ERROR\]|^ERROR|\bFATAL\b/.test(l))
      .slice(-10);
    if (errors.length > 0) lines.unshift(...errors.map((l) => `>> ${l}`), "   …");
  }
  return refused ? { lines, refused } : { lines };
}
