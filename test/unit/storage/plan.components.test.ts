/** Path components (safeComponent in src/core/storage/plan.ts) never name `.` or `..`. */
import { describe, expect, it } from "vitest";
import { safeComponent } from "../../../src/core/storage/plan.ts";

describe("path components", () => {
  it.each([
    ["..", "__"],
    [".", "_"],
    ["", "_"],
    ["../x", "___x"],
    [".hidden", "_hidden"],
    ["20261206-170000-ab12", "20261206-170000-ab12"],
    ["a.b", "a.b"],
  ])("%j → %j", (s, want) => {
    expect(safeComponent(s)).toBe(want);
  });
});
