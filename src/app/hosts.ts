/**
 * Several hosts: one run engine (runScenario) per host, each on its own Docker engine, concurrently, as stages
 * (src/app/hosts/):
 *
 *   reach every host → images on every host (build there, or send one build over the API) → host facts (engine
 *   info plus a probe container) → image parity → [shard: hosts must be alike, unless --force] → one runScenario
 *   per host (cellFilter c.host === id, results in DIR/hosts/<id>/) → [shard: cells of lost hosts to the
 *   survivors] → clean failed hosts → DIR/report-hosts.md (+ for a shard: the merged DIR/run.json, cells.jsonl, raw/).
 *
 * sysbench always runs in a sidecar beside its server on the same engine (runScenario's design), so only events
 * and logs cross the network: the latency to an engine never enters a measurement. All engine access goes through
 * the Engine port (guarded against the loss of its host); image save/load through ImageOps; files through the
 * results adapters.
 */
import { InputError } from "../core/base/errors.ts";
import { planRun } from "../core/plan/plan.ts";
import { HostsFolder } from "../adapters/results/hosts-folder.ts";
import { HostsContext } from "./hosts/context.ts";
import { reachHosts } from "./hosts/reach.ts";
import { HostImages } from "./hosts/images.ts";
import { checkShardHosts, probeAllFacts } from "./hosts/facts.ts";
import { HostRuns } from "./hosts/runs.ts";
import { cleanFailedHosts, writeHostsReports } from "./hosts/finish.ts";
import type { HostsDeps, HostsOptions, HostsSummary } from "./hosts/types.ts";

export {
  hostRunId,
  type HostTarget,
  type HostsDeps,
  type HostsEvent,
  type HostsOptions,
  type HostsSummary,
  type ImageTransfer,
} from "./hosts/types.ts";
export { LOAD_IMAGE } from "./run/images.ts";
export { HostGuard, guardedEngine } from "../adapters/docker/guard.ts";

export async function runHosts(deps: HostsDeps, opts: HostsOptions): Promise<HostsSummary> {
  if (deps.hosts.length === 0)
    throw new InputError("no hosts to run on", {
      code: "HOSTS_NONE",
      hint: "give hosts: in the scenario or --host ID=URL",
    });
  if (opts.scenario.compare === "hosts" && deps.hosts.length < 2)
    throw new InputError(
      `compare: hosts needs at least two hosts, got ${deps.hosts.length} (${deps.hosts.map((h) => h.spec.id).join(", ")})`,
      {
        code: "HOSTS_TOO_FEW",
        hint: "add another --host ID=URL",
      },
    );
  const ctx = new HostsContext(deps, opts, await openFolder(deps, opts));

  await reachHosts(ctx);
  const images = new HostImages(ctx);
  await images.ensureEverywhere();
  await probeAllFacts(ctx, await images.loadTag());
  const imageFacts = await images.checkParity();
  const mixed = checkShardHosts(ctx);

  const plan = planRun(ctx.scenario);
  const runs = new HostRuns(ctx, images);
  if (opts.resume) await runs.adoptParts();
  await runs.firstPass();
  await runs.takeOverLostCells(plan);

  await cleanFailedHosts(ctx);
  return writeHostsReports(ctx, plan, imageFacts, mixed);
}

/** A new run's folder (with its hosts-run.json), or the folder being resumed. */
function openFolder(deps: HostsDeps, opts: HostsOptions): Promise<HostsFolder> {
  if (opts.resume) return HostsFolder.open(opts.outDir);
  const scenario = { ...opts.scenario, hosts: deps.hosts.map((h) => h.spec) };
  return HostsFolder.create(opts.outDir, {
    runId: opts.runId,
    scenario,
    scenarioFile: opts.scenarioFile,
    overrides: opts.overrides ?? [],
    imageTransfer: opts.imageTransfer,
    force: opts.force,
    startedAt: (deps.now ?? (() => new Date()))().toISOString(),
  });
}
