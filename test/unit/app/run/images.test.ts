/**
 * Every long step says it still runs, in plain output too. Fake timers drive the clock: a slow fake
 * build "takes" its seconds of fake time, and the plain lines it produces are checked for gaps. No real waiting.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { scenario as scenarioOf } from "../../../support/scenario.ts";
import { RunContext } from "../../../../src/app/run/context.ts";
import { ensureImages } from "../../../../src/app/run/images.ts";
import type { ResultsSession } from "../../../../src/app/run/session.ts";
import type { ImageInfo, RunDeps } from "../../../../src/app/run/types.ts";
import { FakeEngine } from "../../../../test/support/fake-engine.ts";
import type { Plan } from "../../../../src/core/plan/plan.ts";
import type { RunEvent } from "../../../../src/core/model/events.ts";
import { CancelledError, TwinbenchError } from "../../../../src/core/base/errors.ts";
import { plainLine } from "../../../../src/cli/plain.ts";
import { reduce, initialState } from "../../../../src/tui/state.ts";

const scenario = scenarioOf(
  {
    storage: { kind: "tmpfs", size: "1g" },
    workload: { tests: ["oltp_point_select"], threads: [1], duration: "2s", repeats: 2 },
  },
  { check: "schema" },
);

const info = (name: string): ImageInfo => ({
  name,
  tag: `twinbench/${name}:x`,
  id: `sha256:${name}`,
  family: name.startsWith("mysql") ? "mysql" : name.startsWith("sysbench") ? "sysbench" : "mariadb",
  version: "1",
  cacheHit: false,
});

/** A build that takes `seconds` of fake time and prints a line only at the times in `lines` (seconds). */
type SlowBuild = { seconds: number; lines: number[]; fail?: boolean };

function context(
  builds: Record<string, SlowBuild>,
  events: RunEvent[],
  seen: { started: string[]; aborted: string[] },
) {
  const deps = {
    engine: new FakeEngine(),
    storage: {} as RunDeps["storage"],
    ensureImage: (name: string, onProgress: (step: string, line?: string) => void, signal?: AbortSignal) =>
      new Promise<ImageInfo>((resolve, reject) => {
        const b = builds[name]!;
        seen.started.push(name);
        const timers = b.lines.map((t) =>
          setTimeout(() => onProgress("Step 5/9 : RUN apt-get install …", `line at ${t} s`), t * 1000),
        );
        let settled = false;
        const done = setTimeout(() => {
          settled = true;
          if (b.fail)
            reject(new TwinbenchError(`image "${name}": build failed`, { code: "IMAGE_BUILD_FAILED", hint: "x" }));
          else resolve(info(name));
        }, b.seconds * 1000);
        signal?.addEventListener("abort", () => {
          if (settled) return;
          for (const t of [...timers, done]) clearTimeout(t);
          seen.aborted.push(name);
          reject(new CancelledError());
        });
      }),
  } as unknown as RunDeps;
  return new RunContext(
    deps,
    { scenario, neutralCnf: "", outDir: "/nonexistent", onEvent: (e) => events.push(e) },
    {} as Plan,
  );
}

const session = () => ({ manifest: {} }) as unknown as ResultsSession;

/** The seconds since `t0` of each plain line about `image` (progress or image events), in order. */
function plainTimes(events: RunEvent[], image: string, t0: number): number[] {
  return events
    .filter(
      (e) =>
        plainLine(e) !== undefined &&
        ((e.type === "progress" && e.subject === image) ||
          ((e.type === "image-progress" || e.type === "image-ready") && e.image === image)),
    )
    .map((e) => (Date.parse(e.at) - t0) / 1000);
}

afterEach(() => {
  vi.useRealTimers();
});

describe("image builds say they still run", () => {
  it("a slow build prints a plain line at least every 10 s of (fake) time until it is ready, and the images build side by side", async () => {
    vi.useFakeTimers();
    const t0 = Date.now();
    const events: RunEvent[] = [];
    const seen = { started: [] as string[], aborted: [] as string[] };
    const builds = {
      "mariadb-11.8": { seconds: 95, lines: [1, 60] },
      "mysql-9.7": { seconds: 41, lines: [] },
      "sysbench-1.0": { seconds: 23, lines: [2] },
    };
    const ctx = context(builds, events, seen);
    const done = ensureImages(ctx, session());
    await vi.advanceTimersByTimeAsync(1000);
    // All three started at once: none waits for another one to finish.
    expect(seen.started.sort()).toEqual(["mariadb-11.8", "mysql-9.7", "sysbench-1.0"]);
    await vi.advanceTimersByTimeAsync(100_000);
    const images = await done;
    expect([...images.keys()].sort()).toEqual(["mariadb-11.8", "mysql-9.7", "sysbench-1.0"]);
    for (const [name, b] of Object.entries(builds)) {
      const times = plainTimes(events, name, t0);
      expect(times.at(-1)).toBe(b.seconds); // the last one is "ready", at the build's end
      const gaps = times.map((t, i) => t - (i === 0 ? 0 : times[i - 1]!));
      expect(Math.max(...gaps), `${name}: ${times.join(", ")}`).toBeLessThanOrEqual(10);
    }
    // The stage took the longest build's time, not the sum.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(95_000);
    expect(ctx.timings.images).toBe(95);
    // A progress line names the step and the latest output line.
    const p = events.find(
      (e): e is Extract<RunEvent, { type: "progress" }> =>
        e.type === "progress" && e.subject === "mariadb-11.8" && e.seconds === 65,
    )!;
    expect(plainLine(p)).toBe("  images mariadb-11.8: 65 s: Step 5/9: line at 60 s");
    // No heartbeat after the build is ready.
    const ready = events.findIndex((e) => e.type === "image-ready" && e.image === "mysql-9.7");
    expect(events.slice(ready).some((e) => e.type === "progress" && e.subject === "mysql-9.7")).toBe(false);
  });

  it("the first failing build cancels the others, and its error is the one thrown once all have settled", async () => {
    vi.useFakeTimers();
    const events: RunEvent[] = [];
    const seen = { started: [] as string[], aborted: [] as string[] };
    const ctx = context(
      {
        "mariadb-11.8": { seconds: 95, lines: [] },
        "mysql-9.7": { seconds: 12, lines: [], fail: true },
        "sysbench-1.0": { seconds: 30, lines: [] },
      },
      events,
      seen,
    );
    const done = ensureImages(ctx, session());
    const caught = done.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(13_000);
    const e = await caught;
    expect(e).toBeInstanceOf(TwinbenchError);
    expect((e as TwinbenchError).message).toContain("mysql-9.7");
    expect(seen.aborted.sort()).toEqual(["mariadb-11.8", "sysbench-1.0"]);
    // Nothing keeps ticking after the stage failed.
    const n = events.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(events.length).toBe(n);
  });

  it("the TUI shows the seconds of the image it shows, not another one's", () => {
    const at = new Date(0).toISOString();
    let s = reduce(initialState(), {
      type: "image-progress",
      at,
      image: "mysql-9.7",
      step: "Step 5/9",
      line: "Unpacking",
    });
    s = reduce(s, { type: "progress", at, phase: "images", subject: "mariadb-11.8", seconds: 15 });
    expect(s.step?.seconds).toBeUndefined();
    s = reduce(s, { type: "progress", at, phase: "images", subject: "mysql-9.7", seconds: 20 });
    expect(s.step).toMatchObject({ image: "mysql-9.7", seconds: 20 });
    s = reduce(s, { type: "phase", at, phase: "start", server: "a" });
    s = reduce(s, { type: "progress", at, phase: "start", subject: "a", seconds: 5 });
    expect(s.step).toMatchObject({ phase: "start", server: "a", seconds: 5 });
  });
});
