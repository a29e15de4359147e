/**
 * Reading a Docker build stream. dockerode's followProgress reports success even when the build failed: the
 * failure only shows as an `error`/`errorDetail` event. This tracker looks at every event, keeps the current
 * step's last lines, and turns a failure into an error that says what went wrong. Pure.
 */
import { TwinbenchError } from "../base/errors.ts";
import type { LockEntry } from "./lock.ts";

export interface BuildEvent {
  stream?: string;
  status?: string;
  progress?: string;
  id?: string;
  error?: string;
  errorDetail?: { code?: number; message?: string };
  aux?: { ID?: string };
}

export interface ProgressLine {
  /** "Step 3/9 : RUN ..." (or "" before the first step). */
  step: string;
  line: string;
}

const TAIL = 25;

export class BuildTracker {
  step = "";
  /** The current step's last lines. */
  tail: string[] = [];
  /** Every line seen (bounded), for apt error detection. */
  private all: string[] = [];
  private partial = "";
  imageId?: string;
  error?: string;

  /** Feed one event; returns the complete lines it produced. */
  push(ev: BuildEvent): ProgressLine[] {
    const out: ProgressLine[] = [];
    if (ev.error !== undefined || ev.errorDetail !== undefined) {
      this.error = ev.errorDetail?.message || ev.error || "unknown build error";
      out.push(...this.flush());
      this.addLine(`ERROR: ${this.error}`, out);
      return out;
    }
    if (ev.aux?.ID) this.imageId = ev.aux.ID;
    if (typeof ev.stream === "string") {
      const text = this.partial + ev.stream;
      const parts = text.split(/\r?\n/);
      this.partial = parts.pop() ?? "";
      for (const p of parts) this.addLine(p, out);
    } else if (typeof ev.status === "string") {
      this.addLine(ev.id ? `${ev.id}: ${ev.status}` : ev.status, out);
    }
    return out;
  }

  /** Emit a trailing partial line (at the end of the stream). */
  flush(): ProgressLine[] {
    const out: ProgressLine[] = [];
    if (this.partial) {
      const p = this.partial;
      this.partial = "";
      this.addLine(p, out);
    }
    return out;
  }

  lines(): readonly string[] {
    return this.all;
  }

  private addLine(raw: string, out: ProgressLine[]): void {
    // eslint-disable-next-line no-control-regex
    const line = raw.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "").replace(/\s+$/, "");
    if (/^Step \d+\/\d+ : /.test(line)) {
      this.step = line;
      this.tail = [];
    } else if (line.trim() !== "") {
      this.tail.push(line);
      if (this.tail.length > TAIL) this.tail.shift();
    }
    if (line.trim() === "") return;
    this.all.push(line);
    if (this.all.length > 5000) this.all.splice(0, this.all.length - 5000);
    out.push({ step: this.step, line });
  }
}

export interface AptProblem {
  package: string;
  version?: string;
  message: string;
}

/** apt's "not found at this version" messages in a build log. */
export function findAptProblems(lines: readonly string[]): AptProblem[] {
  const found: AptProblem[] = [];
  for (const line of lines) {
    let m = /E: Version '([^']+)' for '([^']+)' was not found/.exec(line);
    if (m) {
      found.push({ package: m[2]!, version: m[1]!, message: line.trim() });
      continue;
    }
    m = /E: Unable to locate package (\S+)/.exec(line);
    if (m) {
      found.push({ package: m[1]!, message: line.trim() });
      continue;
    }
    m = /E: Package '([^']+)' has no installation candidate/.exec(line);
    if (m) found.push({ package: m[1]!, message: line.trim() });
  }
  return found;
}

const DISK_FULL = /no space left on device|ENOSPC/i;

function shorten(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** The classic builder repeats the whole RUN command in its error; keep just the exit code. */
function shortenError(e: string): string {
  const m = /^The command '[\s\S]*' returned a non-zero code: (\d+)\s*$/.exec(e);
  return m ? `the RUN command exited with code ${m[1]}` : shorten(e, 300);
}

/**
 * Turn a failed build (an error event, or a stream that ended without an image id) into an error naming the
 * cause: a package missing at its pinned version, a full disk, or otherwise the failing step and its last lines.
 */
export function buildFailure(name: string, entry: LockEntry, lockFile: string, t: BuildTracker): TwinbenchError {
  const details = [
    shorten(t.step || "(before the first step)", 240),
    ...t.tail.filter((l) => !l.startsWith("ERROR: ")).map((l) => `  ${l}`),
  ];
  const message = shortenError(t.error ?? "the build stream ended without an image id");
  const step = shorten(t.step || "the start", 100);
  const apt = findAptProblems(t.lines());
  if (apt.length > 0) {
    const p = apt[0]!;
    const version = p.version ?? entry.packages[p.package];
    return new TwinbenchError(
      `image "${name}": package ${p.package}${version ? ` ${version}` : ""} not found in suite ${entry.suites.join(" + ")}`,
      {
        code: "IMAGE_PACKAGE_NOT_FOUND",
        hint:
          `the Debian mirror does not carry ${p.package}${version ? `=${version}` : ""}; check the available versions with ` +
          `\`apt-cache madison ${p.package}\` in ${entry.suites[0]} and update images.${name}.packages in ${lockFile}`,
        details: [...apt.map((a) => a.message), ...details],
      },
    );
  }
  if (DISK_FULL.test(message) || t.tail.some((l) => DISK_FULL.test(l))) {
    return new TwinbenchError(`image "${name}": the disk is full (at ${step})`, {
      code: "IMAGE_DISK_FULL",
      hint: "free space under Docker's data root (docker system df; twinbench images rm) and build again; nothing was tagged",
      details,
    });
  }
  return new TwinbenchError(`image "${name}": build failed at ${step}: ${message}`, {
    code: "IMAGE_BUILD_FAILED",
    hint: `the failing step's last lines are shown above; the build context is images/${entry.family}/ and the pins are in ${lockFile}`,
    details,
  });
}
