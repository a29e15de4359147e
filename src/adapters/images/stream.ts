/** Consuming Docker's JSON-lines progress streams (build, import, pull) event by event. */
import type { Readable } from "node:stream";
import type { BuildEvent } from "../../core/images/stream.ts";

/**
 * Read a Docker JSON-lines stream, calling `onEvent` for every event (unlike followProgress, a line that is not
 * JSON becomes a `stream` event instead of a crash). Resolves when the stream ends; rejects on a transport error.
 */
export function readJsonStream(
  stream: NodeJS.ReadableStream | Readable,
  onEvent: (ev: BuildEvent) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = "";
    let done = false;
    const line = (l: string) => {
      const t = l.trim();
      if (!t) return;
      let ev: BuildEvent;
      try {
        ev = JSON.parse(t) as BuildEvent;
      } catch {
        ev = { stream: `${t}\n` }; // not a JSON event (plain daemon text): shown as an output line
      }
      onEvent(ev);
    };
    stream.on("data", (chunk: Buffer | string) => {
      buf += chunk.toString();
      let i: number;
      while ((i = buf.indexOf("\n")) >= 0) {
        line(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
    const finish = () => {
      if (done) return;
      done = true;
      line(buf);
      buf = "";
      resolve();
    };
    stream.on("end", finish);
    stream.on("close", finish);
    stream.on("error", (e: Error) => {
      if (done) return;
      done = true;
      reject(e);
    });
  });
}
