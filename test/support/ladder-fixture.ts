/**
 * A three-server run built by hand from the `repeats` fixture (test/fixtures/results/repeats): mariadb and mysql as
 * recorded there, plus a third server `mariadb-10` with the q/s below, planned and recorded like the other two.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCellsJsonl } from "../../src/adapters/report-files.ts";
import type { CellRecord, RunManifest } from "../../src/core/model/results.ts";
import type { LadderPair } from "../../src/core/stats/ladder.ts";

const FIX = join(import.meta.dirname, "../fixtures/results");

function load(name: string): { manifest: RunManifest; cells: CellRecord[] } {
  const manifest = JSON.parse(readFileSync(join(FIX, name, "run.json"), "utf8")) as RunManifest;
  return { manifest, cells: parseCellsJsonl(readFileSync(join(FIX, name, "cells.jsonl"), "utf8")).cells };
}

/** q/s of the third server per test|threads and repeat; a cell not listed is not measured. */
export const MARIADB_10: Record<string, number[]> = {
  "oltp_read_only|1": [950, 960, 955], // against mysql's 1000 ×3: slower, about 95.5
  "oltp_read_only|4": [1000, 1011, 989], // mysql 1000, 1010, 990: the same
  "oltp_read_only|8": [1010, 1000, 990], // mysql 1000 ×3
  "oltp_point_select|1": [1200, 1210, 1190], // mysql 1000 ×3: faster, about 120
  "oltp_point_select|4": [2000, 2000, 2000], // mysql failed here: the cell fails
};

/** A three-server run: the repeats fixture plus `mariadb-10`, whose q/s are `MARIADB_10` times `scale`. */
export function ladderRun(
  runId: string,
  scale: (test: string, threads: number, repeat: number) => number = () => 1,
): { manifest: RunManifest; cells: CellRecord[] } {
  const { manifest, cells } = load("repeats");
  const m = structuredClone(manifest);
  m.runId = runId;
  m.scenario.servers.push({
    id: "mariadb-10",
    image: "twinbench/mariadb:10.11",
  } as (typeof m.scenario.servers)[number]);
  m.servers.push({
    ...structuredClone(m.servers[0]!),
    id: "mariadb-10",
    image: "twinbench/mariadb:10.11",
    version: "10.11.19-MariaDB",
    packageVersion: "1:10.11.19+ds-1",
  });
  // The plan: the third server's cells beside the others', as a three-server run plans them.
  const planned = m.cells.filter((c) => c.server === "mariadb");
  m.cells.push(
    ...planned.map((c, i) => ({
      ...c,
      index: m.cells.length + i,
      server: "mariadb-10",
      key: c.key.replace(/^mariadb\//, "mariadb-10/"),
    })),
  );
  const third: CellRecord[] = [];
  for (const r of cells.filter((c) => c.server === "mariadb")) {
    const qps = MARIADB_10[`${r.test}|${r.threads}`]?.[r.repeat - 1];
    if (qps === undefined && r.phase !== "warmup") continue;
    const c = structuredClone(r);
    c.server = "mariadb-10";
    c.key = r.key.replace(/^mariadb\//, "mariadb-10/");
    if (c.metrics && qps !== undefined) c.metrics.qps = Number((qps * scale(r.test, r.threads, r.repeat)).toFixed(2));
    c.status = "ok";
    if (c.metrics === null) continue;
    third.push(c);
  }
  return { manifest: m, cells: [...cells, ...third] };
}

export const PAIRS: LadderPair[] = [
  { numerator: "mariadb", denominator: "mysql" },
  { numerator: "mariadb-10", denominator: "mysql" },
];
