/**
 * Helpers of the fault matrix: drive the real CLI as a child process (black box: only argv, the --json-events
 * stream, exit codes and the files it leaves), kill it when a phase event appears, and check that nothing of the
 * run is left on the engine or the host.
 */
import { expect } from "vitest";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { hostState, leftovers, readCells, start, twinbench } from "../integration/support/lab.ts";

export type Ev = Record<string, unknown> & { type: string };

/** A `twinbench run … --json-events` child with every event it printed so far. */
export class RunProcess {
  readonly child: ReturnType<typeof start>;
  readonly events: Ev[] = [];
  private waiters: Array<{ pred: (e: Ev) => boolean; resolve: (e: Ev) => void; reject: (e: Error) => void }> = [];

  constructor(args: string[]) {
    this.child = start([...args, "--json-events"]);
    let buf = "";
    this.child.stdout!.on("data", (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split("\n");
      buf = lines.pop() ?? "";
      for (const l of lines) {
        if (!l.startsWith("{")) continue;
        const e = JSON.parse(l) as Ev;
        this.events.push(e);
        this.waiters = this.waiters.filter((w) => (w.pred(e) ? (w.resolve(e), false) : true));
      }
    });
    void this.child.on("exit", () => {
      for (const w of this.waiters)
        w.reject(
          new Error(
            `twinbench exited before the awaited event; events: ${this.events.map((e) => e.type + (e.phase ? `:${e.phase}` : "")).join(" ")}`,
          ),
        );
      this.waiters = [];
    });
  }

  /** The first event (already seen or to come) that satisfies `pred`. */
  waitFor(pred: (e: Ev) => boolean): Promise<Ev> {
    const seen = this.events.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => this.waiters.push({ pred, resolve, reject }));
  }

  runId(): Promise<string> {
    return this.waitFor((e) => e.type === "plan-ready").then((e) => String(e.runId));
  }
}

/** The phase event of `phase` (for `server`, and the n-th one when asked). */
export const phaseIs = (phase: string, opts: { server?: string; nth?: number } = {}) => {
  let seen = 0;
  return (e: Ev) =>
    e.type === "phase" &&
    e.phase === phase &&
    (opts.server === undefined || e.server === opts.server) &&
    ++seen === (opts.nth ?? 1);
};

/** Start (or resume) a run, SIGKILL it the moment `pred` matches an event. Returns the run id and its events. */
export async function killWhen(args: string[], pred: (e: Ev) => boolean): Promise<{ runId: string; events: Ev[] }> {
  const p = new RunProcess(args);
  const runId = await p.runId();
  await p.waitFor(pred);
  p.child.kill("SIGKILL");
  const r = await p.child;
  expect(r.signal, r.all).toBe("SIGKILL");
  return { runId, events: p.events };
}

/** What the matrix asks after each kill: `clean --run ID` exits 0 and leaves nothing of that run. */
export async function cleanAndCheck(runId: string): Promise<void> {
  const c = await twinbench(["clean", "--run", runId]);
  expect(c.exitCode, c.all).toBe(0);
  await expectNothingLeft(runId);
}

export async function expectNothingLeft(runId: string): Promise<void> {
  expect(await leftovers(runId)).toEqual({ containers: [], networks: [], volumes: [] });
  expect(await hostState(runId)).toEqual({ mounts: [], loops: [] });
  const loopFiles = await readdir("/var/lib/twinbench/loop").catch(() => [] as string[]);
  expect(loopFiles.filter((f) => f.includes(runId))).toEqual([]);
}

/** Every line of cells.jsonl parses (readCells throws otherwise); the measured ok cells' keys. */
export async function okKeys(dir: string): Promise<Set<string>> {
  return new Set((await readCells(dir)).filter((c) => c.phase === "measure" && c.status === "ok").map((c) => c.key));
}

/** `--resume` to the end: exit 0 and every planned cell measured ok. */
export async function resumeToTheEnd(dir: string): Promise<Ev[]> {
  const p = new RunProcess(["run", "--resume", dir]);
  const r = await p.child;
  expect(r.exitCode, r.all).toBe(0);
  const planned = (p.events.find((e) => e.type === "plan-ready")!.cells as unknown[]).length;
  expect((await okKeys(dir)).size).toBe(planned);
  return p.events;
}

export async function manifestStatus(dir: string): Promise<string> {
  return (JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as { status: string }).status;
}
