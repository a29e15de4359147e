/**
 * The config identity stage: the must-match variables of every server side by side. A difference nobody asked
 * for is a warning, or (`strict`) an error before any measurement.
 */
import { TwinbenchError } from "../../core/base/errors.ts";
import type { MustMatchRow, ServerManifest } from "../../core/model/results.ts";
import { mustMatch } from "../../core/config/mustmatch.ts";
import type { RunContext } from "./context.ts";
import type { ResultsSession } from "./session.ts";

export async function checkConfigIdentity(
  ctx: RunContext,
  session: ResultsSession,
  servers: ServerManifest[],
): Promise<MustMatchRow[]> {
  const { scenario } = ctx;
  const rows: MustMatchRow[] = mustMatch(
    servers.map((m) => ({
      id: m.id,
      family: m.family,
      variables: m.effectiveVariables ?? {},
      deliberate: Object.keys(scenario.servers.find((s) => s.id === m.id)?.config?.set ?? {}),
      sslCipher: m.connection?.sslCipher ?? null,
    })),
  );
  session.manifest.servers = servers;
  session.manifest.mustMatch = rows;
  await session.save();
  const unexpected = rows.filter((r) => !r.equal && !r.deliberate);
  const differences = unexpected.length;
  ctx.emit({ type: "config-identity", at: ctx.at(), rows, differences, servers });
  if (differences > 0) {
    const names = unexpected.map(
      (r) =>
        `${r.variable} (${Object.entries(r.values)
          .map(([k, v]) => `${k}=${v}`)
          .join(", ")})`,
    );
    if (ctx.opts.strict)
      throw new TwinbenchError(`servers differ in ${differences} must-match variable(s): ${names.join("; ")}`, {
        code: "CONFIG_MISMATCH",
        hint: "pin them in lab/my.cnf or config.set, or run without --strict to measure anyway (reported as a warning)",
      });
    ctx.warn(`config identity: ${differences} must-match difference(s): ${names.join("; ")}`);
  }
  return rows;
}
