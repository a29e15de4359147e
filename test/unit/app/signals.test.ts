/** The one signal trap (src/app/signals.ts) every command that runs work uses. */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { trapSignals } from "../../../src/app/signals.ts";

const source = () =>
  new EventEmitter() as EventEmitter & {
    on(s: "SIGINT" | "SIGTERM", l: () => void): unknown;
    off(s: "SIGINT" | "SIGTERM", l: () => void): unknown;
  };

describe("trapSignals", () => {
  it("first SIGINT aborts and calls graceful; the second calls force", () => {
    const src = source();
    const calls: string[] = [];
    const trap = trapSignals({ graceful: () => calls.push("graceful"), force: () => calls.push("force") }, src);
    src.emit("SIGINT");
    expect(trap.signal.aborted).toBe(true);
    src.emit("SIGINT");
    expect(calls).toEqual(["graceful", "force"]);
  });

  it("SIGTERM is a graceful cancel, once; a screen's Ctrl-C goes through interrupt() like SIGINT", () => {
    const src = source();
    const calls: string[] = [];
    const trap = trapSignals({ graceful: () => calls.push("graceful"), force: () => calls.push("force") }, src);
    src.emit("SIGTERM");
    src.emit("SIGTERM");
    expect(calls).toEqual(["graceful"]);
    trap.interrupt();
    expect(calls).toEqual(["graceful", "force"]);
  });

  it("dispose removes both handlers, twice is harmless; without handlers it only aborts", () => {
    const src = source();
    const trap = trapSignals({}, src);
    expect(src.listenerCount("SIGINT")).toBe(1);
    expect(src.listenerCount("SIGTERM")).toBe(1);
    trap.dispose();
    trap.dispose();
    expect(src.listenerCount("SIGINT")).toBe(0);
    expect(src.listenerCount("SIGTERM")).toBe(0);
    src.emit("SIGINT");
    expect(trap.signal.aborted).toBe(false);
  });
});
