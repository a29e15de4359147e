/**
 * volume: a named local-driver volume. Also the volume helpers tmpfs shares: refuse an existing name, measure
 * (and chown) through a short probe container or on the host, and the data mount.
 */
import { chmod, chown } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { TwinbenchError } from "../../../core/base/errors.ts";
import { LABEL } from "../../../core/base/labels.ts";
import type { StorageFacts } from "../../../core/model/results.ts";
import { DATA_TARGET, type VolumePlan } from "../../../core/storage/plan.ts";
import { parseDfLine, parseProcMounts } from "../../../core/storage/parse.ts";
import { unreachableReason } from "../../docker/guard.ts";
import { exists, findmnt } from "../host.ts";
import type { StorageMount } from "../../../core/model/engine/mounts.ts";
import type { StorageRequest } from "../types.ts";
import type { Problem, Provisioner, StorageHost } from "./types.ts";

const PROBE_TARGET = "/tb-probe";

/** tmpfs and volume go through the engine: it must answer. */
export async function engineProblems(host: StorageHost): Promise<Problem[]> {
  try {
    await host.engine.ping();
    return [];
  } catch (e) {
    return [{ what: `the container engine does not answer (${unreachableReason(e)})` }];
  }
}

export async function ensureNewVolume(host: StorageHost, name: string): Promise<void> {
  if (!(await host.engine.volumes.inspect(name))) return;
  throw new TwinbenchError(`volume ${name} already exists`, {
    code: "STORAGE_VOLUME_EXISTS",
    hint: "it is left from an earlier run with the same id: `twinbench clean` removes it, or choose another run id",
  });
}

export function volumeMount(name: string): StorageMount {
  return { kind: "volume", source: name, target: DATA_TARGET, startEmpty: true };
}

type Measured = {
  fsType?: string;
  mountOptions?: string;
  sizeBytes?: number;
  availBytes?: number;
  mountpoint?: string;
  by: string;
};

/**
 * Measure a volume (and chown its root when asked): with a short container of `probeImage` when given (works on
 * remote engines), else on the host at the engine's mountpoint when it is visible here.
 */
export async function measureVolume(
  host: StorageHost,
  name: string,
  req: StorageRequest,
  labels: Record<string, string>,
  chownRoot: boolean,
  expectFs?: string,
): Promise<Measured> {
  const mountpoint = (await host.engine.volumes.inspect(name))?.mountpoint;
  if (req.probeImage) {
    const out = await probeVolume(
      host,
      name,
      req.probeImage,
      labels,
      chownRoot ? { uid: req.uid, gid: req.gid } : undefined,
    );
    const df = parseDfLine(out);
    const mnt = parseProcMounts(out).find((x) => x.target === PROBE_TARGET);
    return {
      ...(mnt ? { fsType: mnt.fsType, mountOptions: mnt.options } : {}),
      ...(df ? { sizeBytes: df.sizeBytes, availBytes: df.availBytes } : {}),
      ...(mountpoint ? { mountpoint } : {}),
      by: `container (${req.probeImage})`,
    };
  }
  if (mountpoint && host.engineIsLocal() && (await exists(host.hp(mountpoint)))) {
    if (chownRoot) {
      await chown(host.hp(mountpoint), req.uid, req.gid);
      await chmod(host.hp(mountpoint), 0o750);
    }
    const f = await findmnt(host.runner, host.hp(mountpoint));
    if (f && (!expectFs || f.fsType === expectFs)) {
      return {
        fsType: f.fsType,
        mountOptions: f.options,
        sizeBytes: f.sizeBytes,
        availBytes: f.availBytes,
        mountpoint,
        by: "host",
      };
    }
    return { mountpoint, by: "host" };
  }
  return {
    ...(mountpoint ? { mountpoint } : {}),
    by: "none (no probeImage and the engine's mountpoint is not visible here)",
  };
}

async function probeVolume(
  host: StorageHost,
  name: string,
  image: string,
  labels: Record<string, string>,
  owner?: { uid: number; gid: number },
): Promise<string> {
  const script =
    'if [ "$3" = 1 ]; then chown "$1:$2" "$4" && chmod 0750 "$4" || exit 3; fi; df -P -B1 "$4"; grep " $4 " /proc/mounts; exit 0';
  const r = await host.engine.containers.run(
    {
      name: `${name}-probe-${randomBytes(3).toString("hex")}`,
      image,
      user: "0:0",
      entrypoint: [
        "sh",
        "-c",
        script,
        "sh",
        String(owner?.uid ?? 0),
        String(owner?.gid ?? 0),
        owner ? "1" : "0",
        PROBE_TARGET,
      ],
      labels: { ...labels, [LABEL.role]: "storage-probe" },
      network: { kind: "none" },
      mounts: [{ kind: "volume", source: name, target: PROBE_TARGET, startEmpty: true }],
    },
    { timeoutMs: 120_000 },
  );
  const logs = r.output.replace(/\r/g, "");
  if (r.exitCode !== 0) {
    throw new TwinbenchError(
      `the probe container for volume ${name} exited with ${r.exitCode}${r.timedOut ? " (stopped after 120 s)" : ""}`,
      {
        code: "STORAGE_PROBE_FAILED",
        hint: `the image ${image} needs sh, df, grep and chown`,
        details: logs.trim().split("\n").slice(-5),
      },
    );
  }
  return logs;
}

export const volumeProvisioner: Provisioner<VolumePlan> = {
  problems: (_plan, host) => engineProblems(host),
  async provision(plan, { req, labels, writer }, host) {
    await ensureNewVolume(host, plan.volumeName);
    await writer.add({ type: "volume", name: plan.volumeName, keep: plan.keep });
    await host.engine.volumes.create(plan.volumeName, labels);
    const m = await measureVolume(host, plan.volumeName, req, labels, true);
    const facts: StorageFacts = {
      kind: "volume",
      ...(m.fsType ? { fsType: m.fsType } : {}),
      ...(m.mountOptions ? { mountOptions: m.mountOptions } : {}),
      ...(m.availBytes !== undefined ? { freeBytesBefore: m.availBytes } : {}),
      ...(m.sizeBytes !== undefined ? { sizeBytes: m.sizeBytes } : {}),
      details: {
        volume: plan.volumeName,
        driver: "local",
        keep: String(plan.keep),
        ...(m.mountpoint ? { mountpoint: m.mountpoint } : {}),
        measuredBy: m.by,
      },
    };
    return {
      mount: volumeMount(plan.volumeName),
      facts,
      needsHolder: false,
      refresh: async () => {
        const after = await measureVolume(host, plan.volumeName, req, labels, false);
        return after.availBytes !== undefined ? { freeBytesAfter: after.availBytes } : {};
      },
    };
  },
};
