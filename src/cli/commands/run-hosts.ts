/**
 * `twinbench run` over several hosts (`hosts:` in the scenario or `--host ID=URL`): connect every engine, give
 * each its own adapters, hand over to app/hosts.ts, print the host-vs-host report. And `clean --host ID`.
 * Plain progress lines only (prefixed with the host id); --json-events adds a `host` field to every event.
 */
import { randomBytes } from "node:crypto";
import { basename, dirname, join, resolve } from "node:path";
import { InputError } from "../../core/base/errors.ts";
import type { RunEvent } from "../../core/model/events.ts";
import type { HostSpec, Scenario } from "../../core/model/scenario/schema.ts";
import { parseHostFlag, resolveHosts, resumeHosts } from "../../core/hosts/url.ts";
import { newRunId } from "../../app/run.ts";
import { runHosts, type HostsEvent, type HostTarget, type ImageTransfer } from "../../app/hosts.ts";
import { cleanResources, cleanSession } from "../../app/clean.ts";
import { trapSignals } from "../../app/signals.ts";
import { connectEngine, readKnownHosts, rememberHosts } from "../../adapters/docker/connect.ts";
import { dockerImageOps } from "../../adapters/images/transfer.ts";
import { execProbe } from "../../adapters/docker/exec-probe.ts";
import { readResultsFolder, readRunManifest, writeReports } from "../../adapters/report-files.ts";
import { isHostsFolder, readHostsResume, type HostsRunManifest } from "../../adapters/results/hosts-folder.ts";
import { readNeutralConfig } from "../../adapters/scenario-file.ts";
import { buildRunReport } from "../../core/report/model.ts";
import { renderText } from "../../core/report/text.ts";
import { plainLine } from "../plain.ts";
import type { CliContext } from "../context.ts";
import { loadDeps } from "./shared.ts";
import { selfContainerId } from "../../adapters/docker/self.ts";
import { parseReadyTimeoutMs, parseRetries, type RunCliOptions } from "./run-options.ts";

export interface HostsCliOptions {
  host?: string[];
  imageTransfer?: string;
  force?: boolean;
}

/** Whether `run` goes through the multi-host orchestration. */
export function wantsHosts(scenario: Scenario, o: HostsCliOptions): boolean {
  return (o.host?.length ?? 0) > 0 || (scenario.hosts?.length ?? 0) > 0;
}

export function parseImageTransfer(v: string | undefined): ImageTransfer {
  if (v === undefined || v === "send" || v === "build") return v ?? "send";
  throw new InputError(`--image-transfer ${v}: expected build or send`, {
    code: "IMAGE_TRANSFER_INVALID",
    hint: "send: build once, stream it to every host; build: every host builds its own",
  });
}

export async function runHostsCommand(
  ctx: CliContext,
  loaded: { scenario: Scenario; scenarioFile?: string; overrides: string[] },
  o: RunCliOptions & HostsCliOptions,
  resume?: HostsRunManifest & { dir: string },
): Promise<0 | 1 | 2 | 130> {
  const transfer = parseImageTransfer(resume?.imageTransfer ?? o.imageTransfer);
  const retries = parseRetries(o.retries);
  const readyTimeoutMs = parseReadyTimeoutMs(o.readyTimeout);
  const specs: HostSpec[] = resume
    ? resumeHosts(loaded.scenario.hosts ?? [], o.host ?? [])
    : resolveHosts(loaded.scenario.hosts, o.host ?? []);
  const scenario: Scenario = resume ? loaded.scenario : { ...loaded.scenario, hosts: specs };
  const runId = resume?.runId ?? newRunId(new Date());
  const outDir = resume?.dir ?? resolve(o.out ?? join("results", runId));
  const neutralCnf = await readNeutralConfig(scenario);

  const hosts: HostTarget[] = [];
  for (const spec of specs) {
    const engine = connectEngine(spec);
    const deps = await loadDeps({ ...ctx, engine: () => engine }, { imageMode: o.imageMode ?? scenario.imageMode });
    // A server's bridge address routes only from its engine's machine: SQL probes to tcp:// and ssh:// engines go
    // through `docker exec` (the engine port) instead of a direct connection.
    if (!spec.engine.startsWith("unix://")) deps.probe = execProbe(engine);
    hosts.push({ spec, engine, deps });
  }
  await rememberHosts(specs).catch((e) =>
    ctx.err(`warning: could not record the hosts for \`clean --host\`: ${(e as Error).message}`),
  );
  // Sweep what earlier runs whose process is gone left on each host (unreachable hosts are reported by the run).
  for (const h of hosts) {
    const swept = await cleanResources(h.engine, { orphansOnly: true }).catch(() => undefined); // unreachable: the run reports it; leftovers stay labelled
    const n = swept ? swept.containers.length + swept.networks.length + swept.volumes.length : 0;
    if (n > 0) ctx.err(`notice: host ${h.spec.id}: removed ${n} resources left by earlier runs whose process is gone`);
  }

  // Every host's runs and passes carry this session id: a forced cleanup removes exactly those, on every engine.
  const sessionId = randomBytes(6).toString("hex");
  const trap = trapSignals({
    graceful: () => ctx.err("cancelling every host: stopping sysbench and cleaning up (Ctrl-C again to force)..."),
    force: () => {
      ctx.err("forced: removing this run's resources on every host and exiting");
      void cleanSession(
        hosts.map((h) => h.engine),
        sessionId,
      ).finally(() => process.exit(130));
    },
  });

  const sink = (host: string | undefined, e: RunEvent | HostsEvent) => {
    if (o.jsonEvents) return ctx.out(JSON.stringify({ ...e, ...(host ? { host } : {}) }));
    const line = e.type === "hosts" ? `${e.level === "info" ? "" : `${e.level}: `}${e.message}` : plainLine(e);
    if (line === undefined) return;
    const prefix = host ? `[${host}] ` : "";
    const out = e.type === "hosts" && e.level !== "info" ? ctx.err : ctx.out;
    for (const l of line.split("\n")) out(prefix + l);
  };
  if (o.tui && ctx.isTTY && !o.jsonEvents)
    ctx.err("note: several hosts: plain progress lines instead of the terminal UI");

  try {
    const summary = await runHosts(
      { hosts, images: dockerImageOps, writeReports: (dir) => writeReports(dir) },
      {
        scenario,
        scenarioFile: loaded.scenarioFile,
        overrides: loaded.overrides,
        neutralCnf,
        outDir,
        runId,
        sessionId,
        imageTransfer: transfer,
        force: o.force ?? resume?.force,
        resume: resume !== undefined,
        failFast: o.failFast,
        retries,
        strict: o.strict,
        wipeDevices: o.wipeDevices,
        readyTimeoutMs,
        signal: trap.signal,
        onEvent: sink,
        selfContainerId,
      },
    );
    if (!o.jsonEvents) {
      ctx.out("");
      if (summary.mergedDir) {
        const folder = await readResultsFolder(summary.mergedDir).catch(
          (e: unknown) =>
            void ctx.err(`warning: cannot read the merged results in ${summary.mergedDir}: ${(e as Error).message}`),
        );
        if (folder) ctx.out(renderText(buildRunReport(folder.manifest, folder.cells)).trimEnd() + "\n");
      }
      ctx.out(summary.reportText.trimEnd());
      ctx.out(
        `\nresults: ${summary.dir}  (host report: ${summary.reportFile}${summary.mergedDir ? `, merged report: ${join(summary.mergedDir, "report.html")}` : ""})`,
      );
    }
    return summary.exitCode;
  } finally {
    trap.dispose();
  }
}

/**
 * `run --resume DIR` where DIR belongs to a multi-host run: DIR itself (it has hosts/) resumes every host on its own
 * engine; one host's folder (DIR/hosts/<id>) is refused, since on its own it would run on the local engine.
 * Undefined: DIR is a single run's folder (and then `--host` has no place).
 */
export async function resumeHostsCommand(
  ctx: CliContext,
  o: RunCliOptions & HostsCliOptions,
): Promise<0 | 1 | 2 | 130 | undefined> {
  const dir = resolve(o.resume!);
  if (await isHostsFolder(dir)) {
    const m = await readHostsResume(dir);
    return runHostsCommand(ctx, { scenario: m.scenario, scenarioFile: m.scenarioFile, overrides: m.overrides }, o, {
      ...m,
      dir,
    });
  }
  const manifest = await readRunManifest(dir);
  if (manifest.scenario.hosts?.length) {
    const parent = basename(dirname(dir)) === "hosts" ? dirname(dirname(dir)) : undefined;
    const host = manifest.hosts[0]?.id ?? basename(dir);
    throw new InputError(
      `${dir} is host ${host}'s part of a multi-host run: resumed on its own it would run on the local engine, not on host ${host}'s`,
      {
        code: "HOSTS_RESUME",
        hint: parent
          ? `resume the whole run, each host on its own engine: twinbench run --resume ${parent}`
          : "resume the multi-host run's folder (the one that holds hosts/)",
      },
    );
  }
  if (o.host?.length)
    throw new InputError(`--host with --resume ${dir}: that folder is a single run's, on one engine`, {
      code: "HOSTS_RESUME",
      hint: "resume it without --host; --host only moves a host of a multi-host run being resumed",
    });
  return undefined;
}

/** `twinbench clean --host ID[=URL]`: remove twinbench's resources on that host (URL from the last run that used it). */
export async function cleanHostsCommand(ctx: CliContext, flags: string[], runId?: string): Promise<0 | 1> {
  const known = await readKnownHosts();
  let failed = false;
  for (const f of flags) {
    const spec: HostSpec | undefined = f.includes("=") ? parseHostFlag(f) : known[f];
    if (!spec)
      throw new InputError(`clean --host ${f}: no engine URL known for host "${f}"`, {
        code: "HOST_UNKNOWN",
        hint: `give it as --host ${f}=URL (known hosts: ${Object.keys(known).join(", ") || "none"})`,
      });
    const engine = connectEngine(spec);
    try {
      await engine.ping();
    } catch (e) {
      ctx.err(`host ${spec.id}: unreachable (${spec.engine}): ${(e as Error).message}`);
      failed = true;
      continue;
    }
    // A multi-host run labels each host's resources with its own run id (<run>-<host>, <run>-<host>-pN for any N):
    // cleanResources finds them all from the run id.
    const r = await cleanResources(engine, { runId });
    ctx.out(
      `host ${spec.id}: removed ${r.containers.length} containers, ${r.networks.length} networks, ${r.volumes.length} volumes`,
    );
    for (const x of r.failed) ctx.err(`host ${spec.id}: could not remove ${x}`);
    if (r.failed.length) failed = true;
  }
  return failed ? 1 : 0;
}
