/** SysbenchParseError: a TwinbenchError with its code, the line in the message, a hint, and the line's text cut short. */
import { describe, expect, it } from "vitest";
import { TwinbenchError } from "../../../../src/core/base/errors.ts";
import { SysbenchParseError } from "../../../../src/core/model/sysbench/error.ts";

describe("SysbenchParseError", () => {
  it("names the line in its message and keeps it as a number", () => {
    const e = new SysbenchParseError(12, "expected an integer after 'read:', got 'x'", "        read: x");
    expect(e).toBeInstanceOf(TwinbenchError);
    expect(e.code).toBe("SYSBENCH_PARSE");
    expect(e.line).toBe(12);
    expect(e.message).toBe("line 12: expected an integer after 'read:', got 'x'");
    expect(e.hint).toMatch(/complete, unmodified output/);
    expect(e.details).toEqual(["> " + "        read: x"]);
  });

  it("a problem of the whole text has no line and no details", () => {
    const e = new SysbenchParseError(null, "the text is empty: no sysbench output");
    expect(e.line).toBeNull();
    expect(e.message).toBe("the text is empty: no sysbench output");
    expect(e.details).toEqual([]);
  });

  it("cuts the quoted line at 200 characters", () => {
    const e = new SysbenchParseError(1, "bad", "y".repeat(250));
    expect(e.details).toEqual([`> ${"y".repeat(200)}…`]);
  });
});
