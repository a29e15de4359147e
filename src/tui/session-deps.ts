/**
 * What the session screen needs from the rest of twinbench, as one injected interface, and its default wiring
 * through the library API (src/app/): the same texts `plan`, `config render` and `report` print, and a run driven
 * by its event stream with the run screen mounted here. Everything is imported lazily: the session starts fast and
 * a missing piece fails only the view that needs it.
 */
import type { ExitCode } from "../core/base/errors.ts";
import type { ScenarioEntry, ResultsFolderEntry } from "../app/views.ts";
import type { MountRunScreen } from "./run-screen.tsx";
import { resolveShippedPath } from "../adapters/package-files.ts";

export type { ScenarioEntry };
export type ResultEntry = ResultsFolderEntry;

export type { MountRunScreen };

export interface SessionDeps {
  listScenarios(): Promise<ScenarioEntry[]>;
  planText(file: string): Promise<string>;
  configText(file: string): Promise<string>;
  listResults(): Promise<ResultEntry[]>;
  reportText(dir: string): Promise<string>;
  /** Run the scenario with the run screen (mounted through `screen`); its exit code. */
  run(file: string, screen: MountRunScreen): Promise<ExitCode>;
}

export interface SessionDirs {
  scenarios?: string;
  results?: string;
}

/** The default wiring: files under ./scenarios (the package's own scenarios/ when the working directory has none) and ./results, the library's texts and runs. */
export function defaultSessionDeps(dirs: SessionDirs = {}): SessionDeps {
  const scenariosDir = dirs.scenarios ?? resolveShippedPath("scenarios");
  const resultsDir = dirs.results ?? "results";
  const views = () => import("../app/views.ts");
  return {
    listScenarios: async () => (await views()).listScenarios(scenariosDir),
    async planText(file) {
      const warnings: string[] = [];
      const v = await views();
      const lines = await v.planLines(file, { warn: (l) => warnings.push(l), host: v.engineHostResources });
      return [...warnings, ...lines].join("\n");
    },
    configText: async (file) => (await views()).configRenderLines(file).then((l) => l.join("\n")),
    listResults: async () => (await views()).listResults(resultsDir),
    reportText: async (dir) => (await views()).reportText(dir),
    async run(file, screen) {
      const { runWithScreen } = await import("./session-run.ts");
      return runWithScreen(file, screen);
    },
  };
}
