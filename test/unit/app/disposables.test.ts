import { describe, expect, it } from "vitest";
import { DisposableStack } from "../../../src/app/disposables.ts";

describe("DisposableStack", () => {
  it("disposes in reverse order, once, even when called twice", async () => {
    const order: string[] = [];
    const s = new DisposableStack();
    s.defer("a", async () => void order.push("a"));
    s.defer("b", async () => void order.push("b"));
    s.defer("c", async () => void order.push("c"));
    const [f1, f2] = await Promise.all([s.dispose(), s.dispose()]);
    expect(order).toEqual(["c", "b", "a"]);
    expect(f1).toEqual([]);
    expect(f2).toBe(f1);
    await s.dispose();
    expect(order).toHaveLength(3);
  });

  it("keeps going after a failing step and reports every failure", async () => {
    const order: string[] = [];
    const s = new DisposableStack();
    s.defer("first", async () => void order.push("first"));
    s.defer("broken", async () => {
      throw new Error("boom");
    });
    s.defer("last", async () => void order.push("last"));
    expect(await s.dispose()).toEqual(["broken: boom"]);
    expect(order).toEqual(["last", "first"]);
  });

  it("an early-run step is removed from the stack and runs only once", async () => {
    let n = 0;
    const s = new DisposableStack();
    const early = s.defer("x", async () => void n++);
    await early();
    await early();
    await s.dispose();
    expect(n).toBe(1);
    expect(s.size).toBe(0);
  });

  it("supports await using", async () => {
    let disposed = false;
    {
      await using s = new DisposableStack();
      s.defer("x", async () => void (disposed = true));
    }
    expect(disposed).toBe(true);
  });
});
