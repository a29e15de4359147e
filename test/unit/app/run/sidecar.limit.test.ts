import { describe, expect, it } from "vitest";
import { CELL_MARGIN_SECONDS, cellLimitMs } from "../../../../src/app/run/sidecar.ts";

describe("cellLimitMs: how long a cell may run before it is stopped", () => {
  it("1.5 × its length plus a minute; a cell bounded by events or of no set length gets an hour", () => {
    expect(CELL_MARGIN_SECONDS).toBe(60);
    expect(cellLimitMs(5, undefined, {})).toBe(67_500);
    expect(cellLimitMs(300, undefined, {})).toBe(510_000);
    expect(cellLimitMs(5, 400, {})).toBe(3_600_000);
    expect(cellLimitMs(undefined, undefined, {})).toBe(3_600_000);
  });

  it("TWINBENCH_CELL_MARGIN sets the margin (a duration); empty is the default", () => {
    expect(cellLimitMs(5, undefined, { TWINBENCH_CELL_MARGIN: "10s" })).toBe(17_500);
    expect(cellLimitMs(5, undefined, { TWINBENCH_CELL_MARGIN: "8" })).toBe(15_500);
    expect(cellLimitMs(5, undefined, { TWINBENCH_CELL_MARGIN: " " })).toBe(67_500);
    expect(cellLimitMs(5, 400, { TWINBENCH_CELL_MARGIN: "10s" })).toBe(3_600_000);
  });

  it("a margin that is no duration is refused, naming the value", () => {
    expect(() => cellLimitMs(5, undefined, { TWINBENCH_CELL_MARGIN: "soon" })).toThrow(
      expect.objectContaining({
        code: "CLI_OPTION_INVALID",
        message: expect.stringContaining('TWINBENCH_CELL_MARGIN="soon"'),
      }),
    );
  });
});
