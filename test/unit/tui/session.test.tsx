import React from "react";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render } from "ink-testing-library";
import { openSession, SessionApp, type SessionChoice } from "../../../src/tui/session.tsx";
import type { MountRunScreen, SessionDeps } from "../../../src/tui/session-deps.ts";
import { FakeStdin, FakeStdout, plain } from "../../support/fake-terminal.ts";

const tick = () => new Promise((r) => setTimeout(r, 30));
afterEach(() => cleanup());

function fakeDeps(over: Partial<SessionDeps> = {}): SessionDeps & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    listScenarios: async () => [
      {
        file: "scenarios/quick.yaml",
        name: "quick",
        description: "MariaDB vs MySQL smoke comparison",
        cells: 24,
        estimateSeconds: 270,
      },
      {
        file: "scenarios/seed.yaml",
        name: "seed-000",
        description: "the seed matrix",
        cells: 112,
        estimateSeconds: 36000,
      },
      {
        file: "scenarios/bad.yaml",
        name: "bad",
        description: "",
        cells: 0,
        estimateSeconds: 0,
        error: "scenarios/bad.yaml: servers: required",
      },
    ],
    planText: async (f) => (
      calls.push(`plan ${f}`),
      `plan of ${f}\n${Array.from({ length: 50 }, (_, i) => `cell ${i + 1}`).join("\n")}`
    ),
    configText: async (f) => (calls.push(`config ${f}`), `[mysqld]\ninnodb_buffer_pool_size=512M\n# translation: keep`),
    listResults: async () => [
      { dir: "results/20250102-000000-bbbb", name: "quick", status: "ok" },
      { dir: "results/20250101-000000-aaaa", name: "quick", status: "cancelled" },
    ],
    reportText: async (d) => (calls.push(`report ${d}`), `report of ${d}\n  oltp_read_only   103.72+`),
    run: async (f) => (calls.push(`run ${f}`), 0),
    ...over,
  };
}

function app(deps: SessionDeps, scenarios: Awaited<ReturnType<SessionDeps["listScenarios"]>>) {
  const choices: SessionChoice[] = [];
  const r = render(
    <SessionApp
      deps={deps}
      scenarios={scenarios}
      onChoice={(c) => choices.push(c)}
      color={false}
      size={{ width: 100, height: 24 }}
    />,
  );
  return { ...r, choices };
}

describe("session screen", () => {
  it("lists the scenarios with cell counts and estimates", async () => {
    const deps = fakeDeps();
    const r = app(deps, await deps.listScenarios());
    const f = plain(r.lastFrame());
    expect(f).toContain("▶ quick        24    4m 30s  MariaDB vs MySQL smoke comparison");
    expect(f).toContain("  seed-000    112   10h 00m  the seed matrix");
    expect(f).toContain("  bad           -         -  invalid: scenarios/bad.yaml: servers: required");
    expect(f).toContain("↑↓ select · enter/p plan · c config · r run · o past results · q quit");
  });

  it.each([
    {
      name: "Enter shows the plan",
      keys: ["\r"],
      want: "plan of scenarios/quick.yaml",
      call: "plan scenarios/quick.yaml",
    },
    {
      name: "p on the second shows its plan",
      keys: ["\x1b[B", "p"],
      want: "plan of scenarios/seed.yaml",
      call: "plan scenarios/seed.yaml",
    },
    {
      name: "keys in one chunk each see the one before",
      keys: ["\x1b[B\x1b[Bp"],
      want: "plan of scenarios/bad.yaml",
      call: "plan scenarios/bad.yaml",
    },
    {
      name: "c shows the rendered config",
      keys: ["c"],
      want: "innodb_buffer_pool_size=512M",
      call: "config scenarios/quick.yaml",
    },
    {
      name: "o then Enter shows a past report",
      keys: ["o", "\x1b[B", "\r"],
      want: "report of results/20250101-000000-aaaa",
      call: "report results/20250101-000000-aaaa",
    },
  ])("$name", async ({ keys, want, call }) => {
    const deps = fakeDeps();
    const r = app(deps, await deps.listScenarios());
    for (const k of keys) {
      r.stdin.write(k);
      await tick();
    }
    await expect.poll(() => plain(r.lastFrame())).toContain(want);
    expect(deps.calls).toEqual([call]);
  });

  it("text views scroll and Esc goes back to the list", async () => {
    const deps = fakeDeps();
    const r = app(deps, await deps.listScenarios());
    const frame = () => plain(r.lastFrame());
    r.stdin.write("p");
    await expect.poll(frame).toContain("plan: scenarios/quick.yaml (1-20 of 51)");
    r.stdin.write("\x1b[6~"); // PgDn
    await expect.poll(frame).toContain("(21-40 of 51)");
    r.stdin.write("\x1b[A");
    await expect.poll(frame).toContain("(20-39 of 51)");
    r.stdin.write("\x1b");
    await expect.poll(frame).toContain("twinbench · scenarios");
  });

  it("a failing dep shows its error in the view", async () => {
    const deps = fakeDeps({
      configText: async () => {
        throw new Error("render.ts is missing");
      },
    });
    const r = app(deps, await deps.listScenarios());
    r.stdin.write("c");
    await expect.poll(() => plain(r.lastFrame())).toContain("render.ts is missing");
  });

  it.each([
    {
      name: "r runs the selected scenario",
      keys: ["\x1b[B", "r"],
      want: { kind: "run", file: "scenarios/seed.yaml", index: 1 },
    },
    {
      name: "r from the plan view runs it",
      keys: ["\r", "r"],
      want: { kind: "run", file: "scenarios/quick.yaml", index: 0 },
    },
    { name: "q quits", keys: ["q"], want: { kind: "quit" } },
    { name: "Ctrl-C quits", keys: ["\x03"], want: { kind: "quit" } },
  ])("$name", async ({ keys, want }) => {
    const deps = fakeDeps();
    const r = app(deps, await deps.listScenarios());
    for (const k of keys) {
      r.stdin.write(k);
      await tick();
    }
    await expect.poll(() => r.choices).toEqual([want]);
  });
});

describe("openSession", () => {
  it("runs a scenario through the run screen, comes back to the list, and returns the run's exit code on quit", async () => {
    const stdout = new FakeStdout(100, 30);
    const stdin = new FakeStdin();
    let mounted = 0;
    const deps = fakeDeps({
      async run(file: string, mount: MountRunScreen) {
        const screen = mount({ onCancel: () => {}, onSkip: () => {}, tickMs: 0, color: false });
        mounted++;
        const at = new Date().toISOString();
        screen.dispatch({
          type: "plan-ready",
          at,
          runId: "r",
          dir: "results/r",
          scenario: file,
          cells: [],
          estimateSeconds: 1,
          servers: [],
          storage: "tmpfs",
          transport: "tcp",
        });
        screen.dispatch({
          type: "run-finished",
          at,
          status: "cancelled",
          dir: "results/r",
          exitCode: 130,
          cellsOk: 0,
          cellsFailed: 0,
        });
        await screen.done;
        return 130;
      },
    });
    const code = openSession(deps, {
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      color: false,
    });
    await expect.poll(() => stdout.all()).toContain("twinbench · scenarios");
    stdin.write("r");
    await expect.poll(() => stdout.all()).toContain("last run: scenarios/quick.yaml exited with code 130");
    expect(stdout.all()).toContain("exit code 130");
    stdin.write("q");
    expect(await code).toBe(130);
    expect(mounted).toBe(1);
  });
});
