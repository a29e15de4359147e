/** The facts of one host (host a of the multi-host tests): the diff, shard and report tests vary from it. */
import type { HostFacts } from "../../src/core/model/results.ts";

export const factsA: HostFacts = {
  id: "a",
  kernel: "6.1.0-18-amd64",
  os: "Debian GNU/Linux 12 (bookworm)",
  cpuModel: "AMD EPYC 7763",
  cpus: 8,
  nproc: 8,
  memoryBytes: 32 * 2 ** 30,
  dockerVersion: "20.10.24",
  apiVersion: "1.41",
  storageDriver: "overlay2",
  cgroupVersion: "2",
  volumeFs: "ext4",
  volumeMountOptions: "rw,relatime",
  engine: "unix:///var/run/docker.sock",
};
