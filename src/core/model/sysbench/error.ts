/**
 * The error of the sysbench output parser: text that is not sysbench output, or not exactly one, with the line
 * that shows it.
 */
import { TwinbenchError } from "../../base/errors.ts";

/** Text that is not sysbench output, or not exactly one: the message names the line. */
export class SysbenchParseError extends TwinbenchError {
  /** 1-based line number in the text given to the parser, or null when the problem is the whole text. */
  readonly line: number | null;
  constructor(line: number | null, message: string, lineText?: string) {
    super(line === null ? message : `line ${line}: ${message}`, {
      code: "SYSBENCH_PARSE",
      hint: "pass the complete, unmodified output of `sysbench … run` (stdout and stderr merged)",
      details: lineText === undefined ? [] : [`> ${lineText.length > 200 ? lineText.slice(0, 200) + "…" : lineText}`],
    });
    this.line = line;
  }
}
