/** The storage kinds: one `Provisioner` each. A new kind adds its module here (see docs/architecture.md). */
import type { StoragePlan } from "../../../core/storage/plan.ts";
import { bindProvisioner } from "./bind.ts";
import { raid0Provisioner } from "./raid0.ts";
import { tmpfsProvisioner } from "./tmpfs.ts";
import type { Provisioner } from "./types.ts";
import { volumeProvisioner } from "./volume.ts";

type ByKind = { [K in StoragePlan["kind"]]: Provisioner<Extract<StoragePlan, { kind: K }>> };

const PROVISIONERS: ByKind = {
  tmpfs: tmpfsProvisioner,
  volume: volumeProvisioner,
  bind: bindProvisioner,
  raid0: raid0Provisioner,
};

/** The provisioner of the plan's kind. */
export function provisionerFor<P extends StoragePlan>(plan: P): Provisioner<P> {
  // The table is keyed by kind, so the entry for plan.kind takes exactly this plan type; TypeScript cannot
  // correlate the indexed access with P on its own.
  return PROVISIONERS[plan.kind] as unknown as Provisioner<P>;
}

export type { Problem, Provisioned, ProvisionStep, Provisioner, StorageHost } from "./types.ts";
