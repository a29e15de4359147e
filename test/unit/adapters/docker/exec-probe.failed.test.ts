/** The exec probe: an engine failure is raised at once; only a gone (404) or stopped (409) server is looked up again. */
import { describe, expect, it } from "vitest";
import { execProbe } from "../../../../src/adapters/docker/exec-probe.ts";
import type { ExecPort } from "../../../../src/core/model/engine/exec.ts";
import { FakeEngine } from "../../../support/fake-engine.ts";

const answer = (statusCode: number) => Object.assign(new Error(`HTTP ${statusCode}`), { statusCode });

describe("the exec probe", () => {
  const engineWith = (run: ExecPort["run"], listings: { n: number }) => {
    const engine = new FakeEngine("b");
    engine.listed = [{ kind: "container", id: "c1", name: "s", labels: { "twinbench.role": "server" } }];
    const list = engine.containers.list.bind(engine.containers);
    engine.containers.list = async (filters) => {
      listings.n++;
      return list(filters);
    };
    engine.containers.inspect = async () => ({
      running: true,
      paused: false,
      exitCode: null,
      oomKilled: false,
      ips: { net: "10.0.0.2" },
    });
    engine.exec.run = run;
    return engine;
  };
  const ep = { host: "10.0.0.2", port: 3306, user: "root", password: "pw" };

  it("raises an engine failure at once, without a retry", async () => {
    let calls = 0;
    const listings = { n: 0 };
    const p = execProbe(
      engineWith(async () => {
        calls++;
        throw answer(500);
      }, listings),
    );
    await expect(p.readServerFacts(ep)).rejects.toMatchObject({ statusCode: 500 });
    expect(calls).toBe(1);
  });

  it("finds a recreated server again (404) and retries once", async () => {
    let calls = 0;
    const listings = { n: 0 };
    const p = execProbe(
      engineWith(async () => {
        if (calls++ === 0) throw answer(404);
        return { exitCode: 0, stdout: "1.0\tx\n", stderr: "" };
      }, listings),
    );
    expect((await p.readServerFacts(ep)).version).toBe("1.0");
    expect(calls).toBe(2);
    expect(listings.n).toBe(2);
  });
});
