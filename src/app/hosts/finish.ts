/**
 * Stages 8 and 9: teardown reaches every host (a failed host that still answers gets its runs' leftovers
 * removed), then the reports: host-vs-host (report-hosts.md, report-hosts.html, hosts.json) or, for a shard, the merged folder.
 */
import { join } from "node:path";
import type { HostFacts } from "../../core/model/results.ts";
import type { Plan } from "../../core/plan/plan.ts";
import type { HostImageFacts } from "../../core/hosts/parity.ts";
import { mergeShard, type ResultPart } from "../../core/hosts/merge.ts";
import {
  compareHosts,
  renderHostsHtml,
  renderHostsMarkdown,
  renderHostsText,
  renderShardMarkdown,
  type HostRun,
} from "../../core/report/hosts.ts";
import { cleanResources } from "../clean.ts";
import { exitCodeOf, type RunStatus } from "../run/types.ts";
import { msg, type HostsContext } from "./context.ts";
import { answers } from "./runs.ts";
import { hostRunId, type HostsSummary } from "./types.ts";

export async function cleanFailedHosts(ctx: HostsContext): Promise<void> {
  for (const s of ctx.states) {
    if (s.run.status !== "failed" && s.run.status !== "unreachable") continue;
    const ids = ctx.parts.filter((p) => p.host === s.t.spec.id).map((p) => hostRunId(ctx.opts.runId, p.host, p.pass));
    if (ids.length === 0) ids.push(hostRunId(ctx.opts.runId, s.t.spec.id));
    if (!(await answers(s))) {
      ctx.notes.push(
        `host ${s.t.spec.id} could not be cleaned (unreachable): run \`twinbench clean --host ${s.t.spec.id}\` once it is back`,
      );
      continue;
    }
    for (const runId of ids) {
      // What stays is labelled, so `clean --host` finds it; the report says that it stayed.
      const failed = await cleanResources(s.t.engine, { runId }).then(
        (r) => r.failed,
        (e: unknown) => [msg(e)],
      );
      if (failed.length)
        ctx.note(
          `host ${s.t.spec.id}: cleanup of run ${runId} failed (${failed.join("; ")}): run \`twinbench clean --host ${s.t.spec.id}\``,
        );
    }
  }
}

/** Each host's run as the report shows it (its pass-1 folder, when it wrote one). */
async function hostRuns(ctx: HostsContext, cancelled: boolean): Promise<HostRun[]> {
  const runs: HostRun[] = [];
  for (const s of ctx.states) {
    const folder = await ctx.folder.readPart(s.t.spec.id, (why) => ctx.damaged(s.t.spec.id, why));
    runs.push({
      ...s.run,
      ...(folder ? { manifest: folder.manifest, cells: folder.cells, dir: join("hosts", s.t.spec.id) } : {}),
    });
    if (s.run.status === "running") s.run.status = cancelled ? "cancelled" : "failed";
  }
  for (const r of runs) if (r.status === "running") r.status = cancelled ? "cancelled" : "failed";
  return runs;
}

export async function writeHostsReports(
  ctx: HostsContext,
  plan: Plan,
  imageFacts: HostImageFacts[],
  mixed: string[],
): Promise<HostsSummary> {
  const cancelled = ctx.signal.aborted;
  const runs = await hostRuns(ctx, cancelled);
  const reportFile = join(ctx.folder.dir, "report-hosts.md");
  const r =
    ctx.mode === "shard"
      ? await shardReport(ctx, plan, runs, mixed, cancelled)
      : await compareReport(ctx, runs, imageFacts, cancelled);
  return {
    mode: ctx.mode,
    status: r.status,
    exitCode: exitCodeOf(r.status),
    dir: ctx.folder.dir,
    runId: ctx.opts.runId,
    hosts: runs,
    reportText: r.reportText,
    reportFile,
    mergedDir: r.mergedDir,
  };
}

interface Written {
  status: RunStatus;
  reportText: string;
  mergedDir?: string;
}

async function shardReport(
  ctx: HostsContext,
  plan: Plan,
  runs: HostRun[],
  mixed: string[],
  cancelled: boolean,
): Promise<Written> {
  const { runId } = ctx.opts;
  const folders: ResultPart[] = [];
  for (const p of ctx.parts) {
    const f = await ctx.folder.readPart(p.folder, (why) => ctx.damaged(p.folder, why));
    if (f) folders.push({ host: p.host, folder: p.folder, manifest: f.manifest, cells: f.cells });
  }
  const failures = ctx.states
    .filter((s) => s.run.status === "failed" || s.run.status === "unreachable")
    .map((s) => ({ host: s.t.spec.id, message: s.run.error ?? s.run.status }));
  if (folders.length === 0) {
    const reportText = `Sharded run ${runId}: no host produced results.\n${failures.map((f) => `host ${f.host}: ${f.message}`).join("\n")}\n`;
    await ctx.folder.writeFile("report-hosts.md", reportText);
    return { status: cancelled ? "cancelled" : "failed", reportText };
  }
  const hostFacts = ctx.states.map((s) => s.facts).filter((f): f is HostFacts => f !== undefined);
  const merged = mergeShard({ runId, parts: folders, plannedCells: plan.cells, hostFacts, mixed, failures, cancelled });
  for (const n of await ctx.folder.writeMerged(merged)) ctx.note(`raw log not copied into the merged folder: ${n}`);
  if (ctx.deps.writeReports)
    await ctx.deps.writeReports(ctx.folder.dir).catch((e) => ctx.info(`reports: ${msg(e)}`, undefined, "warning"));
  const md = renderShardMarkdown({
    runId,
    hosts: runs,
    manifest: merged.manifest,
    cells: merged.cells,
    notes: ctx.notes,
  });
  await ctx.folder.writeFile("report-hosts.md", md);
  return {
    status: merged.manifest.status === "running" ? "failed" : merged.manifest.status,
    reportText: md,
    mergedDir: ctx.folder.dir,
  };
}

async function compareReport(
  ctx: HostsContext,
  runs: HostRun[],
  imageFacts: HostImageFacts[],
  cancelled: boolean,
): Promise<Written> {
  const cmp = compareHosts(runs, { notes: ctx.notes });
  await ctx.folder.writeFile("report-hosts.md", renderHostsMarkdown(cmp));
  await ctx.folder.writeFile("report-hosts.html", renderHostsHtml(cmp));
  const hostsJson = {
    runId: ctx.opts.runId,
    notes: ctx.notes,
    hosts: runs.map(({ manifest, cells: _cells, ...r }) => ({ ...r, facts: manifest?.hosts[0] })),
    facts: cmp.facts,
    serverFacts: cmp.serverFacts,
    images: imageFacts.map(({ packages, ...i }) => ({
      ...i,
      packages: packages ? Object.keys(packages).length : null,
    })),
  };
  await ctx.folder.writeFile("hosts.json", JSON.stringify(hostsJson, null, 2) + "\n");
  const status: RunStatus = cancelled
    ? "cancelled"
    : runs.every((r) => r.status === "ok" && r.manifest)
      ? "ok"
      : runs.some((r) => r.manifest && (r.status === "ok" || r.status === "partial"))
        ? "partial"
        : "failed";
  return { status, reportText: renderHostsText(cmp) };
}
