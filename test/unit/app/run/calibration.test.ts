/** The calibration stages: read the host's calibration, announce the forecast it gives, fold the run's pairs in. */
import { describe, expect, it } from "vitest";
import { announceForecast, readHostCalibration, updateHostCalibration } from "../../../../src/app/run/calibration.ts";
import type { CalibrationStore } from "../../../../src/adapters/calibration-store.ts";
import type { RunDeps, RunOptions } from "../../../../src/app/run/types.ts";
import type { Calibration } from "../../../../src/core/plan/calibration/schema.ts";
import { NO_CALIBRATION } from "../../../../src/core/plan/forecast.ts";
import type { DesignForecast } from "../../../../src/core/model/results.ts";
import { calibrationFixture } from "../../../support/calibration-fixture.ts";
import { load } from "../../../support/results-fixture.ts";
import { memorySession, stageContext } from "../../../support/run-context.ts";
import { scenario, SERVERS_AB } from "../../../support/scenario.ts";

const cal = calibrationFixture()();

/** A calibration store in memory, counting reads and writes; `fail` makes reads fail. */
function memoryStore(initial: Calibration | null, fail?: Error) {
  const state = { cal: initial, reads: 0, written: [] as Calibration[] };
  const store: CalibrationStore = {
    read: async () => {
      state.reads++;
      if (fail) throw fail;
      return { key: "fake-host", facts: { id: "local", cpus: 2 } as never, calibration: state.cal };
    },
    write: async (c) => {
      state.written.push(c);
      state.cal = c;
      return "/fake/fake-host.json";
    },
  };
  return { state, store };
}

/** A remote engine: the host calibration belongs to the local machine only. */
const remote = (deps: Partial<RunDeps>) => {
  const { engine } = stageContext();
  return { ...deps, engine: Object.assign(Object.create(engine) as object, { hostId: "remote" }) } as Partial<RunDeps>;
};

describe("readHostCalibration", () => {
  it.each([
    ["a stored calibration", memoryStore(cal), false, cal, 1, []],
    ["none yet", memoryStore(null), false, null, 1, []],
    [
      "a read that fails: a warning",
      memoryStore(cal, new Error("bad json")),
      false,
      null,
      1,
      ["could not read the host's calibration (the run forecasts from its own pairs instead): bad json"],
    ],
    ["a remote engine: not read", memoryStore(cal), true, null, 0, []],
  ])("%s", async (_, m, isRemote, want, reads, warned) => {
    const deps = { calibrations: m.store };
    const { ctx, warnings } = stageContext({ deps: isRemote ? remote(deps) : deps });
    expect(await readHostCalibration(ctx)).toBe(want);
    expect(m.state.reads).toBe(reads);
    expect(warnings()).toEqual(warned);
  });

  it("no store: nothing read", async () => {
    expect(await readHostCalibration(stageContext().ctx)).toBeNull();
  });
});

describe("announceForecast", () => {
  const adaptive = (servers = SERVERS_AB) =>
    scenario({
      servers,
      workload: {
        tests: ["oltp_point_select"],
        threads: [1],
        duration: "7s",
        repeats: { min: 2, max: 6, precision: "3%" },
      },
    });

  it.each([
    ["no calibration", adaptive(), null, NO_CALIBRATION],
    [
      "three servers",
      adaptive([...SERVERS_AB, { id: "c", image: "mariadb-10.11" }]),
      cal,
      "no forecast: the forecast models a run of two servers",
    ],
  ])("an adaptive run with %s: a forecast event without one, and why, kept in run.json", (_, s, c, why) => {
    const { ctx, events } = stageContext({ scenario: s });
    const { session, state } = memorySession();
    announceForecast(ctx, session, c);
    expect(events).toEqual([{ type: "forecast", at: expect.any(String), forecast: null, note: why }]);
    expect(state.manifest.forecast).toEqual({ forecasts: [], none: why });
  });

  it("an adaptive run with a calibration: the forecast before the run, kept in run.json", () => {
    const { ctx, events } = stageContext({ scenario: adaptive() });
    const { session, state } = memorySession();
    announceForecast(ctx, session, cal);
    const ev = events.find((e) => e.type === "forecast");
    expect(ev?.type === "forecast" && ev.forecast).toMatchObject({ stage: "before", source: "calibration" });
    expect(state.manifest.forecast?.forecasts).toEqual([ev?.type === "forecast" && ev.forecast]);
  });

  it.each([
    ["a fixed-count run", {}],
    ["an identity-only run", { identityOnly: true }],
  ] as Array<[string, Partial<RunOptions>]>)("%s: no forecast", (name, opts) => {
    const { ctx, events } = stageContext({ scenario: name.startsWith("a fixed") ? scenario() : adaptive(), opts });
    const { session, state } = memorySession();
    announceForecast(ctx, session, cal);
    expect(events).toEqual([]);
    expect(state.manifest.forecast).toBeUndefined();
  });

  it("a designed run keeps the design's forecast; a resumed one keeps the one it had", () => {
    const design = { note: "the design" } as unknown as DesignForecast;
    const first = stageContext({ opts: { design } });
    const fresh = memorySession();
    announceForecast(first.ctx, fresh.session, null);
    expect(fresh.state.manifest.forecast).toEqual({ forecasts: [], design });
    const kept = { note: "recorded" } as unknown as DesignForecast;
    const resumed = memorySession({ forecast: { forecasts: [], design: kept } });
    announceForecast(first.ctx, resumed.session, null);
    expect(resumed.state.manifest.forecast?.design).toBe(kept);
  });
});

describe("updateHostCalibration", () => {
  const { manifest, cells } = load("repeats");

  it.each([
    ["no calibration yet: the run makes the host's first", null, true],
    ["a calibration: the run's pairs are folded into it", cal, false],
  ])("%s", async (_, initial, made) => {
    const m = memoryStore(initial);
    const { ctx, events, warnings } = stageContext({ scenario: manifest.scenario, deps: { calibrations: m.store } });
    await updateHostCalibration(ctx, memorySession(manifest, cells).session);
    expect(m.state.written).toHaveLength(1);
    const next = m.state.written[0]!;
    const ev = events.find((e) => e.type === "calibration-updated");
    expect(ev).toMatchObject({ file: "/fake/fake-host.json", made, pairSdPct: next.pairSdPct, pairDf: next.pairDf });
    expect(next.hostKey).toBe(made ? "fake-host" : cal.hostKey);
    if (!made) expect(next.pairDf).toBeGreaterThan(cal.pairDf);
    expect(next.pairSdPct).toBeGreaterThan(0);
    expect(warnings()).toEqual([]);
  });

  it.each([
    ["--no-update-calibration", { updateCalibration: false }, cells],
    ["an identity-only run", { identityOnly: true }, cells],
    ["no cells", {}, []],
  ] as Array<[string, Partial<RunOptions>, typeof cells]>)("%s: nothing written", async (_, opts, recs) => {
    const m = memoryStore(null);
    const { ctx, events } = stageContext({ scenario: manifest.scenario, deps: { calibrations: m.store }, opts });
    await updateHostCalibration(ctx, memorySession(manifest, recs).session);
    expect(m.state.written).toEqual([]);
    expect(events).toEqual([]);
  });

  it("a store that fails is a warning, not a failed run", async () => {
    const m = memoryStore(null, new Error("read-only file system"));
    const { ctx, warnings } = stageContext({ scenario: manifest.scenario, deps: { calibrations: m.store } });
    await expect(updateHostCalibration(ctx, memorySession(manifest, cells).session)).resolves.toBeUndefined();
    expect(warnings()).toEqual(["could not update the host's calibration: read-only file system"]);
  });
});
