/**
 * Rewrites the README's sample output from the committed quick.yaml results fixture (test/support/readme-sample.ts).
 * Run: `npx tsx scripts/readme-sample.ts`. test/unit/house/readme.test.ts fails when the README's copy is stale.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { withSample } from "../test/support/readme-sample.ts";

const file = new URL("../README.md", import.meta.url);
writeFileSync(file, withSample(readFileSync(file, "utf8")));
