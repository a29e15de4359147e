import { describe, expect, it } from "vitest";
import {
  CancelledError,
  InputError,
  TwinbenchError,
  formatError,
  isTwinbenchError,
} from "../../../src/core/base/errors.ts";

describe("error classes", () => {
  it.each([
    ["TwinbenchError", new TwinbenchError("m", { code: "SYSBENCH_PARSE" }), "TwinbenchError", "SYSBENCH_PARSE", 1],
    ["InputError", new InputError("m", { code: "TWINS_NEED_TWO" }), "InputError", "TWINS_NEED_TWO", 2],
    ["CancelledError", new CancelledError(), "CancelledError", "CANCELLED", 130],
  ] as const)("%s carries its name, code and exit code", (_, e, name, code, exitCode) => {
    expect(e.name).toBe(name);
    expect(e.code).toBe(code);
    expect(e.exitCode).toBe(exitCode);
    expect(e).toBeInstanceOf(Error);
    expect(isTwinbenchError(e)).toBe(true);
  });

  it("keeps hint, details and cause, and defaults details and problems to empty", () => {
    const cause = new Error("root");
    const e = new TwinbenchError("m", { code: "SYSBENCH_PARSE", hint: "h", details: ["d1"], cause });
    expect([e.hint, e.details, e.cause]).toEqual(["h", ["d1"], cause]);
    const bare = new InputError("m", { code: "TWINS_NEED_TWO" });
    expect([bare.details, bare.problems, bare.hint, "cause" in bare]).toEqual([[], [], undefined, false]);
  });

  it("a cancel has the default message", () => {
    expect(new CancelledError().message).toBe("cancelled by the user");
    expect(new CancelledError("stopped by q").message).toBe("stopped by q");
  });

  it.each([new Error("x"), "text", undefined, { code: "SYSBENCH_PARSE" }])("%s is not a twinbench error", (e) => {
    expect(isTwinbenchError(e)).toBe(false);
  });
});

describe("formatError", () => {
  it.each([
    [
      "an input error with problems, details and hint",
      new InputError("scenario is invalid", {
        code: "TWINS_NEED_TWO",
        problems: ["a.yaml: servers: need two"],
        details: ["more"],
        hint: "add a server",
      }),
      "error [TWINS_NEED_TWO]: scenario is invalid\n  a.yaml: servers: need two\n  more\nhint: add a server",
    ],
    ["an input error without hint", new InputError("bad", { code: "TWINS_NEED_TWO" }), "error [TWINS_NEED_TWO]: bad"],
    [
      "a twinbench error with details and hint",
      new TwinbenchError("parse failed", { code: "SYSBENCH_PARSE", details: ["line 3"], hint: "see the log" }),
      "error [SYSBENCH_PARSE]: parse failed\n  line 3\nhint: see the log",
    ],
    ["a cancel", new CancelledError(), "error [CANCELLED]: cancelled by the user"],
  ])("%s", (_, e, want) => {
    expect(formatError(e)).toBe(want);
  });

  it.each([
    ["an Error", new Error("boom"), "boom"],
    ["a string", "plain", "plain"],
  ])("%s is an internal error that asks for a report", (_, e, text) => {
    const out = formatError(e);
    expect(out.startsWith("internal error (a twinbench bug, please report it): ")).toBe(true);
    expect(out).toContain(text);
  });
});
