/** events.ts is the run's event types; its one value is how often a long step reports progress. */
import { describe, expect, expectTypeOf, it } from "vitest";
import { PROGRESS_EVERY_SECONDS, type RunEvent, type RunEventType } from "../../../src/core/model/events.ts";

describe("events", () => {
  it("a long step reports progress well inside the 10 s a plain log may stay silent", () => {
    expect(PROGRESS_EVERY_SECONDS).toBeGreaterThan(0);
    expect(PROGRESS_EVERY_SECONDS * 2).toBeLessThanOrEqual(10);
  });

  it("an event's type names it", () => {
    expectTypeOf<"plan-ready">().toExtend<RunEventType>();
    expectTypeOf<Extract<RunEvent, { type: "plan-ready" }>["runId"]>().toEqualTypeOf<string>();
  });
});
