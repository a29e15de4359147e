/** A measured cell's state from its readings (core/measure/cellstate.ts), with the containers' CPU sets. */
import { availableParallelism } from "node:os";
import { cellStateOf, containerCores } from "../../core/measure/cellstate.ts";
import type { CellCpu, CellState, CellTasks, ServerStatus } from "../../core/model/cell.ts";
import type { Scenario } from "../../core/model/scenario/schema.ts";
import type { SysbenchResult } from "../../core/model/sysbench/result.ts";
import type { LabServerInit } from "../lab-server-init.ts";

/** The cell's state from its readings; the CPU figures against each container's cpuset (the host's CPUs without). */
export function cellStateFor(
  load: Scenario["resources"]["load"],
  server: Pick<LabServerInit, "cpuset" | "storage">,
  o: {
    before?: ServerStatus;
    after?: ServerStatus;
    cpu?: { wallS: number; serverCores: number; loadCores: number };
    tasks?: Omit<CellTasks, "blockDevice" | "storageKind">;
    metrics: SysbenchResult | null;
    errors: string[];
  },
): CellState {
  const host = availableParallelism();
  const cpu: CellCpu | undefined = o.cpu && {
    ...o.cpu,
    serverCpusetCores: containerCores(server.cpuset, undefined, host),
    loadCpusetCores: containerCores(load.cpuset, load.cpus, host),
  };
  // tmpfs keeps the data dir in memory: no block device, so no bytes per query (volume, bind, raid0 have one).
  const kind = server.storage.kind;
  const tasks: CellTasks | undefined = o.tasks && { ...o.tasks, blockDevice: kind !== "tmpfs", storageKind: kind };
  return cellStateOf({ before: o.before, after: o.after, cpu, tasks, metrics: o.metrics, errors: o.errors });
}
