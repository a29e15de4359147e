/**
 * mysql2 probes: readiness by `SELECT 1` under a deadline (never by log lines), the benchmark user, variables.
 */
import mysql from "mysql2/promise";
import { TwinbenchError, CancelledError } from "../../core/base/errors.ts";
import { withDeadline } from "../../core/base/deadline.ts";
import type { BacklogSample } from "../../core/measure/levers.ts";
import type { ServerStatus } from "../../core/model/cell.ts";

export interface Endpoint {
  host: string;
  port: number;
  user: string;
  password: string;
}

/**
 * One control connection. MySQL 8+ authenticates with caching_sha2_password, which over a connection without TLS
 * needs the server's RSA public key; mysql2 3.26 stopped fetching it unless allowed, and every MySQL
 * server then failed its readiness probe. The servers twinbench connects to are the lab's own: containers it created,
 * on its own Docker network or published on loopback, or on a remote engine the user named. The risk mysql2 names
 * is a key swapped on the network path, which recovers the password. That password guards only a throwaway
 * benchmark server, so twinbench allows the key's retrieval. Across an untrusted network to a remote engine, the
 * path is the user's to secure (an SSH tunnel, as docs/hosts.md describes).
 */
async function connect(ep: Endpoint, timeoutMs = 5000) {
  return mysql.createConnection({
    host: ep.host,
    port: ep.port,
    user: ep.user,
    password: ep.password,
    connectTimeout: timeoutMs,
    multipleStatements: false,
    allowPublicKeyRetrieval: true,
  });
}

/**
 * Retry `SELECT 1` until it answers or the deadline passes. `alive()` lets the caller stop early when the
 * container has exited.
 */
export interface ReadyOptions {
  deadlineMs: number;
  signal?: AbortSignal;
  alive?: () => Promise<boolean>;
}

/**
 * Retry `attempt` (one `SELECT 1`, however it is sent) every 500 ms until it answers or the deadline passes.
 * `attempt` resolves to null on success or to the error text. `alive()` lets the caller stop early when the
 * container has exited. Resolves to the seconds it took.
 * Kept over p-retry: this is a deadline-bounded poll at a fixed 500 ms with a liveness check between
 * attempts and the last error in the message; p-retry counts attempts with backoff, which is not the contract here.
 */
export async function pollReady(
  ep: Endpoint,
  attempt: () => Promise<string | null>,
  opts: ReadyOptions,
): Promise<number> {
  const start = performance.now();
  let last = "no attempt";
  while (performance.now() - start < opts.deadlineMs) {
    if (opts.signal?.aborted) throw new CancelledError();
    try {
      const error = await attempt();
      if (error === null) return (performance.now() - start) / 1000;
      last = error;
    } catch (e) {
      last = (e as Error).message;
    }
    if (opts.alive && !(await opts.alive()))
      throw new TwinbenchError(
        `server at ${ep.host}:${ep.port} exited before it answered SELECT 1 (last error: ${last})`,
        { code: "SERVER_EXITED", hint: "see the server's log tail below" },
      );
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new TwinbenchError(
    `server at ${ep.host}:${ep.port} did not answer SELECT 1 within ${opts.deadlineMs} ms (last error: ${last})`,
    {
      code: "SERVER_NOT_READY",
      hint: "see the server's log tail; a large buffer pool or redo log on slow storage can need a longer --ready-timeout",
    },
  );
}

/** The longest one readiness attempt (connect and `SELECT 1`) may take: a stopped server never answers. */
export const READY_ATTEMPT_MS = 5000;
/**
 * The longest a control connection's work (variables, status, sizes, the benchmark user) may take: a stopped or
 * stalled server would otherwise hold the run for ever. The sizes read of a large schema takes seconds.
 */
export const QUERY_DEADLINE_MS = 60_000;

/** The error of a probe call past its deadline: the call, the deadline and the server's address. */
export function probeDeadline(what: string, ep: Endpoint, ms: number): TwinbenchError {
  return new TwinbenchError(`${what} on the server at ${ep.host}:${ep.port} did not finish within ${ms / 1000} s`, {
    code: "DEADLINE_EXCEEDED",
    hint: "the server stopped answering (stopped, hung, or its data dir stalled); see its log in the results folder",
  });
}

/** Readiness by `SELECT 1` through mysql2 (never by log lines). */
export async function waitReady(ep: Endpoint, opts: ReadyOptions): Promise<number> {
  return pollReady(
    ep,
    () => withConnection(ep, async (c) => (await c.query("SELECT 1"), null), READY_ATTEMPT_MS),
    opts,
  );
}

/**
 * Run `fn` on a fresh control connection, all of it (connect, queries, close) within `deadlineMs`. Past it, or on
 * any failure, the connection is destroyed rather than closed: a polite close waits on a server that may never
 * answer.
 */
export async function withConnection<T>(
  ep: Endpoint,
  fn: (c: mysql.Connection) => Promise<T>,
  deadlineMs = QUERY_DEADLINE_MS,
  what = "a query",
): Promise<T> {
  let conn: mysql.Connection | undefined;
  const work = (async () => {
    conn = await connect(ep, Math.min(deadlineMs, 5000));
    const r = await fn(conn);
    await conn.end();
    return r;
  })();
  try {
    return await withDeadline(work, deadlineMs, () => probeDeadline(what, ep, deadlineMs));
  } catch (e) {
    conn?.destroy();
    work.catch(() => undefined); // its failure is the one raised above, or it lost the race to the deadline
    throw e;
  }
}

export interface ServerFacts {
  version: string;
  versionComment: string;
  variables: Record<string, string>;
}

export async function readServerFacts(ep: Endpoint): Promise<ServerFacts> {
  return withConnection(
    ep,
    async (c) => {
      const [[v]] = (await c.query("SELECT @@version AS version, @@version_comment AS comment")) as unknown as [
        [{ version: string; comment: string }],
      ];
      const [rows] = (await c.query("SHOW GLOBAL VARIABLES")) as unknown as [
        Array<{ Variable_name: string; Value: string | null }>,
      ];
      const variables: Record<string, string> = {};
      for (const r of rows) variables[r.Variable_name] = r.Value ?? "";
      return { version: v.version, versionComment: v.comment, variables };
    },
    QUERY_DEADLINE_MS,
    "reading the server's variables",
  );
}

/** Create the benchmark database (explicit charset and collation) and user. Returns the user's auth plugin. */
export async function createBenchUser(
  ep: Endpoint,
  bench: { user: string; password: string; db: string; charset: string; collation: string },
): Promise<string | null> {
  return withConnection(
    ep,
    async (c) => {
      await c.query(`DROP DATABASE IF EXISTS \`${bench.db}\``);
      await c.query(`CREATE DATABASE \`${bench.db}\` CHARACTER SET ${bench.charset} COLLATE ${bench.collation}`);
      await c.query(`DROP USER IF EXISTS ?@'%'`, [bench.user]);
      await c.query(`CREATE USER ?@'%' IDENTIFIED BY ?`, [bench.user, bench.password]);
      await c.query(`GRANT ALL PRIVILEGES ON \`${bench.db}\`.* TO ?@'%'`, [bench.user]);
      const [rows] = (await c.query("SELECT plugin FROM mysql.user WHERE user = ? AND host = '%'", [
        bench.user,
      ])) as unknown as [Array<{ plugin: string }>];
      return rows[0]?.plugin ?? null;
    },
    QUERY_DEADLINE_MS,
    "creating the benchmark user",
  );
}

/** Whether a mysql2 error is the server's answer (an SQL error with its errno), not a lost connection or timeout. */
export function isServerAnswer(e: unknown): boolean {
  const x = e as { fatal?: boolean; errno?: unknown; sqlState?: unknown } | null;
  return (
    !!x && typeof x === "object" && x.fatal !== true && typeof x.errno === "number" && typeof x.sqlState === "string"
  );
}

/**
 * The purge history length from information_schema.INNODB_METRICS `trx_rseg_history_len`, switched on first. Null
 * when the server has no such counter or refuses (no privilege): quiescence then waits on the dirty pages alone, and
 * a cell's backlog says "unknown" for it.
 */
async function historyLengthOf(c: { query: (sql: string) => Promise<unknown> }): Promise<number | null> {
  try {
    await c.query("SET GLOBAL innodb_monitor_enable = 'trx_rseg_history_len'");
    const [rows] = (await c.query(
      "SELECT `COUNT` AS n FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'",
    )) as unknown as [Array<{ n: number | string }>];
    return rows[0] === undefined ? null : Number(rows[0].n);
  } catch (e) {
    // The server's own refusal (no such counter, no privilege: an error it answered with) means no counter. A lost
    // connection or a timeout (mysql2 marks those fatal) is a failure, raised.
    if (isServerAnswer(e)) return null;
    throw e;
  }
}

/**
 * InnoDB's background backlog (workload.quiesce): the purge history length from information_schema.INNODB_METRICS
 * `trx_rseg_history_len` (the counter is switched on first; MariaDB and MySQL both have it, null when the server
 * refuses) and `Innodb_buffer_pool_pages_dirty`.
 */
export async function readInnodbBacklog(ep: Endpoint): Promise<BacklogSample> {
  return withConnection(
    ep,
    async (c) => {
      const historyLength = await historyLengthOf(c);
      const [st] = (await c.query("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'")) as unknown as [
        Array<{ Value: string }>,
      ];
      return { historyLength, dirtyPages: Number(st[0]?.Value ?? 0) };
    },
    QUERY_DEADLINE_MS,
    "reading InnoDB's backlog",
  );
}

/**
 * The server's status around a measured cell (src/core/measure/cellstate.ts): every numeric SHOW GLOBAL STATUS value, the
 * purge history length (INNODB_METRICS `trx_rseg_history_len`, switched on first; null when refused) and, with
 * `sizes`, the data and index bytes of schema `db` and the buffer pool size. The sizes are read before the status,
 * so that their dictionary reads are not counted in the status of a cell that starts after them.
 */
export async function readServerStatus(ep: Endpoint, o: { db: string; sizes: boolean }): Promise<ServerStatus> {
  return withConnection(
    ep,
    async (c) => {
      let dataBytes: number | null | undefined;
      let poolBytes: number | null | undefined;
      if (o.sizes) {
        const [[sz]] = (await c.query(
          "SELECT SUM(DATA_LENGTH + INDEX_LENGTH) AS bytes FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?",
          [o.db],
        )) as unknown as [[{ bytes: string | number | null }]];
        dataBytes = sz.bytes === null ? null : Number(sz.bytes);
        const [[bp]] = (await c.query("SELECT @@innodb_buffer_pool_size AS bytes")) as unknown as [
          [{ bytes: string | number }],
        ];
        poolBytes = Number(bp.bytes);
      }
      const historyLength = await historyLengthOf(c);
      const [st] = (await c.query("SHOW GLOBAL STATUS")) as unknown as [
        Array<{ Variable_name: string; Value: string | null }>,
      ];
      const values: Record<string, number> = {};
      for (const r of st) {
        // Only numbers: status values such as Innodb_buffer_pool_load_status are text and say nothing here.
        if (r.Value === null || r.Value.trim() === "") continue;
        const n = Number(r.Value);
        if (Number.isFinite(n)) values[r.Variable_name] = n;
      }
      return { values, historyLength, ...(o.sizes ? { dataBytes, poolBytes } : {}) };
    },
    QUERY_DEADLINE_MS,
    "reading the server's status",
  );
}

/** The probe port: what the app needs from a SQL client. The mysql2 implementation is the default. */
export interface Probe {
  waitReady: typeof waitReady;
  createBenchUser: typeof createBenchUser;
  readServerFacts: typeof readServerFacts;
  /** Optional so that test probes need not implement it: without it, workload.quiesce waits for nothing (warned). */
  readInnodbBacklog?: typeof readInnodbBacklog;
  /** Optional so that test probes need not implement it: without it, cells carry no backlog, warm state or InnoDB work. */
  readServerStatus?: typeof readServerStatus;
  /** Optional so that test probes need not implement it: the rows of one query (the TPC-C-like checks). */
  queryRows?: typeof queryRows;
}

/** The rows of one read-only query in database `db`, as objects by column name. */
export async function queryRows(ep: Endpoint, db: string, sql: string): Promise<Array<Record<string, unknown>>> {
  return withConnection(ep, async (c) => {
    await c.changeUser({ database: db });
    const [rows] = await c.query(sql);
    return rows as Array<Record<string, unknown>>;
  });
}

export const mysql2Probe: Probe = {
  waitReady,
  createBenchUser,
  readServerFacts,
  readInnodbBacklog,
  readServerStatus,
  queryRows,
};
