/** A YAML alias bomb in a scenario file is refused as SCENARIO_INVALID, not an internal error. */
import { describe, expect, it } from "vitest";
import { loadScenarioText } from "../../../src/adapters/scenario-file.ts";
import { InputError } from "../../../src/core/base/errors.ts";

const F = "scenarios/x.yaml";

describe("a YAML alias bomb", () => {
  it("is SCENARIO_INVALID, not an internal error", () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    let prev = "a";
    for (const n of "bcdefghi") {
      lines.push(`${n}: &${n} [${Array(9).fill(`*${prev}`).join(",")}]`);
      prev = n;
    }
    let err: unknown;
    try {
      loadScenarioText(lines.join("\n"), F, { lockImages: ["mariadb-11.8", "mysql-9.7"] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).code).toBe("SCENARIO_INVALID");
    expect((err as InputError).problems[0]).toMatch(
      /^scenarios\/x\.yaml: Excessive alias count .* \(more than 100 alias expansions\)$/,
    );
  });
});
