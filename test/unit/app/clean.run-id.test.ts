/** `twinbench clean --run ""` (src/app/clean.ts): an empty run id is refused, never read as every run. */
import { describe, expect, it } from "vitest";
import { cleanResources } from "../../../src/app/clean.ts";
import { LABEL } from "../../../src/core/base/labels.ts";
import { FakeEngine } from "../../../test/support/fake-engine.ts";

describe("clean", () => {
  it.each([[""], ["  "]])(
    "refuses an empty --run %j before it lists anything (it would read as every run)",
    async (id) => {
      const engine = new FakeEngine("local");
      engine.listed = [{ kind: "container", id: "c1", name: "c1", labels: { [LABEL.session]: "s", [LABEL.run]: "r" } }];
      // A listing would fail with another error: CLEAN_EMPTY_ID proves the refusal came before it.
      engine.listFailure = new Error("listed");
      await expect(cleanResources(engine, { runId: id })).rejects.toMatchObject({ code: "CLEAN_EMPTY_ID" });
      expect(engine.removed).toEqual([]);
    },
  );
});
