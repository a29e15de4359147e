/**
 * The storage preflight: plan the spec with a dummy run, collect every problem (the shared ones for kinds that work
 * on the engine's host directly, then the kind's own), and fail with all of them and the packages that fix them.
 * Creates nothing.
 */
import { TwinbenchError } from "../../core/base/errors.ts";
import type { Storage } from "../../core/model/scenario/schema.ts";
import { planStorage, type StoragePlan } from "../../core/storage/plan.ts";
import { readMd } from "./host.ts";
import { provisionerFor, type Problem, type StorageHost } from "./kinds/index.ts";

export async function preflightProblems(plan: StoragePlan, host: StorageHost): Promise<Problem[]> {
  const kind = provisionerFor(plan);
  const out: Problem[] = [];
  if (kind.hostRoot !== undefined) {
    if (!host.engineIsLocal()) {
      out.push({
        what: `storage kind ${plan.kind} needs this host to be the engine's host, but the engine is remote (${host.engine.location().host})`,
      });
    }
    if (process.getuid?.() !== 0) out.push({ what: kind.hostRoot });
  }
  out.push(...(await kind.problems(plan, host)));
  return out;
}

export async function preflight(spec: Storage, host: StorageHost): Promise<void> {
  const hasMd = (await readMd(host.runner)) !== null;
  const { plan } = planStorage(spec, { runId: "preflight", serverId: "preflight", uid: 999, gid: 999, hasMd });
  const problems = await preflightProblems(plan, host);
  if (problems.length === 0) return;
  const pkgs = [...new Set(problems.flatMap((p) => (p.pkg ? [p.pkg] : [])))];
  throw new TwinbenchError(
    `storage kind ${spec.kind} cannot be set up on this host: ${problems.map((p) => p.what).join("; ")}`,
    {
      code: "STORAGE_PREREQUISITES",
      hint:
        pkgs.length > 0
          ? `run \`twinbench doctor --fix\` or \`apt-get install ${pkgs.join(" ")}\`${problems.some((p) => !p.pkg) ? ", and fix the rest listed above" : ""}`
          : "fix the problems listed above (twinbench doctor shows them too)",
      details: problems.map((p) => p.what),
    },
  );
}
