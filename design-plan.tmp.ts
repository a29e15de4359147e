import { Command } from "commander";
import { registerScenarioCommands } from "./src/cli/commands/scenario.ts";
const out: string[] = [];
const program = new Command("twinbench").exitOverride();
registerScenarioCommands(program, { out: (l) => out.push(l), err: (l) => out.push("ERR " + l), loadPins: async () => [], renderTranslations: async () => ({}), loadCalibration: async () => ({ key: "k", calibration: null }) });
const t = Date.now();
await program.parseAsync(["plan", ...process.argv.slice(2)], { from: "user" });
console.log(out.join("\n")); console.log("ms", Date.now() - t);
