import { loadScenarioFile } from "./src/adapters/scenario-file.ts";
import { designForBudget, designLines } from "./src/core/plan/design.ts";
const f = process.argv[2] ?? "scenarios/seed-mariadb-vs-mysql.yaml";
const r = await loadScenarioFile(f, { sets: [], lockImages: ["mariadb-11.8", "mysql-9.7", "mariadb-11.4", "mysql-8.4"], hostCpus: 2 });
const t0 = Date.now();
const d = designForBudget({ scenario: r.scenario, budgetSeconds: Number(process.argv[3] ?? 28800), calibration: null, precisionPct: process.argv[4] ? Number(process.argv[4]) : undefined });
console.log(designLines(d).join("\n"));
console.log("ms", Date.now() - t0);
