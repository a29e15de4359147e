/** Numeric CLI options of `run` are bounded: NaN, zero, negative and out-of-range values are refused. */
import { describe, expect, it } from "vitest";
import { parseReadyTimeoutMs } from "../../../../src/cli/commands/run-options.ts";
import { InputError } from "../../../../src/core/base/errors.ts";

describe("numeric CLI options", () => {
  it("--ready-timeout: NaN, zero, negative and past a day are refused; seconds become ms", async () => {
    for (const bad of ["abc", "", "0", "-5", "NaN", "Infinity", "86401"]) {
      let err: unknown;
      try {
        parseReadyTimeoutMs(bad);
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(InputError);
      expect((err as InputError).code).toBe("CLI_OPTION_INVALID");
      expect((err as InputError).message).toContain(`--ready-timeout ${JSON.stringify(bad)}`);
    }
    expect(parseReadyTimeoutMs(undefined)).toBe(180_000);
    expect(parseReadyTimeoutMs("2.5")).toBe(2500);
  });
});
