#!/usr/bin/env node
// Fail when any test did not run. Reads the lists test/skip-reporter.ts wrote (TWINBENCH_SKIPS_FILE), prints each
// skipped test and why, and exits 1 when there is one; exits 2 when a list is missing or unreadable (the suite
// never reached its end, so what ran is unknown). .ci/run calls it after each vitest suite.
// Usage: node scripts/check-skips.mjs LIST.json...
import { readFileSync } from "node:fs";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node scripts/check-skips.mjs LIST.json...");
  process.exit(2);
}
let skipped = 0;
let unreadable = 0;
for (const f of files) {
  let list;
  try {
    list = JSON.parse(readFileSync(f, "utf8"));
    if (!Array.isArray(list)) throw new Error("not a JSON array");
  } catch (e) {
    console.error(
      `check-skips: cannot read the skip list ${f}: ${e.message} (did the vitest run reach its end with test/skip-reporter.ts?)`,
    );
    unreadable++;
    continue;
  }
  for (const s of list) {
    console.error(`SKIPPED  ${s.file} > ${s.test}\n         why: ${s.reason}`);
    skipped++;
  }
}
if (unreadable > 0) process.exit(2);
if (skipped > 0) {
  console.error(
    `check-skips: ${skipped} test(s) did not run; CI needs every test to run on this machine (install what is missing, or fix the test)`,
  );
  process.exit(1);
}
console.log(`check-skips: no skipped tests (${files.join(", ")})`);
