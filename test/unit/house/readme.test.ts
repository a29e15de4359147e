/**
 * The README a newcomer reads: at most 250 lines, in the order the project promises (pitch and sample, quick start,
 * reading the table, scenarios, commands, library, troubleshooting, the docs), the two quick-start commands as CI
 * runs them, a sample output that is what the code prints today, and links that resolve.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { readmeSample, withSample } from "../../support/readme-sample.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const readme = readFileSync(join(ROOT, "README.md"), "utf8");

/** Relative link targets (without anchors) of a Markdown file, resolved against its folder. */
function links(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((m) => m[1]!)
    .filter((l) => !/^[a-z]+:/.test(l))
    .map((l) => join(dirname(join(ROOT, file)), l));
}

describe("README", () => {
  it("is at most 250 lines", () => expect(readme.trimEnd().split("\n").length).toBeLessThanOrEqual(250));

  it("its sections come in the promised order", () => {
    const heads = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(heads).toEqual([
      "Quick start",
      "Reading the table",
      "Scenarios",
      "The commands",
      "The library",
      "Troubleshooting",
      "Documentation",
    ]);
    expect(readme.indexOf("```text")).toBeLessThan(readme.indexOf("## Quick start"));
  });

  it("keeps the two commands exactly", () => {
    expect(readme).toContain(
      "npm ci && npx twinbench doctor --fix && npx twinbench run   # set up the host, build the images, run scenarios/quick.yaml",
    );
    expect(readme).toContain("npm ci && npm test ");
  });

  it("its sample output is what the code prints today (npx tsx scripts/readme-sample.ts rewrites it)", () => {
    expect(withSample(readme)).toBe(readme);
    const sample = readmeSample().split("\n");
    expect(sample.length).toBeLessThanOrEqual(40);
    for (const l of sample) expect(l.length).toBeLessThanOrEqual(120);
  });

  it("every relative link of the README and the docs resolves", () => {
    const files = ["README.md", "docs/reference.md", "docs/history-of-measurements.md", "docs/bench.md"];
    const missing = files.flatMap((f) =>
      links(f)
        .filter((p) => !existsSync(p))
        .map((p) => `${f} → ${p}`),
    );
    expect(missing).toEqual([]);
  });
});
