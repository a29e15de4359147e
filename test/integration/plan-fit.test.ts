/**
 * A scenario that does not fit the engine host's memory is refused by `runScenario` on the real local engine
 * before anything exists: no results folder, no image build, no storage, no network, volume or container. Its
 * tmpfs data dirs are sized from this machine's memory (each as large as all of it), so the test holds on any host.
 * It asks the engine only for `info`: cheap, and nothing is created even when the check is wrong, because every
 * creating call is refused by the wrapper below.
 */
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createRunDeps } from "../../src/app/deps.ts";
import { runScenario } from "../../src/app/run.ts";
import { loadScenarioFile, readNeutralConfig } from "../../src/adapters/scenario-file.ts";
import type { Engine } from "../../src/core/model/engine/engine.ts";
import { TwinbenchError } from "../../src/core/base/errors.ts";

const CREATING = /^(create|start|run|putFile|connect)$/;
const RESOURCES = new Set(["containers", "networks", "volumes", "exec"]);

describe("run refuses a layout that does not fit the host", () => {
  it("PLAN_MEMORY_EXCEEDED from the real engine's facts, and nothing created", { timeout: 60_000 }, async () => {
    const gib = Math.ceil(totalmem() / 2 ** 30);
    const { scenario } = await loadScenarioFile("scenarios/quick.yaml", {
      sets: [`storage.size=${gib}g`, 'resources.server={cpuset: "1"}', "workload.repeats=2"],
      lockImages: ["mariadb-11.8", "mysql-9.7", "sysbench-1.0"],
    });
    const deps = await createRunDeps();
    const calls: string[] = [];
    const real = deps.engine;
    /** Records each call ("facts", "containers.create", …) and refuses every creating one. */
    const watched = <T extends object>(target: T, prefix: string): T =>
      new Proxy(target, {
        get(t, prop, receiver) {
          const v = Reflect.get(t, prop, receiver) as unknown;
          if (typeof v === "object" && v !== null && RESOURCES.has(String(prop)))
            return watched(v, `${prefix}${String(prop)}.`);
          if (typeof v !== "function") return v;
          return (...args: unknown[]) => {
            calls.push(`${prefix}${String(prop)}`);
            if (CREATING.test(String(prop)))
              throw new Error(`the test refuses engine.${prefix}${String(prop)}: the run went past the fit check`);
            return (v as (...a: unknown[]) => unknown).apply(t, args);
          };
        },
      });
    deps.engine = watched(real, "") as Engine;
    const built: string[] = [];
    deps.ensureImage = async (name) => {
      built.push(name);
      throw new Error("the run went past the fit check");
    };
    const provisioned: string[] = [];
    deps.storage = {
      ...deps.storage,
      provision: async (req) => (
        provisioned.push(req.serverId),
        Promise.reject(new Error("the run went past the fit check"))
      ),
    };
    const out = join(await mkdtemp(join(tmpdir(), "tb-fit-")), "out");
    const err = await runScenario(deps, { scenario, neutralCnf: await readNeutralConfig(scenario), outDir: out }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TwinbenchError);
    expect((err as TwinbenchError).code).toBe("PLAN_MEMORY_EXCEEDED");
    expect((err as TwinbenchError).message).toMatch(
      /^2 servers and the load need [\d.]+ GiB of memory, but host local has [\d.]+ GiB/,
    );
    expect((err as TwinbenchError).details[0]).toBe(
      `mariadb: ${(512 / 1024 + 260 / 1024 + gib).toFixed(1)} GiB = buffer pool 512 MiB (config.set) + overhead 260 MiB + tmpfs ${gib.toFixed(1)} GiB`,
    );
    expect(calls).toEqual(["facts"]);
    expect(built).toEqual([]);
    expect(provisioned).toEqual([]);
    await expect(readdir(out)).rejects.toThrow(/ENOENT/);
  });
});
