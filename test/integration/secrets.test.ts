/**
 * Secrets stay secret: during a tiny run the servers' root password and the benchmark user's password are read
 * from the containers' environments (where they are passed), then no process's argv on this host holds either while
 * sysbench runs, and after the run neither appears anywhere in the results folder (raw logs included) or in the
 * event stream.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { docker, ensureLab, tinyScenario } from "./support/lab.ts";
import { RunProcess } from "../faults/support.ts";

beforeAll(ensureLab, 1_800_000);

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** Every process's argv on this host, joined. */
async function allArgv(): Promise<string> {
  const parts: string[] = [];
  for (const pid of (await readdir("/proc")).filter((n) => /^\d+$/.test(n)))
    parts.push(await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")); // a process that ended meanwhile
  return parts.join("\n");
}

const envOf = async (id: string, key: string): Promise<string | undefined> => {
  const i = await docker.getContainer(id).inspect();
  return (i.Config.Env ?? []).find((e) => e.startsWith(`${key}=`))?.slice(key.length + 1);
};

describe("passwords", () => {
  it(
    "are on no argv while a cell runs, and nowhere in the results folder or the event stream",
    { timeout: 900_000 },
    async () => {
      const { file, dir } = await tinyScenario({}, { threads: [1], duration: "4s", repeats: 1 });
      const out = join(dir, "out");
      const p = new RunProcess(["run", file, "--out", out]);
      const runId = await p.runId();
      await p.waitFor((e) => e.type === "interval" && e.phase === "measure");
      const f = JSON.stringify({ label: [`twinbench.run=${runId}`] });
      const cs = await docker.listContainers({ filters: f });
      const server = cs.find((c) => c.Labels["twinbench.role"] === "server")!;
      const load = cs.find((c) => c.Labels["twinbench.role"] === "load")!;
      const root = (await envOf(server.Id, "MARIADB_ROOT_PASSWORD")) ?? (await envOf(server.Id, "MYSQL_ROOT_PASSWORD"));
      const bench = await envOf(load.Id, "TB_MYSQL_PASSWORD");
      expect(root).toMatch(/^[0-9a-f]{24}$/);
      expect(bench).toMatch(/^[0-9a-f]{24}$/);
      expect(bench).not.toContain(root!.slice(0, 8));
      const argv = await allArgv();
      expect(argv.includes(root!), "root password on an argv").toBe(false);
      expect(argv.includes(bench!), "benchmark password on an argv").toBe(false);

      const r = await p.child;
      expect(r.exitCode, r.all).toBe(0);
      expect(r.all.includes(root!), "root password in the output or event stream").toBe(false);
      expect(r.all.includes(bench!), "benchmark password in the output or event stream").toBe(false);
      const files = await filesUnder(out);
      expect(files.some((x) => x.includes(`${join(out, "raw")}/`))).toBe(true);
      for (const x of files) {
        const text = await readFile(x, "latin1");
        expect(text.includes(root!), `root password in ${x}`).toBe(false);
        expect(text.includes(bench!), `benchmark password in ${x}`).toBe(false);
      }
    },
  );
});
