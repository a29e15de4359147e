/** The benchmark user's password is drawn on its own: it reveals nothing of root's. */
import { describe, expect, it } from "vitest";
import { LabServer } from "../../../src/app/lab-server.ts";
import { benchPassword, type LabServerInit } from "../../../src/app/lab-server-init.ts";

describe("the benchmark user's password", () => {
  it("is drawn on its own: no part of root's", () => {
    const init = { id: "maria", runId: "r1", labels: () => ({}) } as Partial<LabServerInit> as LabServerInit;
    const s = new LabServer(init, {} as never, {} as never, {} as never, {} as never);
    const bench = benchPassword(s);
    expect(bench.length).toBeGreaterThanOrEqual(24);
    // No 8 characters of root's appear in it (a shared 16-character prefix did before).
    for (let i = 0; i + 8 <= s.rootPassword.length; i++) expect(bench).not.toContain(s.rootPassword.slice(i, i + 8));
  });
});
