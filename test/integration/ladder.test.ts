/**
 * A version ladder against real servers: three servers, compare: { base }, fixed repeats on two fresh
 * instances. Cheap: one 1-thread cell of 2 s, 3 repeats, tiny tables. A pair that outside work disturbed is left out of
 * its estimate (its cells' interference flags in cells.jsonl say which): each pair's block counts the clean pairs, and
 * has an interval and a verdict when 2 or more are clean (with one pair left out, it still has).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { CellRecord, RunManifest } from "../../src/core/model/results.ts";
import { ensureLab, leftovers, tinyScenario, twinbench } from "./support/lab.ts";

beforeAll(ensureLab, 1_800_000);

describe("a three-server ladder", () => {
  it(
    "runs every server in every group, restarts every server for its second instance, and reports one JSON block per pair",
    { timeout: 900_000 },
    async () => {
      const { file, dir } = await tinyScenario(
        {
          servers: [
            { id: "mariadb-10-11", image: "mariadb-10.11" },
            { id: "mariadb-11-8", image: "mariadb-11.8" },
            { id: "mysql", image: "mysql-9.7" },
          ],
          compare: { base: "mysql" },
        },
        { repeats: 3, instances: 2 },
      );
      const out = join(dir, "out");
      const r = await twinbench(["run", file, "--out", out, "--json-events"]);
      expect(r.exitCode, r.all).toBe(0);

      const manifest = JSON.parse(await readFile(join(out, "run.json"), "utf8")) as RunManifest;
      const cells = (await readFile(join(out, "cells.jsonl"), "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as CellRecord);
      const measured = cells.filter((c) => c.phase === "measure" && c.status === "ok");
      expect(measured).toHaveLength(9);
      for (const repeat of [1, 2, 3])
        expect(new Set(measured.filter((c) => c.repeat === repeat).map((c) => c.server)).size).toBe(3);
      // Both instances ran on every server.
      for (const server of ["mariadb-10-11", "mariadb-11-8", "mysql"])
        expect(new Set(measured.filter((c) => c.server === server).map((c) => c.instance)), server).toEqual(
          new Set([0, 1]),
        );
      // Three different first servers over the three groups (the rows of the design).
      const firsts = [1, 2, 3].map((repeat) => manifest.cells.find((c) => c.repeat === repeat)!.server);
      expect(new Set(firsts).size).toBe(3);

      const json = JSON.parse(await readFile(join(out, "report.json"), "utf8"));
      expect(json.numerator).toBe("mariadb-10-11");
      expect(json.denominator).toBe("mysql");
      expect(
        json.ladder.pairs.map((p: { numerator: string; denominator: string }) => `${p.numerator}/${p.denominator}`),
      ).toEqual(["mariadb-10-11/mysql", "mariadb-11-8/mysql"]);
      const disturbed = (server: string, repeat: number) =>
        measured.find((c) => c.server === server && c.repeat === repeat)!.interference?.disturbed === true;
      for (const p of json.ladder.pairs) {
        const c = p.rows[0].cells[0];
        expect(c.status).toBe("ok");
        const clean = [1, 2, 3].filter((r) => !disturbed(p.numerator, r) && !disturbed(p.denominator, r));
        expect(c.n, `${p.numerator}/${p.denominator}: the undisturbed pairs`).toBe(clean.length);
        if (c.n >= 2) {
          expect(c.low).toEqual(expect.any(Number));
          expect(c.high).toBeGreaterThan(c.low);
          expect(c.verdict).not.toBe("unknown");
          expect(c.q).toEqual(expect.any(Number));
        } else {
          expect([c.low, c.high, c.verdict]).toEqual([null, null, "unknown"]);
        }
      }
      expect(await leftovers(manifest.runId)).toEqual({ containers: [], networks: [], volumes: [] });
    },
  );
});
