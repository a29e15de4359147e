/**
 * The lost-host guard: a decorator of the engine port for a host whose engine may vanish mid-run. A dead engine
 * can leave API calls hanging for ever (a `wait` whose connection drops never settles), so once the engine stops
 * answering pings every call through the guarded engine rejects with HOST_LOST, in-flight ones included, and the
 * run unwinds (its teardown's calls fail fast too).
 */
import { TwinbenchError } from "../../core/base/errors.ts";
import { DeadlineError, withDeadline } from "../../core/base/deadline.ts";
import type { HostFacts } from "../../core/model/results.ts";
import type { Engine } from "../../core/model/engine/engine.ts";

const msg = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Why an engine did not answer, without the "no engine answers for host" wrapper of ping(). */
export function unreachableReason(e: unknown): string {
  if (e instanceof TwinbenchError && e.code === "ENGINE_UNREACHABLE" && e.cause !== undefined) return msg(e.cause);
  return msg(e);
}

export class HostGuard {
  lost: TwinbenchError | undefined;
  /** Why the host was declared lost (the last ping's failure). */
  lostWhy: string | undefined;
  private rejectLost!: (e: TwinbenchError) => void;
  private readonly lostPromise: Promise<never>;
  private timer: NodeJS.Timeout | undefined;
  constructor(readonly hostId: string) {
    this.lostPromise = new Promise<never>((_, rej) => (this.rejectLost = rej));
    this.lostPromise.catch(() => undefined); // observed through guard()/orLost(); never an unhandled rejection
  }
  declareLost(why: string): void {
    if (this.lost) return;
    this.lostWhy = why;
    this.lost = new TwinbenchError(`host "${this.hostId}" was lost: its engine stopped answering (${why})`, {
      code: "HOST_LOST",
      hint: `check the engine on host ${this.hostId}; then \`twinbench clean --host ${this.hostId}\` removes what the run left there`,
    });
    this.rejectLost(this.lost);
  }
  /** Ping every `everyMs`; `misses` failures in a row declare the host lost. */
  watch(ping: () => Promise<void>, opts: { everyMs?: number; misses?: number; timeoutMs?: number } = {}): void {
    const every = opts.everyMs ?? 2000;
    const misses = opts.misses ?? 3;
    const timeoutMs = opts.timeoutMs ?? 5000;
    let failed = 0;
    let busy = false;
    this.timer = setInterval(() => {
      if (busy || this.lost) return;
      busy = true;
      withDeadline(ping(), timeoutMs, () => new DeadlineError(timeoutMs))
        .then(
          () => (failed = 0),
          (e: unknown) => {
            failed++;
            if (failed >= misses)
              this.declareLost(`${misses} pings in a row failed, the last with: ${unreachableReason(e)}`);
          },
        )
        .finally(() => (busy = false));
    }, every);
    this.timer.unref();
  }
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
  /**
   * Settles like `p`, unless the host is lost first: then `p` gets `graceMs` to unwind by itself (its teardown
   * writes the results folder) before this rejects with HOST_LOST.
   */
  orLost<T>(p: Promise<T>, graceMs: number): Promise<T> {
    p.catch(() => undefined); // the race below reports p's failure
    const lostThenGrace = this.lostPromise.catch(async (e: unknown) => {
      let t: NodeJS.Timeout | undefined;
      // p's own outcome is irrelevant here: only whether it settles within the grace; the host's loss is raised.
      await Promise.race([
        // settled either way: only whether p settles within the grace matters
        p.then(
          () => undefined,
          () => undefined,
        ),
        new Promise((r) => (t = setTimeout(r, graceMs))),
      ]);
      clearTimeout(t);
      throw e;
    });
    return Promise.race([p, lostThenGrace]);
  }
  /** Race a call against the loss of the host. */
  guard<T>(p: Promise<T>): Promise<T> {
    if (this.lost) {
      p.catch(() => undefined); // the host is gone: the call's own outcome no longer matters
      return Promise.reject(this.lost);
    }
    return Promise.race([p, this.lostPromise]);
  }
}

/** Connection-level failures, by code (Node's "socket hang up" is ECONNRESET): the engine is gone, not the request wrong. */
function isConnectionError(e: unknown): boolean {
  const code = (e as { code?: string } | null)?.code ?? (e as { cause?: { code?: string } } | null)?.cause?.code;
  return [
    "ECONNREFUSED",
    "ECONNRESET",
    "EPIPE",
    "ETIMEDOUT",
    "ENOENT",
    "EHOSTUNREACH",
    "ENETUNREACH",
    "HOST_LOST",
  ].includes(code ?? "");
}

/** The resources whose calls are raced against the host's loss (images are not: their streams outlive the call). */
const GUARDED = new Set<PropertyKey>(["containers", "networks", "volumes", "exec"]);

/**
 * Every method of `target` raced against the host's loss; methods run with the returned proxy as `this`, so a
 * resource's own internal calls (containers.run's create, kill and remove) are guarded too. `quiet` names the
 * methods whose connection failures resolve instead (kill, fired and forgotten inside run()).
 */
function guardedMethods<T extends object>(target: T, guard: HostGuard | undefined, quiet: ReadonlySet<PropertyKey>): T {
  const proxy: T = new Proxy(target, {
    get(t, prop) {
      const v = Reflect.get(t, prop, t) as unknown;
      if (typeof v !== "function") return v;
      const fn = v as (...a: unknown[]) => unknown;
      return (...args: unknown[]) => {
        const r = fn.apply(proxy, args);
        if (!(r instanceof Promise)) return r;
        const g = guard ? guard.guard(r) : r;
        if (quiet.has(prop)) return g.catch((e: unknown) => (isConnectionError(e) ? undefined : Promise.reject(e)));
        return g;
      };
    },
  });
  return proxy;
}

/**
 * The engine a host's run sees: facts() answers the probed facts (when given; else the engine is asked); every call (ping, and those of containers,
 * networks, volumes and exec) is raced against the host's loss; containers.kill() (fired and forgotten inside
 * run()) never rejects on a dead connection.
 */
export function guardedEngine(engine: Engine, facts: HostFacts | undefined, guard?: HostGuard): Engine {
  const resources = new Map<PropertyKey, unknown>();
  const host = guardedMethods(engine, guard, new Set());
  return new Proxy(engine, {
    get(target, prop) {
      if (prop === "facts" && facts) return async () => facts;
      if (!GUARDED.has(prop)) return Reflect.get(host, prop, host) as unknown;
      if (!resources.has(prop)) {
        const quiet = new Set<PropertyKey>(prop === "containers" ? ["kill"] : []);
        resources.set(prop, guardedMethods(Reflect.get(target, prop, target) as object, guard, quiet));
      }
      return resources.get(prop);
    },
  });
}
