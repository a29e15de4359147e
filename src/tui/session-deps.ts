/**
 * What the session screen needs from the rest of twinbench, as one injected interface, and its default wiring.
 * The defaults reuse the CLI's own commands (scenario plan, config render, report) with captured output, so the
 * session shows exactly what those commands print. Everything is imported lazily: the session starts fast and a
 * missing piece fails only the view that needs it.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { availableParallelism } from "node:os";
import type { ExitCode } from "../core/errors.ts";
import type { RunManifest } from "../core/results.ts";
import type { CliContext } from "../cli/context.ts";
import type { MountOptions, RunScreen } from "./run-screen.tsx";
import { resolveShippedPath } from "../adapters/package-files.ts";

export interface ScenarioEntry {
  file: string;
  name: string;
  description: string;
  cells: number;
  estimateSeconds: number;
  /** Set when the file does not load (it is still listed, with this message). */
  error?: string;
}

export interface ResultEntry {
  dir: string;
  name: string;
  status: string;
  startedAt?: string;
}

export type MountRunScreen = (o: MountOptions) => RunScreen;

export interface SessionDeps {
  listScenarios(): Promise<ScenarioEntry[]>;
  planText(file: string): Promise<string>;
  configText(file: string): Promise<string>;
  listResults(): Promise<ResultEntry[]>;
  reportText(dir: string): Promise<string>;
  /** Run the scenario with the run screen (mounted through `screen`, or by the run command itself); its exit code. */
  run(file: string, screen: MountRunScreen): Promise<ExitCode>;
}

export interface SessionDirs {
  scenarios?: string;
  results?: string;
}

/**
 * The default wiring: files under ./scenarios (the package's own scenarios/ when the working directory has none)
 * and ./results, the CLI's commands for the texts, `twinbench run`.
 */
export function defaultSessionDeps(ctx: CliContext, dirs: SessionDirs = {}): SessionDeps {
  const scenariosDir = dirs.scenarios ?? resolveShippedPath("scenarios");
  const resultsDir = dirs.results ?? "results";

  /** Run a twinbench command with its output captured; the text it printed (errors included). */
  const capture = async (argv: string[]): Promise<string> => {
    const { main } = await import("../cli/main.ts");
    const lines: string[] = [];
    const sub: CliContext = { ...ctx, out: (l) => lines.push(l), err: (l) => lines.push(l), exitCode: 0, isTTY: false };
    await main(argv, sub);
    return lines.join("\n");
  };

  return {
    async listScenarios() {
      const names = (await readdir(scenariosDir).catch(() => [] as string[])).filter((n) => /\.ya?ml$/.test(n)).sort();
      const [{ loadScenarioFile }, { planRun }, { loadLock }] = await Promise.all([
        import("../adapters/scenario-file.ts"),
        import("../core/plan/plan.ts"),
        import("../adapters/images/index.ts"),
      ]);
      const lockImages = await loadLock().then(
        (l) => Object.keys(l.images),
        () => [] as string[],
      );
      return Promise.all(
        names.map(async (n): Promise<ScenarioEntry> => {
          const file = join(scenariosDir, n);
          try {
            const { scenario } = await loadScenarioFile(file, { lockImages, hostCpus: availableParallelism() });
            const plan = planRun(scenario);
            return { file, name: scenario.name, description: scenario.description ?? "", cells: plan.cells.length, estimateSeconds: plan.estimate.totalSeconds };
          } catch (e) {
            return { file, name: n.replace(/\.ya?ml$/, ""), description: "", cells: 0, estimateSeconds: 0, error: (e as Error).message };
          }
        }),
      );
    },
    planText: (file) => capture(["plan", file]),
    configText: (file) => capture(["config", "render", file]),
    async listResults() {
      const names = (await readdir(resultsDir, { withFileTypes: true }).catch(() => [])).filter((d) => d.isDirectory()).map((d) => d.name);
      const out: ResultEntry[] = [];
      for (const n of names.sort().reverse()) {
        const dir = join(resultsDir, n);
        try {
          const m = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;
          out.push({ dir, name: m.scenario?.name ?? n, status: m.status, startedAt: m.startedAt });
        } catch {
          // No run.json: a host comparison folder (hosts.json), or not a results folder at all (skipped).
          const h = await readFile(join(dir, "hosts.json"), "utf8").then((t) => JSON.parse(t) as { hosts?: Array<{ id: string; status: string }> }, () => undefined);
          if (h?.hosts) out.push({ dir, name: `${n} (hosts ${h.hosts.map((x) => x.id).join(", ")})`, status: h.hosts.every((x) => x.status === "ok") ? "ok" : "partial" });
        }
      }
      return out;
    },
    // The ratio table(s), then the execution summary side by side with its derived lines.
    reportText: async (dir) => `${await capture(["report", dir, "--no-write"])}\n${await capture(["report", dir, "--summary", "--no-write"])}`,
    async run(file) {
      // The run command mounts the run screen itself (it owns signals, the abort controller and the skip control).
      const { runCommand } = await import("../cli/commands/run.ts");
      return runCommand({ ...ctx, isTTY: true }, file, { set: [], tui: true });
    },
  };
}
