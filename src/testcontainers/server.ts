/**
 * What a twinbench testcontainers server needs before testcontainers creates it: the lock's pinned image (built
 * through ensureImages when missing), the lab's neutral config rendered for that server exactly as a run renders
 * it (same profile, `config.set` and `servers[].config.set`), and twinbench's labels. And, once it runs, its
 * must-match identity read from the server itself.
 */
import { TwinbenchError } from "../core/base/errors.ts";
import { resourceLabels, LABEL } from "../core/base/labels.ts";
import { lockEntry, type Lock } from "../core/images/lock.ts";
import type { ModeChoice } from "../core/images/context.ts";
import { compareVersions, parseVersion } from "../core/config/version.ts";
import { renderConfig } from "../core/config/render.ts";
import { mustMatch } from "../core/config/mustmatch.ts";
import type { MustMatchRow, TranslationEntry } from "../core/model/results.ts";
import { ScenarioSchema, type Scenario } from "../core/model/scenario/schema.ts";
import type { Profile } from "../core/config/render.ts";
import { DockerEngine } from "../adapters/docker/engine.ts";
import { defaultSession } from "../app/session.ts";
import { ensureImages, loadLock } from "../adapters/images/index.ts";
import { loadScenario, readNeutralConfig } from "../adapters/scenario-file.ts";
import { readServerFacts, waitReady, type Endpoint } from "../adapters/mysql/probe.ts";
import { selfOwner } from "../adapters/host/process-identity.ts";

/** Where the server images read their option file (the entrypoint passes `--defaults-file` with it). */
export const CNF_PATH = "/etc/twinbench/my.cnf";
/** The data directory, a tmpfs as in the lab's default storage. */
export const DATADIR = "/var/lib/mysql";

/** The server families twinbench's containers run. */
export type ServerFamily = "mariadb" | "mysql";
/** A `config.set` value, as in a scenario file. */
export type OptionValue = string | number | boolean;

/** How a twinbench server is chosen and configured. Every field is optional. */
export interface TwinbenchServerOptions {
  /** A lock image name of this container's family, e.g. `"mariadb-10.11"` (default: the newest one in the lock). */
  image?: string;
  /**
   * Take the image, profile and `set` overrides from a scenario (a file path, or a scenario from `loadScenario`).
   * `server` names the scenario's server; default: the first of this container's family.
   */
  scenario?: Scenario | string;
  /** The scenario's server id (`servers[].id`). */
  server?: string;
  /** `neutral` (default) or `durable` (binlog ROW + sync_binlog=1), as `config.profile`. */
  profile?: Profile;
  /** Options on top of the neutral config, as `config.set` (on top of the scenario's, when one is given). */
  set?: Record<string, OptionValue>;
  /** How a missing image is built: `auto` (default), `debian` or `official`. */
  imageMode?: ModeChoice;
  /** Size of the tmpfs data directory (default `"2g"`). */
  tmpfsSize?: string;
  /** The `twinbench.session` and `twinbench.run` label (default: `$TWINBENCH_SESSION`, else one per process). */
  session?: string;
  /** An images/lock.yaml other than the package's own. */
  lockFile?: string;
}

/** What twinbench chose for a started server. */
export interface TwinbenchServerInfo {
  /** The server id (the scenario's, or the image name). */
  id: string;
  family: ServerFamily;
  /** The lock's image name, e.g. `"mariadb-11.8"`, and its upstream version. */
  image: string;
  version: string;
  /** The Docker tag, `twinbench/<name>:<content hash>`. */
  tag: string;
  /** The rendered option file the server runs with (what `twinbench config render` prints for it). */
  cnf: string;
  /** Every neutral option's fate for this server. */
  translation: TranslationEntry[];
  /** The scenario (given or synthesised) the config was rendered from. */
  scenario: Scenario;
  /** Keys of this server's own `servers[].config.set`: deliberate differences. */
  deliberate: string[];
  labels: Record<string, string>;
}

/** The must-match variables of a running server, read from its `SHOW GLOBAL VARIABLES`. */
export interface ServerIdentity {
  id: string;
  family: ServerFamily;
  /** `SELECT @@version`. */
  version: string;
  /** Each must-match row (as in `twinbench config diff`) and this server's normalised value. */
  values: Record<string, string | null>;
  /** The full `SHOW GLOBAL VARIABLES`. */
  variables: Record<string, string>;
}

/** The lock's default image of a family: its newest version. */
export function defaultImage(lock: Lock, family: ServerFamily): string {
  const names = Object.entries(lock.images)
    .filter(([, e]) => e.family === family)
    .sort(([, a], [, b]) => compareVersions(parseVersion(b.version), parseVersion(a.version)));
  const first = names[0];
  if (!first)
    throw new TwinbenchError(`the image lock ${lock.file} has no ${family} image`, {
      code: "LOCK_NO_IMAGE",
      hint: `add a ${family} entry to images/lock.yaml`,
    });
  return first[0];
}

/** A one-server scenario for a container configured without one: the lab's defaults, tmpfs, one thread. */
export function syntheticScenario(
  servers: Array<{ id: string; image: string; set?: Record<string, OptionValue> }>,
  o: { profile?: Profile; set?: Record<string, OptionValue> },
): Scenario {
  return ScenarioSchema.parse({
    name: "testcontainers",
    servers: servers.map((s) => ({ id: s.id, image: s.image, ...(s.set ? { config: { set: s.set } } : {}) })),
    config: { profile: o.profile ?? "neutral", set: o.set ?? {} },
    storage: { kind: "tmpfs" },
    workload: { tests: ["oltp_point_select"], threads: [1], duration: "1s" },
  });
}

/** Pick the scenario and its server for a container of `family`. */
async function chooseServer(
  family: ServerFamily,
  o: TwinbenchServerOptions,
  lock: Lock,
): Promise<{ scenario: Scenario; id: string }> {
  if (o.scenario !== undefined) {
    let scenario =
      typeof o.scenario === "string"
        ? (await loadScenario(o.scenario, { lockImages: Object.keys(lock.images) })).scenario
        : o.scenario;
    const spec = o.server
      ? scenario.servers.find((s) => s.id === o.server)
      : scenario.servers.find((s) => (o.image ? s.image === o.image : lock.images[s.image]?.family === family));
    if (!spec)
      throw new TwinbenchError(
        `scenario "${scenario.name}" has no ${o.server ? `server "${o.server}"` : `${family} server`}`,
        {
          code: "NO_SUCH_SERVER",
          hint: `servers: ${scenario.servers.map((s) => `${s.id} (${s.image})`).join(", ")}`,
        },
      );
    if (o.profile || o.set)
      scenario = {
        ...scenario,
        config: {
          ...scenario.config,
          profile: o.profile ?? scenario.config.profile,
          set: { ...scenario.config.set, ...o.set },
        },
      };
    return { scenario, id: spec.id };
  }
  const image = o.image ?? defaultImage(lock, family);
  const id = o.server ?? image.replace(/[^a-z0-9_-]/g, "-").slice(0, 31);
  return { scenario: syntheticScenario([{ id, image }], o), id };
}

/** Resolve options to the image (built when missing), the rendered config and the labels. */
export async function prepareServer(family: ServerFamily, o: TwinbenchServerOptions): Promise<TwinbenchServerInfo> {
  const lock = await loadLock(o.lockFile);
  const { scenario, id } = await chooseServer(family, o, lock);
  const spec = scenario.servers.find((s) => s.id === id)!;
  const entry = lockEntry(lock, spec.image);
  if (entry.family !== family)
    throw new TwinbenchError(`server "${id}" uses image ${spec.image}, a ${entry.family} image, not ${family}`, {
      code: "IMAGE_FAMILY_MISMATCH",
      hint:
        family === "mariadb"
          ? "use TwinbenchMySqlContainer for MySQL images"
          : "use TwinbenchMariaDbContainer for MariaDB images",
    });
  const rendered = renderConfig({
    neutral: await readNeutralConfig(scenario),
    family,
    version: entry.version,
    storageKind: "tmpfs",
    scenario,
    serverId: id,
  });
  const [img] = await ensureImages(new DockerEngine("local").images, [spec.image], {
    lock,
    mode: o.imageMode ?? scenario.imageMode,
  });
  const session = o.session ?? defaultSession();
  const labels = resourceLabels(
    { sessionId: session, runId: session, hostId: "local", ...selfOwner() },
    { [LABEL.role]: "testcontainers", [LABEL.server]: id },
  );
  return {
    id,
    family,
    image: spec.image,
    version: entry.version,
    tag: img!.tag,
    cnf: rendered.cnf,
    translation: rendered.translation,
    scenario,
    deliberate: Object.keys(spec.config?.set ?? {}),
    labels,
  };
}

/** Wait for `SELECT 1` as root through the mapped port (the port alone opens before the accounts exist). */
export async function waitForSql(ep: Endpoint, deadlineMs = 120_000): Promise<void> {
  await waitReady(ep, { deadlineMs });
}

/** The server's must-match identity, read from its own variables. */
export async function readIdentity(
  ep: Endpoint,
  info: Pick<TwinbenchServerInfo, "id" | "family">,
): Promise<ServerIdentity> {
  const facts = await readServerFacts(ep);
  const rows = mustMatch([{ id: info.id, family: info.family, variables: facts.variables, deliberate: [] }]);
  const values = Object.fromEntries(rows.map((r) => [r.variable, r.values[info.id] ?? null]));
  return { id: info.id, family: info.family, version: facts.version, values, variables: facts.variables };
}

/** The must-match table of several identities; `deliberate` per id as in `servers[].config.set`. */
export function identityTable(ids: Array<{ identity: ServerIdentity; deliberate: string[] }>): MustMatchRow[] {
  return mustMatch(
    ids.map(({ identity, deliberate }) => ({
      id: identity.id,
      family: identity.family,
      variables: identity.variables,
      deliberate,
    })),
  );
}
