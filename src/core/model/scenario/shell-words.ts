/**
 * A small POSIX-shell word splitter for pasted command lines: single quotes, double quotes (with \" \\ \$ \`
 * escapes), backslash escapes and backslash-newline continuations. No expansion: `$VAR` stays as written.
 * An unquoted control or redirection operator (`|`, `;`, `&&`, `>`, …) is an error naming it: one command only.
 *
 * Kept hand-written: shell-quote drops backslash-newline continuations and `#` comments, expands
 * `${X}`, accepts unterminated quotes and turns `*` into glob objects; string-argv has no backslash escapes,
 * continuations, comments or operators at all. This file is ~100 lines with a table-driven test.
 */
export class ShellWordsError extends Error {}

/** An unquoted shell operator: the command line is more than one sysbench command (a pipe, a list, a redirection). */
export class ShellOperatorError extends ShellWordsError {
  constructor(
    /** The operator as written, e.g. `|`, `&&`, `2>&1` is reported as `>&`. */
    readonly operator: string,
    /** What the operator does, e.g. "a pipe". */
    readonly meaning: string,
    /** 1-based character position of the operator. */
    readonly position: number,
    /** The command line from the operator on. */
    readonly rest: string,
  ) {
    super(`shell operator ${JSON.stringify(operator)} (${meaning}) at character ${position}`);
  }
}

/** The shell's control and redirection operators, longest first (POSIX 2.9 and bash's `|&`, `&>`). */
const OPERATORS: Array<[string, string]> = [
  ["&&", "a conditional list"],
  ["||", "a conditional list"],
  [";;", "a case terminator"],
  ["|&", "a pipe"],
  ["&>", "a redirection"],
  [">>", "a redirection"],
  ["<<", "a here-document"],
  [">&", "a redirection"],
  ["<&", "a redirection"],
  ["<>", "a redirection"],
  [">|", "a redirection"],
  ["|", "a pipe"],
  ["&", "a background job"],
  [";", "a command separator"],
  [">", "a redirection"],
  ["<", "a redirection"],
  ["(", "a subshell"],
  [")", "a subshell"],
];

export function shellWords(input: string): string[] {
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  let i = 0;
  const n = input.length;
  while (i < n) {
    const c = input[i];
    if (c === "\\") {
      const next = input[i + 1];
      if (next === undefined) {
        i++;
        continue;
      }
      if (next === "\n") {
        i += 2; // continuation
        continue;
      }
      if (next === "\r" && input[i + 2] === "\n") {
        i += 3;
        continue;
      }
      cur += next;
      inWord = true;
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = input.indexOf("'", i + 1);
      if (end < 0) throw new ShellWordsError(`unterminated single quote at character ${i + 1}`);
      cur += input.slice(i + 1, end);
      inWord = true;
      i = end + 1;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      for (;;) {
        if (j >= n) throw new ShellWordsError(`unterminated double quote at character ${i + 1}`);
        const d = input[j];
        if (d === '"') break;
        if (d === "\\" && j + 1 < n && '"\\$`\n'.includes(input[j + 1])) {
          if (input[j + 1] !== "\n") cur += input[j + 1];
          j += 2;
          continue;
        }
        cur += d;
        j++;
      }
      inWord = true;
      i = j + 1;
      continue;
    }
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
      i++;
      continue;
    }
    if ("|&;<>()".includes(c)) {
      const [op, meaning] = OPERATORS.find(([o]) => input.startsWith(o, i))!;
      throw new ShellOperatorError(op, meaning, i + 1, input.slice(i).trim());
    }
    if (c === "#" && !inWord) {
      // comment to end of line
      while (i < n && input[i] !== "\n") i++;
      continue;
    }
    cur += c;
    inWord = true;
    i++;
  }
  if (inWord) words.push(cur);
  return words;
}
