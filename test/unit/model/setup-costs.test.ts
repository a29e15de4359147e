/** The default costs are a data table; what can be checked is that each one is a usable, positive figure. */
import { describe, expect, it } from "vitest";
import { DEFAULT_SETUP_COSTS } from "../../../src/core/model/setup-costs.ts";

describe("DEFAULT_SETUP_COSTS", () => {
  it.each(Object.entries(DEFAULT_SETUP_COSTS))("%s is a positive finite number", (_, v) => {
    expect(Number.isFinite(v) && v > 0).toBe(true);
  });

  it.each([
    ["prepareRowsPerSecond", 130000],
    ["instanceRestartSeconds", 6],
    ["instanceRestartSecondsPerMillionRows", 5.25],
    ["cellOverheadSeconds", 1],
  ] as const)("%s is %d, as measured", (key, want) => {
    expect(DEFAULT_SETUP_COSTS[key]).toBe(want);
  });
});
