/**
 * `twinbench config render SCENARIO [--server ID]` (starts nothing) and `twinbench config diff SCENARIO`
 * (starts the servers, captures their variables, prints the must-match table, tears everything down).
 */
import type { Command } from "commander";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InputError } from "../../core/base/errors.ts";
import { renderConfig } from "../../core/config/render.ts";
import { diffVariables } from "../../core/config/mustmatch.ts";
import { lockEntry } from "../../core/images/lock.ts";
import type { RunManifest } from "../../core/model/results.ts";
import { formatMustMatch, formatTranslation } from "../../core/config/lines.ts";
import { configRenderLines } from "../../app/views.ts";
import { loadLock } from "../../adapters/images/index.ts";
import { readNeutralConfig } from "../../adapters/scenario-file.ts";
import { runScenario } from "../../app/run.ts";
import { trapSignals } from "../../app/signals.ts";
import { plainLine } from "../plain.ts";
import type { CliContext } from "../context.ts";
import { loadDeps, loadScenarioForRun } from "./shared.ts";

const collect = (v: string, prev: string[]) => [...prev, v];

export { formatTranslation, formatMustMatch };

export function registerConfigCommands(program: Command, ctx: CliContext): void {
  const config = program.command("config").description("render and verify the per-server configs");
  config
    .command("render")
    .description("print each server's rendered cnf and the translation report; starts nothing")
    .argument("<scenario>")
    .option("--server <id>", "only this server")
    .option("--set <path=value>", "override a scenario value (repeatable)", collect, [])
    .action(async (file: string, o: { server?: string; set: string[] }) => {
      for (const l of await configRenderLines(file, { sets: o.set, server: o.server })) ctx.out(l);
    });
  config
    .command("diff")
    .description("start the servers, compare their effective variables, tear everything down")
    .argument("<scenario>")
    .option("--set <path=value>", "override a scenario value (repeatable)", collect, [])
    .option("--image-mode <mode>", "auto | debian | official")
    .action(async (file: string, o: { set: string[]; imageMode?: string }) => {
      const { scenario } = await loadScenarioForRun(ctx, file, o.set);
      const deps = await loadDeps(ctx, { ensureHost: true, imageMode: o.imageMode ?? scenario.imageMode });
      const neutralCnf = await readNeutralConfig(scenario);
      const dir = await mkdtemp(join(tmpdir(), "twinbench-config-diff-"));
      const trap = trapSignals();
      try {
        const summary = await runScenario(
          { ...deps, writeReports: undefined },
          {
            scenario,
            neutralCnf,
            outDir: join(dir, "run"),
            identityOnly: true,
            signal: trap.signal,
            onEvent: (e) => {
              if (e.type === "plan-ready") ctx.err(`config diff: run ${e.runId}`);
              if (e.type === "server-ready" || e.type === "server-failed" || e.type === "image-ready") {
                const l = plainLine(e);
                if (l) ctx.err(l);
              }
            },
          },
        );
        const m = JSON.parse(await readFile(join(summary.dir, "run.json"), "utf8")) as RunManifest;
        const ids = m.servers.map((s) => s.id);
        const rows = m.mustMatch ?? [];
        const bad = rows.filter((r) => !r.equal && !r.deliberate).length;
        ctx.out(`must-match variables (${rows.length}): ${bad === 0 ? "all equal" : `${bad} DIFFERENT`}`);
        for (const l of formatMustMatch(rows, ids)) ctx.out(l);
        if (m.servers.length >= 2) {
          const [a, b] = m.servers;
          const diffs = diffVariables(a!.effectiveVariables ?? {}, b!.effectiveVariables ?? {});
          ctx.out("");
          ctx.out(`all differing variables, ${a!.id} vs ${b!.id} (${diffs.length}):`);
          for (const d of diffs) ctx.out(`  ${d.variable}: ${d.a ?? "(absent)"} | ${d.b ?? "(absent)"}`);
        }
        ctx.exitCode = bad > 0 ? 1 : summary.exitCode;
      } finally {
        trap.dispose();
        await rm(dir, { recursive: true, force: true });
      }
    });
}
