/** The fingerprint that says a resume is the same experiment (src/core/plan/fingerprint.ts). */
import { describe, expect, it } from "vitest";
import { scenarioFingerprint } from "../../../src/core/plan/fingerprint.ts";
import { scenario } from "../../support/scenario.ts";

describe("scenarioFingerprint", () => {
  const s = scenario();
  const cnf = "[mysqld]\nskip-name-resolve\n";
  const pins = { "mariadb-11.8": "sha256:aa" };
  const fp = scenarioFingerprint(s, cnf, pins);

  it("is 16 hex digits, the same for the same inputs", () => {
    expect(fp).toMatch(/^[0-9a-f]{16}$/);
    expect(scenarioFingerprint(scenario(), cnf, { "mariadb-11.8": "sha256:aa" })).toBe(fp);
  });

  it("does not depend on the order of keys (canonical JSON)", () => {
    const reordered = Object.fromEntries(Object.entries(s).reverse()) as typeof s;
    expect(scenarioFingerprint(reordered, cnf, pins)).toBe(fp);
  });

  it("changes with the scenario, the neutral config or the pins", () => {
    const other = scenario((d) => (d.workload.threads = [1, 2]));
    expect(scenarioFingerprint(other, cnf, pins)).not.toBe(fp);
    expect(scenarioFingerprint(s, cnf + "# x\n", pins)).not.toBe(fp);
    expect(scenarioFingerprint(s, cnf, { "mariadb-11.8": "sha256:bb" })).not.toBe(fp);
    expect(scenarioFingerprint(s, cnf)).not.toBe(fp);
  });
});
