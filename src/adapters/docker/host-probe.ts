/**
 * The host-facts probe: a short-lived labelled container on an engine (any engine: the local one or a remote
 * host's) that reads that engine's host through /proc and /sys (core/hosts/facts.ts `probeCommand`), with a fresh
 * labelled volume mounted at PROBE_MOUNT so that it sees the file system and block device under the engine's
 * volumes. The container is removed by `run`, the volume here; both carry the run's labels, so `clean` finds them
 * after a kill.
 */
import { randomBytes } from "node:crypto";
import { mergeProbe, parseProbeOutput, probeCommand, PROBE_MOUNT } from "../../core/hosts/facts.ts";
import { resourceName } from "../../core/base/labels.ts";
import type { HostFacts } from "../../core/model/results.ts";
import type { Engine } from "../../core/model/engine/engine.ts";

export interface HostProbeOptions {
  /** An image with POSIX sh, coreutils and awk (the sysbench image). */
  image: string;
  runId: string;
  labels: Record<string, string>;
  /** The engine URL to record (multi-host runs). */
  engineUrl?: string;
  signal?: AbortSignal;
  /** Told when the probe ran but exited non-zero (its partial output is still used). */
  onWarning?: (message: string) => void;
}

/** Engine info (`base`) merged with what the probe container saw on that engine's host. */
export async function probeHostFacts(engine: Engine, base: HostFacts, o: HostProbeOptions): Promise<HostFacts> {
  const vol = resourceName(o.runId, "probe", randomBytes(3).toString("hex"));
  await engine.volumes.create(vol, o.labels);
  try {
    const cmd = probeCommand();
    const r = await engine.containers.run(
      {
        name: vol,
        image: o.image,
        entrypoint: [cmd[0]!],
        cmd: cmd.slice(1),
        labels: o.labels,
        network: { kind: "none" },
        mounts: [{ kind: "volume", source: vol, target: PROBE_MOUNT }],
      },
      { timeoutMs: 60_000, signal: o.signal },
    );
    if (r.exitCode !== 0)
      o.onWarning?.(`the host-facts probe exited with ${r.exitCode}; what it printed before is used`);
    return mergeProbe(base, parseProbeOutput(r.output), o.engineUrl);
  } finally {
    // Best effort: the volume is labelled with the run, so `clean --run` removes it if this fails.
    await engine.volumes.remove(vol).catch(() => undefined);
  }
}
