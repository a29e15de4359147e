/**
 * The lowest level of the sysbench output grammar: the input split into lines (long log messages that sysbench cut
 * and ran together split back apart) and numbers as sysbench prints them.
 */
import { SysbenchParseError } from "./error.ts";

export interface Line {
  /** 1-based line number in the input. */
  no: number;
  /** The line as printed (no line terminator). */
  raw: string;
}

/**
 * sysbench formats a log message into a 4096-byte buffer, newline included; a longer message (e.g. a FATAL
 * quoting a long bulk INSERT) is cut at 4095 characters and loses its newline, so the next message runs on in
 * the same line. Split such lines back apart.
 */
const MESSAGE_MAX = 4095;
const PREFIXES = ["FATAL: ", "ALERT: ", "WARNING: ", "DEBUG: "] as const;

export function splitLines(text: string): Line[] {
  const out: Line[] = [];
  const physical = text.split(/\r?\n/);
  if (physical.length > 0 && physical[physical.length - 1] === "") physical.pop();
  physical.forEach((raw, i) => {
    let rest = raw;
    for (;;) {
      const prefix = PREFIXES.find((p) => rest.startsWith(p));
      if (prefix === undefined || rest.length <= prefix.length + MESSAGE_MAX) break;
      out.push({ no: i + 1, raw: rest.slice(0, prefix.length + MESSAGE_MAX) });
      rest = rest.slice(prefix.length + MESSAGE_MAX);
    }
    out.push({ no: i + 1, raw: rest });
  });
  return out;
}

/** A number as sysbench prints it with %llu / %.Nf / %4.2f; `nan`/`inf` come out of %f on a zero division. */
export const NUM = String.raw`-?(?:\d+(?:\.\d+)?|nan|inf)`;

export function num(s: string, line: Line): number | null {
  if (/^-?(nan|inf)$/.test(s)) return null;
  const v = Number(s);
  if (!Number.isFinite(v)) throw new SysbenchParseError(line.no, `unreadable number '${s}'`, line.raw);
  return v;
}

/** Seconds as printed ("13.5697") → milliseconds, by moving the decimal point (13.5697 s → 13569.7, exactly). */
export function secondsToMs(s: string): number {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(s);
  if (!m) throw new TypeError(`not a decimal number: ${s}`);
  const frac = (m[3] ?? "").padEnd(3, "0");
  const intPart = (m[2] + frac.slice(0, 3)).replace(/^0+(?=\d)/, "");
  const rest = frac.slice(3);
  return Number(`${m[1]}${intPart}${rest ? "." + rest : ""}`);
}
