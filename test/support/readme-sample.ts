/**
 * The README's sample output: the text report of the committed quick.yaml results fixture
 * (test/fixtures/results/quick), as `twinbench report` prints it on a host with no earlier runs. The README holds it
 * between two marker lines; `npx tsx scripts/readme-sample.ts` rewrites it there, and
 * test/unit/house/readme.test.ts fails when the README's copy is not what the code prints today.
 */
import { buildRunReport } from "../../src/core/report/model.ts";
import { renderText } from "../../src/core/report/text.ts";
import { load } from "./results-fixture.ts";

export const SAMPLE_START = "<!-- sample: npx tsx scripts/readme-sample.ts rewrites this block -->";
export const SAMPLE_END = "<!-- end of sample -->";

/** The sample text: the first screen of the fixture's report. */
export function readmeSample(): string {
  const { manifest, cells } = load("quick");
  // history: [] stands for a host with no earlier runs, as on a first run.
  return renderText(buildRunReport(manifest, cells, { history: [] })).trimEnd();
}

/** The README with its sample block replaced by today's sample. */
export function withSample(readme: string): string {
  const a = readme.indexOf(SAMPLE_START);
  const b = readme.indexOf(SAMPLE_END);
  if (a < 0 || b < a) throw new Error(`README.md has no sample block (${SAMPLE_START} … ${SAMPLE_END})`);
  return `${readme.slice(0, a)}${SAMPLE_START}\n\n\`\`\`text\n${readmeSample()}\n\`\`\`\n\n${readme.slice(b)}`;
}
