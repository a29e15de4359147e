/**
 * A small POSIX-shell word splitter for pasted command lines: single quotes, double quotes (with \" \\ \$ \`
 * escapes), backslash escapes and backslash-newline continuations. No expansion: `$VAR` stays as written.
 */
export class ShellWordsError extends Error {}

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
