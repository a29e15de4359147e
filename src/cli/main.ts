/**
 * The CLI entry point: the only place that decides the exit code (0 ok, 1 failure, 2 invalid input or usage,
 * 130 interrupted). Commands are registered from src/cli/commands/*; `run`, `clean` and `config diff` live here
 * because they own signals and front ends.
 */
import { Command, CommanderError, Option } from "commander";
import { formatError, InputError, isTwinbenchError, type ExitCode } from "../core/base/errors.ts";
import { registerRunCommands } from "./commands/run.ts";
import { registerImagesCommands } from "./commands/images.ts";
import { registerParseCommand } from "./commands/parse.ts";
import { registerScenarioCommands } from "./commands/scenario.ts";
import { registerReportCommands } from "./commands/report.ts";
import { registerDoctorCommand } from "./commands/doctor.ts";
import { registerConfigCommands } from "./commands/config.ts";
import { registerCalibrateCommand } from "./commands/calibrate.ts";
import { registerHistoryCommand } from "./commands/history.ts";
import { cliContext, type CliContext } from "./context.ts";

export function buildProgram(ctx: CliContext): Command {
  const program = new Command("twinbench")
    .description("A container lab for reproducible MariaDB vs MySQL sysbench comparisons")
    .version("0.1.0")
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.out(s.replace(/\n$/, "")),
      writeErr: (s) => ctx.err(s.replace(/\n$/, "")),
    });
  registerRunCommands(program, ctx);
  registerScenarioCommands(program, ctx);
  registerConfigCommands(program, ctx);
  registerImagesCommands(program, { images: () => ctx.engine().images, out: ctx.out });
  registerParseCommand(program, ctx);
  registerReportCommands(program, ctx);
  registerDoctorCommand(program, ctx);
  registerCalibrateCommand(program, ctx);
  registerHistoryCommand(program, ctx);
  return program;
}

export async function main(argv: string[], ctx: CliContext = cliContext()): Promise<ExitCode> {
  const program = buildProgram(ctx);
  if (argv.length === 0) {
    if (process.stdout.isTTY && process.stdin.isTTY) {
      const { openSession } = await import("../tui/session.tsx");
      return openSession();
    }
    argv = ["--help"];
  }
  try {
    await program.parseAsync(argv, { from: "user" });
    return ctx.exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.code === "commander.help")
        return 0;
      return 2;
    }
    ctx.err(formatError(e));
    if (isTwinbenchError(e)) return e.exitCode;
    return 1;
  }
}

export { InputError, Option };
