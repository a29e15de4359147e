/** The config identity stage on a fixed scenario: rows kept in run.json, one event, then a warning or a refusal. */
import { describe, expect, it } from "vitest";
import { checkConfigIdentity } from "../../../../src/app/run/identity.ts";
import type { ServerManifest } from "../../../../src/core/model/results.ts";
import { memorySession, stageContext } from "../../../support/run-context.ts";
import { scenario } from "../../../support/scenario.ts";

const server = (id: string, family: "mariadb", vars: Record<string, string>): ServerManifest =>
  ({ id, family, effectiveVariables: { innodb_buffer_pool_size: "134217728", ...vars } }) as unknown as ServerManifest;

const same = [server("a", "mariadb", {}), server("b", "mariadb", {})];
const differ = [
  server("a", "mariadb", { innodb_flush_log_at_trx_commit: "1" }),
  server("b", "mariadb", { innodb_flush_log_at_trx_commit: "2" }),
];

describe("checkConfigIdentity", () => {
  it.each([
    ["the same variables", same, {}, 0, []],
    [
      "a difference nobody asked for",
      differ,
      {},
      1,
      ["config identity: 1 must-match difference(s): innodb_flush_log_at_trx_commit (a=1, b=2)"],
    ],
    [
      "a difference asked for in config.set",
      differ,
      {
        servers: [
          { id: "a", image: "mariadb-11.8", config: { set: { innodb_flush_log_at_trx_commit: 1 } } },
          { id: "b", image: "mysql-9.7" },
        ],
      },
      0,
      [],
    ],
  ])("%s: rows in run.json, the differences in the event, and the warnings", async (_, servers, over, n, warned) => {
    const { ctx, events, warnings } = stageContext({ scenario: scenario(over) });
    const { session, state } = memorySession();
    const rows = await checkConfigIdentity(ctx, session, servers);
    expect(state.manifest.servers).toBe(servers);
    expect(state.manifest.mustMatch).toBe(rows);
    expect(state.saves).toBe(1);
    const ev = events.find((e) => e.type === "config-identity");
    expect(ev).toMatchObject({ differences: n, rows, servers });
    expect(warnings()).toEqual(warned);
    expect(rows.find((r) => r.variable === "innodb_flush_log_at_trx_commit")?.equal).toBe(servers === same);
  });

  it("with --strict a difference nobody asked for is an error naming it, after run.json is saved", async () => {
    const { ctx, warnings } = stageContext({ opts: { strict: true } });
    const { session, state } = memorySession();
    const e = await checkConfigIdentity(ctx, session, differ).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "CONFIG_MISMATCH" });
    expect((e as Error).message).toBe(
      "servers differ in 1 must-match variable(s): innodb_flush_log_at_trx_commit (a=1, b=2)",
    );
    expect(state.saves).toBe(1);
    expect(warnings()).toEqual([]);
  });
});
