/** The recorded run folders of test/fixtures/results (run.json and cells.jsonl) and their golden reports. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCellsJsonl } from "../../src/adapters/report-files.ts";
import type { CellRecord, RunManifest } from "../../src/core/model/results.ts";

const FIX = join(import.meta.dirname, "../fixtures/results");

/** The manifest and records of test/fixtures/results/<name>. */
export function load(name: string): { manifest: RunManifest; cells: CellRecord[] } {
  const manifest = JSON.parse(readFileSync(join(FIX, name, "run.json"), "utf8")) as RunManifest;
  const { cells } = parseCellsJsonl(readFileSync(join(FIX, name, "cells.jsonl"), "utf8"));
  return { manifest, cells };
}

/** A golden report file of test/fixtures/results/golden. */
export const golden = (f: string) => readFileSync(join(FIX, "golden", f), "utf8");
