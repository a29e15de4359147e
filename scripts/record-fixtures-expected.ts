/**
 * Write `X.expected.json` next to every sysbench fixture X (test/fixtures/sysbench/{1.0,legacy}/*.{log,txt}), as
 * `twinbench parse --json X` prints it: one object for a one-output file, an array for a file with several.
 *
 *   npx tsx scripts/record-fixtures-expected.ts            # only fixtures without an expected file
 *   npx tsx scripts/record-fixtures-expected.ts --force    # all of them (after scripts/record-fixtures.sh)
 *
 * The files are golden data: review the diff by hand against the log before committing it; the unit tests
 * (test/unit/model/sysbench/parse.test.ts) also cross-check every printed number against the JSON independently.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseSysbenchFile } from "../src/core/model/sysbench/parse.ts";

const root = join(import.meta.dirname, "..", "test", "fixtures", "sysbench");
const force = process.argv.includes("--force");
for (const dir of ["1.0", "legacy"]) {
  for (const name of readdirSync(join(root, dir)).sort()) {
    if (!/\.(log|txt)$/.test(name) || name === "VERSIONS.txt") continue;
    const target = join(root, dir, name.replace(/\.(log|txt)$/, ".expected.json"));
    if (existsSync(target) && !force) continue;
    const results = parseSysbenchFile(readFileSync(join(root, dir, name), "utf8"));
    writeFileSync(target, JSON.stringify(results.length === 1 ? results[0] : results, null, 2) + "\n");
    console.log(`wrote ${target}`);
  }
}
