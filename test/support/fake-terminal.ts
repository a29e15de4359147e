/**
 * The terminal of the TUI tests: a stdout that keeps every frame written to it, at a size the test chooses, a stdin
 * that a test types into (Ink reads it through `readable`), and `plain`, which strips the terminal's escape codes.
 */
import { EventEmitter } from "node:events";

/** Text without ANSI escapes (a frame may carry cursor codes even without colour). */
// eslint-disable-next-line no-control-regex -- strips the terminal's colour codes
export const plain = (s: string | undefined) => (s ?? "").replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, "");

/** A TTY stdout of `columns` × `rows` that keeps what is written to it. */
export class FakeStdout extends EventEmitter {
  isTTY = true;
  frames: string[] = [];
  constructor(
    public columns = 80,
    public rows = 24,
  ) {
    super();
  }
  write = (s: string) => {
    this.frames.push(s);
    return true;
  };
  /** Everything written so far, as plain text. */
  all = () => plain(this.frames.join(""));
}

/** A TTY stdin: `write` is a key press (or text) the screen reads. */
export class FakeStdin extends EventEmitter {
  isTTY = true;
  private data: string | null = null;
  write(d: string) {
    this.data = d;
    this.emit("readable");
    this.emit("data", d);
  }
  read = () => {
    const d = this.data;
    this.data = null;
    return d;
  };
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}
