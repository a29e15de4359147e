/**
 * What differs between two runs: the identity that must be equal for a comparison to mean something (scenario, pins,
 * config), and the host facts and effective variables that differ.
 */
import { kernelFactDifferences } from "../hosts/facts.ts";
import { formatBytes } from "../base/units.ts";
import type { RunManifest, ServerManifest, StorageFacts } from "../model/results.ts";
import type { Scenario } from "../model/scenario/schema.ts";

/** A value as canonical text: object keys sorted, undefined fields left out. */
function stable(v: unknown): string {
  if (v === undefined) return "(unset)";
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(stable).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .filter((k) => o[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${stable(o[k])}`)
    .join(",")}}`;
}

const str = (v: unknown): string | null =>
  v === undefined || v === null ? null : typeof v === "object" ? stable(v) : String(v);

function pushDiff(out: FactDiff[], scope: string, field: string, a: unknown, b: unknown): void {
  const sa = str(a);
  const sb = str(b);
  if (sa !== sb) out.push({ scope, field, base: sa, new: sb });
}

/** A host or server fact that differs between two runs. */
export interface FactDiff {
  /** "host local", "server mariadb", "sysbench" */
  scope: string;
  field: string;
  base: string | null;
  new: string | null;
}

/** The parts of a scenario that define the experiment (not its name, hosts or images: those are what is compared). */
export function scenarioIdentity(s: Scenario): Record<string, unknown> {
  return {
    // How a run reacts to disturbance is not what it measures: runs with and without re-runs compare.
    workload: { ...s.workload, rerunDisturbed: undefined },
    config: s.config,
    storage: s.storage,
    load: s.load,
    resources: s.resources,
    order: s.order,
    servers: Object.fromEntries(s.servers.map((x) => [x.id, { config: x.config ?? null, storage: x.storage ?? null }])),
  };
}

/** Paths where two values differ, e.g. `workload.threads: [1,4] vs [1,8]`. Arrays compare as a whole. */
export function deepDiff(a: unknown, b: unknown, path = ""): string[] {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => deepDiff(a[k], b[k], path ? `${path}.${k}` : k));
  }
  return stable(a) === stable(b) ? [] : [`${path || "(root)"}: ${stable(a)} vs ${stable(b)}`];
}

/** Scenario, pins (applied resources) and rendered config differences between two runs. */
export function runDifferences(a: RunManifest, b: RunManifest, servers: string[]): string[] {
  const out = deepDiff(scenarioIdentity(a.scenario), scenarioIdentity(b.scenario)).map((d) => `scenario.${d}`);
  for (const id of servers) {
    const sa = a.servers.find((s) => s.id === id);
    const sb = b.servers.find((s) => s.id === id);
    if (!sa || !sb) continue;
    out.push(...deepDiff(sa.resources ?? {}, sb.resources ?? {}).map((d) => `pins ${id}.${d}`));
    if ((sa.cnf ?? "") !== (sb.cnf ?? "")) out.push(`config ${id}: the rendered my.cnf differs`);
  }
  return out;
}

export function factDifferences(a: RunManifest, b: RunManifest, servers: string[]): FactDiff[] {
  const out: FactDiff[] = [];
  const hostIds = [...new Set([...a.hosts.map((h) => h.id), ...b.hosts.map((h) => h.id)])];
  // Hosts are matched by id; one host on each side is matched whatever its id (that is the usual case: two machines).
  const pairs: Array<[string, (typeof a.hosts)[number] | undefined, (typeof b.hosts)[number] | undefined]> =
    a.hosts.length === 1 && b.hosts.length === 1
      ? [
          [
            a.hosts[0].id === b.hosts[0].id ? a.hosts[0].id : `${a.hosts[0].id}/${b.hosts[0].id}`,
            a.hosts[0],
            b.hosts[0],
          ],
        ]
      : hostIds.map((id) => [id, a.hosts.find((h) => h.id === id), b.hosts.find((h) => h.id === id)]);
  for (const [id, ha, hb] of pairs) {
    const scope = `host ${id}`;
    pushDiff(out, scope, "kernel", ha?.kernel, hb?.kernel);
    pushDiff(out, scope, "os", ha?.os, hb?.os);
    pushDiff(out, scope, "cpu", ha?.cpuModel, hb?.cpuModel);
    pushDiff(out, scope, "cpus", ha?.cpus, hb?.cpus);
    pushDiff(
      out,
      scope,
      "memory",
      ha?.memoryBytes === undefined ? undefined : formatBytes(ha.memoryBytes),
      hb?.memoryBytes === undefined ? undefined : formatBytes(hb.memoryBytes),
    );
    pushDiff(out, scope, "docker version", ha?.dockerVersion, hb?.dockerVersion);
    pushDiff(out, scope, "docker API", ha?.apiVersion, hb?.apiVersion);
    pushDiff(out, scope, "storage driver", ha?.storageDriver, hb?.storageDriver);
    pushDiff(out, scope, "cgroup version", ha?.cgroupVersion, hb?.cgroupVersion);
    for (const d of kernelFactDifferences(ha, hb)) out.push({ scope, ...d });
  }
  for (const id of servers) {
    const sa: Partial<ServerManifest> = a.servers.find((s) => s.id === id) ?? {};
    const sb: Partial<ServerManifest> = b.servers.find((s) => s.id === id) ?? {};
    const scope = `server ${id}`;
    pushDiff(out, scope, "version", sa.version, sb.version);
    pushDiff(out, scope, "image", sa.imageTag ?? sa.image, sb.imageTag ?? sb.image);
    pushDiff(out, scope, "image id", sa.imageId, sb.imageId);
    pushDiff(out, scope, "package", sa.packageVersion, sb.packageVersion);
    pushDiff(out, scope, "connection", sa.connection, sb.connection);
    const st = (s: Partial<ServerManifest>): Partial<StorageFacts> => s.storage ?? {};
    for (const f of ["kind", "fsType", "mountOptions", "raidLevel", "chunk", "loopBacked", "sizeBytes"] as const) {
      pushDiff(
        out,
        scope,
        `storage ${f}`,
        (st(sa) as Record<string, unknown>)[f],
        (st(sb) as Record<string, unknown>)[f],
      );
    }
    pushDiff(out, scope, "storage members", st(sa).members?.length, st(sb).members?.length);
    pushDiff(out, scope, "storage details", st(sa).details, st(sb).details);
  }
  pushDiff(out, "sysbench", "version", a.sysbench?.version, b.sysbench?.version);
  pushDiff(out, "sysbench", "package", a.sysbench?.packageVersion, b.sysbench?.packageVersion);
  return out;
}

export function variableDifferences(a: RunManifest, b: RunManifest, servers: string[]): FactDiff[] {
  const out: FactDiff[] = [];
  for (const id of servers) {
    const va = a.servers.find((s) => s.id === id)?.effectiveVariables ?? {};
    const vb = b.servers.find((s) => s.id === id)?.effectiveVariables ?? {};
    for (const k of [...new Set([...Object.keys(va), ...Object.keys(vb)])].sort())
      pushDiff(out, `server ${id}`, k, va[k], vb[k]);
  }
  return out;
}
