/**
 * `twinbench/testcontainers`: the lab's servers in your own integration tests. `TwinbenchMariaDbContainer` and
 * `TwinbenchMySqlContainer` are testcontainers' MariaDB and MySQL modules with twinbench's pinned image (built when
 * missing), the lab's neutral config rendered for that server, a tmpfs data dir and twinbench's labels.
 * `startTwins` starts two of them with identical config and proves it with the must-match table.
 *
 * Needs the optional peer dependencies `testcontainers`, `@testcontainers/mariadb` and `@testcontainers/mysql`.
 *
 * @example
 * ```ts
 * import { TwinbenchMariaDbContainer } from "twinbench/testcontainers";
 * const db = await new TwinbenchMariaDbContainer().withDatabase("app").start();
 * // … db.getConnectionUri() …
 * await db.stop();
 * ```
 * @packageDocumentation
 */
// First, on purpose: ES modules run their imports in order, so this check runs (and throws on a Node the installed
// testcontainers cannot run on) before containers.ts loads testcontainers. A static import rather than an awaited
// dynamic one keeps this module free of top-level await, so `require("twinbench/testcontainers")` keeps working.
import "./preflight.ts";

export * from "./containers.ts";
