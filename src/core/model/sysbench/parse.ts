/**
 * Pure parser for sysbench `run` output: 1.0.x as sysbench 1.0.20 prints it, and the 0.4/0.5 formats
 * (see parse-legacy.ts for how legacy figures map onto SysbenchResult).
 *
 * It is exact and total: every figure of a recognised block is read, a figure the log does not contain is `null`,
 * and a log that is malformed (a block with an unreadable or missing line, a number cut short, an interval line
 * that does not parse, a report without its General statistics, or text with no sysbench output at all) raises a
 * SysbenchParseError that names the line. Lines outside the blocks that sysbench or a Lua script may print
 * (option echo, "Threads started!", prose around a pasted log) are skipped.
 *
 * - `parseSysbench(text)`: one output; more than one is an error.
 * - `parseSysbenchFile(text)`: a file with any number of outputs (several runs appended, or a mail with two
 *   0.4 summaries and prose around them) → one result per output, in file order.
 */
import type { SysbenchResult } from "./result.ts";
import { SysbenchParseError } from "./error.ts";
import { scan, type Draft } from "./scan.ts";
import { toResult10 } from "./parse-1.0.ts";
import { isLegacyDraft, toLegacyResult } from "./parse-legacy.ts";

function toResult(d: Draft): SysbenchResult {
  return isLegacyDraft(d) ? toLegacyResult(d) : toResult10(d);
}

/** Every sysbench output in `text`, in order. Text with no sysbench output at all is an error. */
export function parseSysbenchFile(text: string): SysbenchResult[] {
  const drafts = scan(text);
  if (drafts.length === 0) {
    const first = text.split(/\r?\n/).find((l) => l.trim() !== "");
    throw new SysbenchParseError(
      null,
      first === undefined
        ? "the text is empty: no sysbench output"
        : `no sysbench output found (no header, report, interval or FATAL line); it starts with '${first.trim().slice(0, 80)}'`,
    );
  }
  return drafts.map(toResult);
}

/** Exactly one sysbench output. */
export function parseSysbench(text: string): SysbenchResult {
  const drafts = scan(text);
  if (drafts.length > 1) {
    throw new SysbenchParseError(
      drafts[1].startLine,
      `the text holds ${drafts.length} sysbench outputs (the second starts here); use parseSysbenchFile`,
    );
  }
  return parseSysbenchFile(text)[0];
}
