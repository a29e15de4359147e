/** The config entry only re-exports its modules' public names: each one it exposes is the defining module's own. */
import { describe, expect, it } from "vitest";
import * as index from "../../../src/core/config/index.ts";
import * as cnf from "../../../src/core/config/cnf.ts";
import * as dialect from "../../../src/core/config/dialect.ts";
import * as dialectRules from "../../../src/core/config/dialect-rules.ts";
import * as mustmatch from "../../../src/core/config/mustmatch.ts";
import * as render from "../../../src/core/config/render.ts";
import * as startlog from "../../../src/core/config/startlog.ts";
import * as version from "../../../src/core/config/version.ts";

const EXPOSED: Array<[string, Record<string, unknown>, string[]]> = [
  ["cnf", cnf, ["parseCnf", "parseVariablesTsv", "normalizeOptionName", "formatCnfLine"]],
  ["dialect", dialect, ["DIALECT_TABLE", "EXCLUSIVE_GROUPS", "SUPPORTED_FROM", "dialectOption", "findRule"]],
  ["dialect-rules", dialectRules, ["derivedMaxConnections", "formatSize", "onOff"]],
  ["render", render, ["renderConfig", "PROFILES"]],
  [
    "mustmatch",
    mustmatch,
    ["mustMatch", "unexpectedDifferences", "diffVariables", "MUST_MATCH_ROWS", "VOLATILE_VARIABLES"],
  ],
  ["version", version, ["parseVersion", "compareVersions", "inRange", "formatVersion"]],
  ["startlog", startlog, ["findRefusedOption", "startFailureTail"]],
];

describe("config index", () => {
  it.each(EXPOSED)("exposes %s's names as the same values", (_, mod, names) => {
    for (const name of names) {
      expect(mod[name], name).toBeDefined();
      expect((index as Record<string, unknown>)[name], name).toBe(mod[name]);
    }
  });

  it("exposes exactly those names", () => {
    expect(Object.keys(index).sort()).toEqual(EXPOSED.flatMap(([, , n]) => n).sort());
  });
});
