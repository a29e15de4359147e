/**
 * What a lab server is made from, before anything exists: its paths inside the container, its rendered config, its
 * names and labels, and the passwords of its users (LabServerInit, built by labServerInit). lab-server.ts starts it.
 */
import { DEFAULT_POOL_BYTES, derivedServerLimitBytes } from "../core/plan/fit.ts";
import { renderConfig, type RenderOutput } from "../core/config/render.ts";
import { parseSize, type Scenario, type ServerSpec, type Storage } from "../core/model/scenario/schema.ts";

export const DATADIR = "/var/lib/mysql";

export const SOCKET_DIR = "/run/mysqld";

export const SOCKET = `${SOCKET_DIR}/mysqld.sock`;

export const CNF_PATH = "/etc/twinbench/my.cnf";

export const MYSQL_UID = 999;

export interface LabServerInit {
  id: string;
  family: "mariadb" | "mysql";
  imageTag: string;
  storage: Storage;
  cnf: string;
  cpuset?: string;
  memoryBytes?: number;
  holderCpuset?: string;
  runId: string;
  sessionId: string;
  runDir: string;
  labels: (extra: Record<string, string>) => Record<string, string>;
  wipeDevices?: boolean;
  readyTimeoutMs: number;
  /** innodb_buffer_pool_size as rendered, for the tmpfs memory warning. */
  bufferPoolBytes?: number;
  /** Set when twinbench itself runs in a container: join each private network so probes reach the server. */
  selfContainerId?: string;
}

/**
 * Everything a server of a scenario needs, with the same pins for every server: its rendered config (per family,
 * version and storage kind), the scenario's cpuset and memory limit, the load cpuset for its holder.
 */
export function labServerInit(x: {
  scenario: Scenario;
  spec: ServerSpec;
  image: { family: "mariadb" | "mysql"; version: string; tag: string };
  neutralCnf: string;
  runId: string;
  sessionId: string;
  runDir: string;
  labels: LabServerInit["labels"];
  readyTimeoutMs?: number;
  wipeDevices?: boolean;
  selfContainerId?: string;
}): { init: LabServerInit; rendered: RenderOutput } {
  const { scenario, spec, image } = x;
  const storage = spec.storage ?? scenario.storage;
  const rendered = renderConfig({
    neutral: x.neutralCnf,
    family: image.family,
    version: image.version,
    storageKind: storage.kind,
    scenario,
    serverId: spec.id,
  });
  const bp = /^\s*innodb[-_]buffer[-_]pool[-_]size\s*=\s*(\S+)/m.exec(rendered.cnf);
  const init: LabServerInit = {
    id: spec.id,
    family: image.family,
    imageTag: image.tag,
    storage,
    cnf: rendered.cnf,
    cpuset: scenario.resources.server.cpuset,
    // The scenario's limit, else one derived from the buffer pool, overhead and tmpfs, as `plan` states it.
    memoryBytes:
      scenario.resources.server.memory !== undefined
        ? parseSize(scenario.resources.server.memory)
        : derivedServerLimitBytes({
            poolBytes: (bp ? parseSize(bp[1]!) : undefined) ?? DEFAULT_POOL_BYTES,
            tmpfsBytes: storage.kind === "tmpfs" ? (parseSize(storage.size) ?? 0) : 0,
            maxThreads: Math.max(...scenario.workload.threads),
          }),
    holderCpuset: scenario.resources.load.cpuset,
    runId: x.runId,
    sessionId: x.sessionId,
    runDir: x.runDir,
    labels: x.labels,
    wipeDevices: x.wipeDevices,
    readyTimeoutMs: x.readyTimeoutMs ?? 180_000,
    bufferPoolBytes: bp ? parseSize(bp[1]!) : undefined,
    selfContainerId: x.selfContainerId,
  };
  return { init, rendered };
}

export const BENCH_USER = "sbtest";

export const BENCH_DB = "sbtest";

/** The benchmark user's password on `server`: its own random one, independent of root's. */
export function benchPassword(server: { readonly benchPassword: string }): string {
  return server.benchPassword;
}
