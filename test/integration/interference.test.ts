/**
 * Interference against the real engine: a busy loop pinned to the server's CPU during one measured cell is seen
 * as outside work (the cell is flagged disturbed with an outsider reason), its pair is run once more, and the
 * report counts the re-run. Every measured cell carries the speed of the server's CPU. The machine may be shared, so only the injected cell's flag is asserted: other cells
 * may be disturbed by real outside work, and then re-run too.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { CellRecord, RunManifest } from "../../src/core/model/results.ts";
import { buildRunReport } from "../../src/core/report/model.ts";
import { renderText } from "../../src/core/report/text.ts";
import { ensureLab, events, leftovers, readCells, start, tinyScenario } from "./support/lab.ts";

beforeAll(ensureLab, 1_800_000);

describe("interference", () => {
  it(
    "a busy loop on the server's CPU during one cell: that cell is disturbed by outsiders, its pair is re-run, the report counts it",
    { timeout: 900_000 },
    async () => {
      // The server runs on CPU 1 (tinyScenario's resources): the loop competes with it there.
      const { file, dir } = await tinyScenario(
        {},
        {
          tables: 1,
          tableSize: 1000,
          tests: ["oltp_read_only"],
          threads: [1],
          duration: "3s",
          repeats: 2,
          rerunDisturbed: true,
        },
      );
      const out = join(dir, "out");
      const child = start(["run", file, "--out", out, "--json-events"]);
      let loop: ChildProcess | undefined;
      let injected: string | undefined;
      let buf = "";
      child.stdout!.on("data", (d: Buffer) => {
        buf += d.toString();
        const lines = buf.split("\n");
        buf = lines.pop() ?? "";
        for (const l of lines.filter((x) => x.startsWith("{"))) {
          const e = JSON.parse(l) as {
            type: string;
            phase?: string;
            cell?: { key: string; server: string; repeat: number };
          };
          if (
            e.type === "cell-started" &&
            e.phase === "measure" &&
            !injected &&
            e.cell!.server === "mysql" &&
            e.cell!.repeat === 1
          ) {
            injected = e.cell!.key;
            loop = spawn("taskset", ["-c", "1", "sh", "-c", "while :; do :; done"], { stdio: "ignore" });
          }
          if ((e.type === "cell-finished" || e.type === "cell-failed") && e.cell?.key === injected)
            loop?.kill("SIGKILL");
        }
      });
      let r: Awaited<typeof child>;
      try {
        r = await child;
      } finally {
        loop?.kill("SIGKILL");
      }
      expect(r.exitCode, r.all).toBe(0);
      expect(injected).toBeDefined();

      const cells = (await readCells(out)).filter((c) => c.phase === "measure");
      const attempts = (key: string) =>
        cells.filter((c) => c.key === key).sort((a, b) => (a.attempt ?? 1) - (b.attempt ?? 1));
      const hit = attempts(injected!)[0]!;
      expect(hit.status).toBe("ok");
      expect(hit.interference, JSON.stringify(hit)).toMatchObject({ disturbed: true });
      expect(hit.interference!.outsiderCores!).toBeGreaterThanOrEqual(0.1);
      expect(hit.interference!.reasons.join("; ")).toMatch(/outsiders used \d\.\d\d core/);
      // Every measured cell carries figures from the local engine, the speed of the server's CPU among them (the
      // probe samples CPU 1 four times a second: a 3 s cell has about 12 samples).
      for (const c of cells) {
        expect(c.interference, c.key).toMatchObject({
          outsiderCores: expect.any(Number),
          stealPct: expect.any(Number),
          cpuSpeed: { cpus: [1], workUs: expect.any(Number) },
        });
        expect(c.interference!.cpuSpeed!.samples, c.key).toBeGreaterThanOrEqual(6);
        expect(c.interference!.cpuSpeed!.workUs, c.key).toBeGreaterThan(0);
      }

      // The pair (mariadb r1, mysql r1) ran once more, same order, as second attempts of the same keys.
      const partnerKey = injected!.replace(/^mysql\//, "mariadb/");
      expect(attempts(injected!).map((c) => c.attempt)).toEqual([1, 2]);
      expect(attempts(partnerKey).map((c) => c.attempt)).toEqual([1, 2]);
      const order = cells.map((c) => `${c.key}#${c.attempt}`);
      expect(order.indexOf(`${partnerKey}#2`)).toBe(order.indexOf(`${injected}#1`) + 1);
      expect(order.indexOf(`${injected}#2`)).toBe(order.indexOf(`${partnerKey}#2`) + 1);
      expect(events(r.stdout)).toContainEqual(
        expect.objectContaining({
          type: "warning",
          message: expect.stringMatching(/t1 r1 was disturbed \(.*mysql: outsiders used.*running the pair once more/),
        }),
      );

      // The report counts the re-runs and names the disturbed cells it still uses.
      const manifest = JSON.parse(await readFile(join(out, "run.json"), "utf8")) as RunManifest;
      const report = buildRunReport(manifest, await readCells(out));
      expect(report.disturbance.reruns).toBeGreaterThanOrEqual(2);
      expect(report.disturbance.known).toBe(4);
      expect(report.retries).toBe(0);
      const used = new Map<string, CellRecord>();
      for (const c of cells) used.set(c.key, c);
      const stillDisturbed = [...used.values()].filter((c) => c.interference?.disturbed).length;
      expect(report.disturbance.disturbed).toBe(stillDisturbed);
      // The details, with the lines wrapped at 120 characters joined again.
      const text = renderText(report, { details: true }).replace(/\n +/g, " ");
      expect(text).toContain(`${stillDisturbed} of 4 measured cells were disturbed`);
      expect(text).toMatch(/\d+ cells were re-run because their pair was disturbed/);
      const json = JSON.parse(await readFile(join(out, "report.json"), "utf8")) as { run: { disturbance: unknown } };
      expect(json.run.disturbance).toEqual(report.disturbance);
      expect(await leftovers(manifest.runId)).toEqual({ containers: [], networks: [], volumes: [] });
    },
  );
});
