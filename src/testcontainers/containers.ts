/**
 * The container classes of `twinbench/testcontainers` (see index.ts, which checks the installed testcontainers
 * against this Node before this module, and testcontainers with it, is loaded).
 */
import { MariaDbContainer, StartedMariaDbContainer } from "@testcontainers/mariadb";
import { MySqlContainer, StartedMySqlContainer } from "@testcontainers/mysql";
import { ImageName } from "testcontainers";
import { TwinbenchError } from "../core/base/errors.ts";
import type { MustMatchRow } from "../core/model/results.ts";
import type { Scenario } from "../core/model/scenario/schema.ts";
import { primaryPair } from "../core/model/scenario/pairs.ts";
import { loadScenario } from "../adapters/scenario-file.ts";
import { loadLock } from "../adapters/images/index.ts";
import type { Endpoint } from "../adapters/mysql/probe.ts";
import {
  CNF_PATH,
  DATADIR,
  identityTable,
  prepareServer,
  readIdentity,
  syntheticScenario,
  waitForSql,
  type OptionValue,
  type ServerIdentity,
  type TwinbenchServerInfo,
  type TwinbenchServerOptions,
} from "./server.ts";

export { defaultSession } from "../app/session.ts";
export {
  type OptionValue,
  type ServerFamily,
  type ServerIdentity,
  type TwinbenchServerInfo,
  type TwinbenchServerOptions,
} from "./server.ts";

/** What the started twinbench containers add to testcontainers' started MariaDB/MySQL containers. */
export interface StartedTwinbenchServer {
  /** The image, rendered config, scenario and labels twinbench chose. */
  readonly twinbench: TwinbenchServerInfo;
  /** The must-match variables, read now from the running server's `SHOW GLOBAL VARIABLES`. */
  getConfigIdentity(): Promise<ServerIdentity>;
  getHost(): string;
  getPort(): number;
  getRootPassword(): string;
  getConnectionUri(isRoot?: boolean): string;
  stop(): ReturnType<StartedMariaDbContainer["stop"]>;
}

const options = (o: TwinbenchServerOptions | string | undefined): TwinbenchServerOptions =>
  typeof o === "string" ? { image: o } : (o ?? {});

/** The part both container classes share once the server is prepared: config file, data dir and labels. */
function configure(c: MariaDbContainer | MySqlContainer, info: TwinbenchServerInfo, o: TwinbenchServerOptions): void {
  c.withCopyContentToContainer([{ content: info.cnf, target: CNF_PATH, mode: 0o644 }])
    .withTmpFs({ [DATADIR]: `rw,size=${o.tmpfsSize ?? "2g"}` })
    .withLabels(info.labels);
}

/** Readiness by `SELECT 1` as root; on failure the container is removed before the error is rethrown. */
async function ready(c: StartedMariaDbContainer | StartedMySqlContainer): Promise<void> {
  try {
    await waitForSql(rootEndpoint(c));
  } catch (e) {
    await c.stop().catch(() => undefined); // the readiness error below is the one to report
    throw e;
  }
}

function rootEndpoint(c: { getHost(): string; getPort(): number; getRootPassword(): string }): Endpoint {
  return { host: c.getHost(), port: c.getPort(), user: "root", password: c.getRootPassword() };
}

/**
 * testcontainers' `MariaDbContainer` on twinbench's pinned MariaDB image, with the lab's neutral config rendered
 * for that server. `new TwinbenchMariaDbContainer()` uses the lock's newest MariaDB (mariadb-11.8) and the neutral
 * profile; pass a lock image name (`"mariadb-10.11"`) or {@link TwinbenchServerOptions}. Everything else is
 * testcontainers' API: `withDatabase`, `withUsername`, `withUserPassword`, `withRootPassword`, `getConnectionUri`, ….
 */
export class TwinbenchMariaDbContainer extends MariaDbContainer {
  private readonly twinbenchOptions: TwinbenchServerOptions;

  constructor(opts?: TwinbenchServerOptions | string) {
    // The tag is a content hash known only once the image is ensured: start() sets it.
    super("twinbench/mariadb:pending");
    this.twinbenchOptions = options(opts);
  }

  /** Build the image if missing, render the config, start, and wait for `SELECT 1`. */
  override async start(): Promise<StartedTwinbenchMariaDbContainer> {
    const info = await prepareServer("mariadb", this.twinbenchOptions);
    this.imageName = ImageName.fromString(info.tag);
    this.createOpts.Image = info.tag;
    configure(this, info, this.twinbenchOptions);
    const started = await super.start();
    await ready(started);
    return new StartedTwinbenchMariaDbContainer(started, info);
  }
}

/** A started {@link TwinbenchMariaDbContainer}: testcontainers' started MariaDB container plus twinbench's facts. */
export class StartedTwinbenchMariaDbContainer extends StartedMariaDbContainer implements StartedTwinbenchServer {
  constructor(
    started: StartedMariaDbContainer,
    readonly twinbench: TwinbenchServerInfo,
  ) {
    super(started, started.getDatabase(), started.getUsername(), started.getUserPassword(), started.getRootPassword());
  }

  getConfigIdentity(): Promise<ServerIdentity> {
    return readIdentity(rootEndpoint(this), this.twinbench);
  }
}

/**
 * testcontainers' `MySqlContainer` on twinbench's pinned MySQL image, with the lab's neutral config rendered for
 * that server. `new TwinbenchMySqlContainer()` uses the lock's newest MySQL (mysql-9.7) and the neutral profile.
 */
export class TwinbenchMySqlContainer extends MySqlContainer {
  private readonly twinbenchOptions: TwinbenchServerOptions;

  constructor(opts?: TwinbenchServerOptions | string) {
    super("twinbench/mysql:pending");
    this.twinbenchOptions = options(opts);
  }

  /** Build the image if missing, render the config, start, and wait for `SELECT 1`. */
  override async start(): Promise<StartedTwinbenchMySqlContainer> {
    const info = await prepareServer("mysql", this.twinbenchOptions);
    this.imageName = ImageName.fromString(info.tag);
    this.createOpts.Image = info.tag;
    configure(this, info, this.twinbenchOptions);
    const started = await super.start();
    await ready(started);
    return new StartedTwinbenchMySqlContainer(started, info);
  }
}

/** A started {@link TwinbenchMySqlContainer}: testcontainers' started MySQL container plus twinbench's facts. */
export class StartedTwinbenchMySqlContainer extends StartedMySqlContainer implements StartedTwinbenchServer {
  constructor(
    started: StartedMySqlContainer,
    readonly twinbench: TwinbenchServerInfo,
  ) {
    super(started, started.getDatabase(), started.getUsername(), started.getUserPassword(), started.getRootPassword());
  }

  getConfigIdentity(): Promise<ServerIdentity> {
    return readIdentity(rootEndpoint(this), this.twinbench);
  }
}

/** Either started twinbench container. */
export type StartedTwinbenchContainer = StartedTwinbenchMariaDbContainer | StartedTwinbenchMySqlContainer;

/** One server of {@link startTwins}' list form. */
export interface TwinSpec {
  /** A lock image name, e.g. `"mariadb-11.8"` or `"mysql-9.7"`. */
  image: string;
  /** Server id (default: the image name; `a`/`b` when both use the same image). */
  id?: string;
  /** This server's own overrides: deliberate differences (`servers[].config.set`). */
  set?: Record<string, OptionValue>;
}

/** Options of {@link startTwins}. */
export interface StartTwinsOptions {
  /** Return the table even when must-match variables differ unasked (default: such a difference is an error). */
  allowDifferences?: boolean;
  /** List form only: the profile and `config.set` both servers get. */
  profile?: TwinbenchServerOptions["profile"];
  set?: Record<string, OptionValue>;
  imageMode?: TwinbenchServerOptions["imageMode"];
  tmpfsSize?: string;
  session?: string;
  /** Adjust each container before it starts (`withDatabase`, `withUsername`, …). */
  configure?: (container: TwinbenchMariaDbContainer | TwinbenchMySqlContainer, serverId: string) => void;
}

/** Two started servers with identical config, and the proof. */
export interface StartedTwins extends AsyncDisposable {
  /** In the scenario's order: numerator first. */
  servers: [StartedTwinbenchContainer, StartedTwinbenchContainer];
  byId: Record<string, StartedTwinbenchContainer>;
  /** The must-match table, as in `twinbench config diff` and run.json. */
  mustMatch: MustMatchRow[];
  /** Rows that differ without being asked for (empty unless `allowDifferences`). */
  differences: MustMatchRow[];
  /** Stop both servers (idempotent). */
  stop(): Promise<void>;
}

/** A scenario's two compared servers: compare numerator/denominator, else its first two. */
function twinIds(s: Scenario): [string, string] {
  const pair = primaryPair(s);
  if (pair) return pair;
  if (s.servers.length < 2)
    throw new TwinbenchError(`scenario "${s.name}" has ${s.servers.length} server(s); startTwins needs two`, {
      code: "TWINS_NEED_TWO",
      hint: "list two servers",
    });
  return [s.servers[0]!.id, s.servers[1]!.id];
}

/**
 * Start two servers with identical config — a scenario's two compared servers (a scenario object or file), or two
 * images — and return them with the must-match table read from the running servers. A must-match difference that
 * nobody asked for (in `servers[].config.set`) stops both and throws `CONFIG_MISMATCH`, unless `allowDifferences`.
 *
 * @example
 * ```ts
 * await using twins = await startTwins([{ image: "mariadb-11.8" }, { image: "mysql-9.7" }]);
 * console.log(twins.mustMatch.filter((r) => r.equal).length);
 * ```
 */
export async function startTwins(
  scenarioOrServers: Scenario | string | [TwinSpec, TwinSpec],
  opts: StartTwinsOptions = {},
): Promise<StartedTwins> {
  let scenario: Scenario;
  if (Array.isArray(scenarioOrServers)) {
    const [a, b] = scenarioOrServers;
    const same = a.image === b.image;
    const specs = [a, b].map((s, i) => ({
      id: s.id ?? (same ? ["a", "b"][i]! : s.image.replace(/[^a-z0-9_-]/g, "-")),
      image: s.image,
      set: s.set,
    }));
    scenario = syntheticScenario(specs, { profile: opts.profile, set: opts.set });
  } else
    scenario =
      typeof scenarioOrServers === "string" ? (await loadScenario(scenarioOrServers)).scenario : scenarioOrServers;

  const lock = await loadLock();
  const started: StartedTwinbenchContainer[] = [];
  const stop = async () => {
    for (const s of started.splice(0)) await s.stop();
  };
  try {
    for (const id of twinIds(scenario)) {
      const o: TwinbenchServerOptions = {
        scenario,
        server: id,
        imageMode: opts.imageMode,
        tmpfsSize: opts.tmpfsSize,
        session: opts.session,
      };
      const image = scenario.servers.find((s) => s.id === id)?.image ?? "";
      const c =
        lock.images[image]?.family === "mysql" ? new TwinbenchMySqlContainer(o) : new TwinbenchMariaDbContainer(o);
      opts.configure?.(c, id);
      started.push(await c.start());
    }
    const identities = [];
    for (const s of started)
      identities.push({ identity: await s.getConfigIdentity(), deliberate: s.twinbench.deliberate });
    const rows = identityTable(identities);
    const differences = rows.filter((r) => !r.equal && !r.deliberate);
    if (differences.length > 0 && !opts.allowDifferences) {
      throw new TwinbenchError(
        `the twins differ in ${differences.length} must-match variable(s): ${differences
          .map(
            (r) =>
              `${r.variable} (${Object.entries(r.values)
                .map(([k, v]) => `${k}=${v}`)
                .join(", ")})`,
          )
          .join("; ")}`,
        {
          code: "CONFIG_MISMATCH",
          hint: "pin them in config.set, set them per server (a deliberate difference), or pass allowDifferences: true",
        },
      );
    }
    const servers = [...started] as [StartedTwinbenchContainer, StartedTwinbenchContainer];
    return {
      servers,
      byId: Object.fromEntries(servers.map((s) => [s.twinbench.id, s])),
      mustMatch: rows,
      differences,
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (e) {
    await stop().catch(() => undefined); // the start or identity error is the one to report
    throw e;
  }
}
