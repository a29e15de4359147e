/**
 * tmpfs: a local-driver volume of type tmpfs (a dedicated mount, never /dev/shm). The engine mounts it only while
 * some container uses it and unmounts it (losing its content) when the last one stops: verified on Docker 20.10.24,
 * hence `needsHolder: true`.
 */
import type { StorageFacts } from "../../../core/model/results.ts";
import { tmpfsMemoryWarnings, type TmpfsPlan } from "../../../core/storage/plan.ts";
import type { Provisioner } from "./types.ts";
import { engineProblems, ensureNewVolume, measureVolume, volumeMount } from "./volume.ts";

export const tmpfsProvisioner: Provisioner<TmpfsPlan> = {
  problems: (_plan, host) => engineProblems(host),
  async provision(plan, { req, labels, writer, warnings }, host) {
    const hostMemoryBytes = await host.engine.facts().then(
      (f) => f.memoryBytes,
      () => undefined,
    ); // unknown: no host-memory warning
    warnings.push(
      ...tmpfsMemoryWarnings({
        tmpfsBytes: plan.sizeBytes,
        bufferPoolBytes: req.bufferPoolBytes,
        memoryLimitBytes: req.memoryBytes,
        hostMemoryBytes,
      }),
    );
    await ensureNewVolume(host, plan.volumeName);
    await writer.add({ type: "volume", name: plan.volumeName, keep: false });
    await host.engine.volumes.create(plan.volumeName, labels, plan.driverOptions);
    const facts: StorageFacts = {
      kind: "tmpfs",
      fsType: "tmpfs",
      mountOptions: plan.driverOptions.o,
      sizeBytes: plan.sizeBytes,
      freeBytesBefore: plan.sizeBytes,
      details: { volume: plan.volumeName, driver: "local", device: "tmpfs", engineOptions: plan.driverOptions.o },
    };
    const measured = await measureVolume(host, plan.volumeName, req, labels, false, "tmpfs");
    if (measured.mountOptions) facts.mountOptions = measured.mountOptions;
    if (measured.sizeBytes !== undefined) facts.sizeBytes = measured.sizeBytes;
    return {
      mount: volumeMount(plan.volumeName),
      facts,
      needsHolder: true,
      refresh: async () => {
        const m = await measureVolume(host, plan.volumeName, req, labels, false, "tmpfs");
        return m.availBytes !== undefined ? { freeBytesAfter: m.availBytes } : {};
      },
    };
  },
};
