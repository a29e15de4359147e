/** The custom scripts stage: what run.json keeps of them, and a resume that refuses a changed script. */
import { describe, expect, it } from "vitest";
import { assertSameScripts, readRunScripts, scriptRecords } from "../../../../src/app/run/scripts.ts";
import type { LoadedScript } from "../../../../src/core/model/scenario/custom.ts";
import { scenario } from "../../../support/scenario.ts";

const s: LoadedScript = {
  test: "mix",
  path: "mix.lua",
  writes: true,
  main: "mix.lua",
  files: [{ rel: "mix.lua", content: "function event() end" }],
  sha256: "a".repeat(64),
};

describe("custom scripts in a run", () => {
  it("a scenario without custom tests reads none", async () => {
    expect(await readRunScripts({ scenario: scenario() })).toEqual([]);
  });

  it("run.json keeps each script by its test name", () => {
    const r = scriptRecords([s]);
    expect(Object.keys(r)).toEqual(["mix"]);
    expect(r.mix).toMatchObject({ sha256: s.sha256 });
  });

  it("a resume with the same script goes on; a changed one is refused, naming the test and the old hash", () => {
    const session = { dir: "/r", manifest: { customScripts: scriptRecords([s]) } };
    expect(() => assertSameScripts(session, [s])).not.toThrow();
    expect(() => assertSameScripts(session, [{ ...s, sha256: "b".repeat(64) }])).toThrow(
      /cannot resume \/r: custom test mix \(mix\.lua\) changed since the run began/,
    );
  });
});
