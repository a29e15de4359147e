/** withDeadline (src/core/base/deadline.ts): settles like its promise, or rejects with the given error at the limit. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { DeadlineError, withDeadline } from "../../../src/core/base/deadline.ts";

afterEach(() => vi.useRealTimers());

describe("withDeadline", () => {
  it("resolves with the promise's value before the limit, and leaves no timer behind", async () => {
    vi.useFakeTimers();
    await expect(withDeadline(Promise.resolve(7), 1000, () => new DeadlineError(1000))).resolves.toBe(7);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects with the promise's own error before the limit", async () => {
    vi.useFakeTimers();
    const err = new Error("refused");
    await expect(withDeadline(Promise.reject(err), 1000, () => new DeadlineError(1000))).rejects.toBe(err);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects with onTimeout()'s error when the promise does not settle in time", async () => {
    vi.useFakeTimers();
    const never = new Promise<number>(() => {});
    const p = withDeadline(never, 2500, () => new DeadlineError(2500));
    const seen = p.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(2499);
    await vi.advanceTimersByTimeAsync(1);
    const e = (await seen) as DeadlineError;
    expect(e).toBeInstanceOf(DeadlineError);
    expect(e.ms).toBe(2500);
    expect(e.message).toBe("no answer within 2.5 s");
  });

  it("a promise settling at the limit's last moment still wins", async () => {
    vi.useFakeTimers();
    const late = new Promise<string>((res) => setTimeout(() => res("just in time"), 999));
    const p = withDeadline(late, 1000, () => new DeadlineError(1000));
    await vi.advanceTimersByTimeAsync(999);
    await expect(p).resolves.toBe("just in time");
  });
});
