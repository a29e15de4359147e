import type { Calibration } from "../../src/core/plan/calibration/schema.ts";

/**
 * A host calibration for unit tests: a 2-CPU test host measured with quick.yaml's 7 s cells, pair sd
 * 10% (df 20), instance sd 4% (df 2), no per-second series. `defaults` are a test file's own figures; `over` a case's.
 */
export const calibrationFixture =
  (defaults: Partial<Calibration> = {}) =>
  (over: Partial<Calibration> = {}): Calibration => ({
    version: 1,
    hostKey: "test-host",
    hostFacts: { cpus: "2" },
    measuredAt: "2026-12-01T00:00:00.000Z",
    updatedAt: "2026-12-01T00:00:00.000Z",
    scenario: "scenarios/quick.yaml",
    cellSeconds: 7,
    perSecond: null,
    pairSdPct: 10,
    pairDf: 20,
    instanceSdPct: 4,
    instanceDf: 2,
    secondsPerPair: 18,
    updates: 0,
    ...defaults,
    ...over,
  });
