/**
 * Cancelling a run: the Ctrl-C / SIGTERM policy every front end shares (CancelGate), and the forced cleanup of a
 * second Ctrl-C (cleanSession), which removes everything labelled with the session id on every engine, whatever
 * the number of runs and passes: the passes of a multi-host run have run ids of their own, one session.
 */
import { describe, expect, it } from "vitest";
import { CancelGate, cleanSession } from "../../../src/app/clean.ts";
import { hostRunId } from "../../../src/app/hosts.ts";
import { labelledEngine } from "../../../test/support/fake-engine.ts";

/** An engine holding labelled resources of sessions and runs, named c-, n-, v-… by kind (container, network, volume). */
function fakeEngine(hostId: string, items: Array<{ name: string; session: string; run: string }>, down = false) {
  const kinds = { c: "container", n: "network", v: "volume" } as const;
  const engine = labelledEngine(
    hostId,
    items.map((i) => ({ ...i, kind: kinds[i.name[0] as keyof typeof kinds] })),
    down,
  );
  const left = () => items.filter((i) => !engine.removed.includes(i.name));
  return { engine, removed: engine.removed, left };
}

describe("cleanSession (the second Ctrl-C)", () => {
  it("removes every resource of the session on every engine, all passes included, and nothing of other sessions", async () => {
    const items = (host: string) => [
      ...[1, 2, 3, 4, 5, 6].flatMap((p) => [
        { name: `c-${host}-p${p}`, session: "s1", run: hostRunId("r1", host, p) },
        { name: `v-${host}-p${p}`, session: "s1", run: hostRunId("r1", host, p) },
      ]),
      { name: `n-${host}`, session: "s1", run: hostRunId("r1", host) },
      { name: `c-${host}-probe`, session: "s1", run: "r1" },
      { name: `c-${host}-other`, session: "s2", run: "r2" },
      { name: `v-${host}-other`, session: "s2", run: hostRunId("r1", host, 2) },
    ];
    const a = fakeEngine("a", items("a"));
    const b = fakeEngine("b", items("b"));
    const reports = await cleanSession([a.engine, b.engine], "s1");
    expect(reports).toHaveLength(2);
    for (const [x, host] of [
      [a, "a"],
      [b, "b"],
    ] as const) {
      expect(
        x
          .left()
          .map((i) => i.name)
          .sort(),
      ).toEqual([`c-${host}-other`, `v-${host}-other`]);
      expect(x.removed).toContain(`c-${host}-p6`);
    }
  });

  it("an engine that does not answer does not stop the others, and never rejects", async () => {
    const a = fakeEngine("a", [{ name: "c-a", session: "s1", run: "r1-a" }], true);
    const b = fakeEngine("b", [{ name: "c-b", session: "s1", run: "r1-b-p5" }]);
    const reports = await cleanSession([a.engine, b.engine], "s1");
    expect(reports[0]).toBeInstanceOf(Error);
    expect((reports[0] as Error).message).toMatch(/ECONNREFUSED \(a\)/);
    expect(b.removed).toEqual(["c-b"]);
  });
});

describe("CancelGate", () => {
  const gate = () => {
    const calls: string[] = [];
    return { calls, g: new CancelGate({ graceful: () => calls.push("graceful"), force: () => calls.push("force") }) };
  };

  it("first Ctrl-C cancels gracefully, the second forces", () => {
    const { calls, g } = gate();
    g.interrupt();
    expect(calls).toEqual(["graceful"]);
    g.interrupt();
    expect(calls).toEqual(["graceful", "force"]);
  });

  it("SIGTERM behaves like the first Ctrl-C: graceful, once; a Ctrl-C after it forces", () => {
    const { calls, g } = gate();
    g.terminate();
    g.terminate();
    expect(calls).toEqual(["graceful"]);
    g.interrupt();
    expect(calls).toEqual(["graceful", "force"]);
  });

  it("SIGTERM after a Ctrl-C changes nothing: the cancel is under way", () => {
    const { calls, g } = gate();
    g.interrupt();
    g.terminate();
    expect(calls).toEqual(["graceful"]);
  });
});
