/** An exec's output is held only up to a bound; the rest is counted. */
import { describe, expect, it } from "vitest";
import { BoundedOutput } from "../../../../src/adapters/docker/exec.ts";

describe("BoundedOutput", () => {
  it("keeps the first bytes up to its bound and counts the rest", () => {
    const o = new BoundedOutput(10);
    o.push(Buffer.from("012345"));
    o.push(Buffer.from("6789abcd"));
    o.push(Buffer.from("efgh"));
    expect(o.text()).toBe("0123456789");
    expect(o.dropped).toBe(8);
  });
});
