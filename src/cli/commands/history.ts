/**
 * `twinbench history [SCENARIO]`: each cell's runs on this host over time, the level between runs and where the
 * next run lands; `history add DIR…` imports results folders into their hosts' histories.
 */
import type { Command } from "commander";
import { historyView } from "../../core/stats/history-view.ts";
import { renderHistory } from "../../core/report/history.ts";
import { renderHistoryHtml } from "../../core/report/history-html.ts";
import { writeFileAtomic } from "../../adapters/durable-file.ts";
import { addFoldersToHistory, readHistory, thisHost } from "../../app/history.ts";
import type { CliContext } from "../context.ts";

interface HistoryCliOptions {
  hosts?: string[];
  host?: string;
  json?: boolean;
  html?: string;
}

/** Register `history` and `history add`. */
export function registerHistoryCommand(program: Command, ctx: CliContext): void {
  const history = program
    .command("history")
    .description("each cell's runs on this host over time: the level between runs and where the next run lands")
    .argument("[scenario]", "only the runs of this scenario (its name)")
    .option("--hosts <dir...>", "read these history folders or files instead (several hosts' histories)")
    .option("--host <key>", "the host to show (default: this machine; with --hosts, the one with the most runs)")
    .option("--json", "print the view as JSON")
    .option("--html <file>", "also write the history as an HTML page with one chart per cell")
    .action(async (scenario: string | undefined, o: HistoryCliOptions) => {
      const read = await readHistory(o.hosts);
      // This machine's host unless one is named, or other hosts' folders are read (--hosts: the most runs').
      let host = o.host;
      if (host === undefined && o.hosts === undefined) {
        const mine = await thisHost(ctx.engine());
        if ("key" in mine) host = mine.key;
        else ctx.err(`note: ${mine.why}; showing the host with the most runs.`);
      }
      const view = historyView(read, { scenario, host });
      if (o.json) ctx.out(JSON.stringify(view, null, 2));
      else for (const l of renderHistory(view)) ctx.out(l);
      if (o.html) {
        await writeFileAtomic(o.html, renderHistoryHtml(view));
        ctx.err(`wrote ${o.html}`);
      }
      ctx.exitCode = 0;
    });
  history
    .command("add")
    .description("add results folders to their hosts' histories (a damaged folder is named and skipped)")
    .argument("<dir...>", "results folders written by `twinbench run`")
    .action(async (dirs: string[]) => {
      const r = await addFoldersToHistory(dirs);
      for (const a of r.added) ctx.out(`added ${a.dir}: run ${a.runId}, ${a.cells} cells (${a.file})`);
      for (const s of r.skipped) ctx.err(`skipped ${s.dir}: ${s.why}`);
      ctx.out(`${r.added.length} added, ${r.skipped.length} skipped`);
      ctx.exitCode = r.added.length === 0 && r.skipped.length > 0 ? 1 : 0;
    });
}
