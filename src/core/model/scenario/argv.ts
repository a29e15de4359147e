/**
 * The sysbench 1.0.20 command line for one step, as an argv array (never a shell string):
 * `[script, --option=value..., command]`. The script comes first as sysbench's positional test name; a script
 * twinbench's image ships (the legacy `select`) is given by its path.
 */
import type { Workload } from "./schema.ts";
import {
  MANAGED_OPTIONS,
  SYSBENCH_OPTIONS,
  formatOptionValue,
  normalizeOptionName,
  own,
  scriptArg,
} from "../sysbench/options.ts";
import { customTestOfPath } from "./custom.ts";

export type SysbenchCommand = "prepare" | "prewarm" | "run" | "cleanup";

export interface SysbenchConnection {
  /** Unix socket path inside the load container (socket transport). */
  socket?: string;
  host?: string;
  port?: number;
  user: string;
  password: string;
  db: string;
}

export interface SysbenchArgvInput {
  /** A 1.0.20 script name ("oltp_read_only") or "select" (the image's /usr/share/sysbench/select.lua). */
  script: string;
  command: SysbenchCommand;
  workload: Pick<Workload, "engine" | "tables" | "tableSize" | "sysbench">;
  threads: number;
  /** Seconds for `run` (ignored when `events` is given: then --time=0). */
  durationSeconds?: number;
  events?: number;
  connection: SysbenchConnection;
  percentile: number;
  histogram: boolean;
}

export function sysbenchArgv(input: SysbenchArgvInput): string[] {
  const { connection: c, workload: w } = input;
  const argv: string[] = [scriptArg(input.script), "--db-driver=mysql"];
  if (c.socket !== undefined) argv.push(`--mysql-socket=${c.socket}`);
  else {
    argv.push(`--mysql-host=${c.host ?? "127.0.0.1"}`);
    if (c.port !== undefined) argv.push(`--mysql-port=${c.port}`);
  }
  // A script that declares options refuses any other: a custom script gets sysbench's own options and the ones
  // the stock scripts do not know (its own); the stock scripts get theirs and never a custom script's.
  const custom = customTestOfPath(input.script) !== undefined;
  argv.push(`--mysql-user=${c.user}`, `--mysql-password=${c.password}`, `--mysql-db=${c.db}`);
  if (!custom) argv.push(`--mysql-storage-engine=${w.engine}`, `--tables=${w.tables}`, `--table-size=${w.tableSize}`);
  argv.push(`--threads=${input.threads}`);
  for (const [k, v] of Object.entries(w.sysbench)) {
    const name = normalizeOptionName(k);
    if (Object.hasOwn(MANAGED_OPTIONS, name)) continue; // validation refuses these; never let them override ours
    const group = own(SYSBENCH_OPTIONS, name)?.group;
    if (custom ? group === "oltp" || group === "script" : group === undefined) continue;
    argv.push(`--${name}=${formatOptionValue(v)}`);
  }
  if (input.command === "run") {
    if (input.events !== undefined && input.events > 0) argv.push("--time=0", `--events=${input.events}`);
    else argv.push(`--time=${Math.max(1, Math.round(input.durationSeconds ?? 10))}`, "--events=0");
    argv.push("--report-interval=1", `--percentile=${input.percentile}`);
    if (input.histogram) argv.push("--histogram=on");
  }
  argv.push(input.command);
  return argv;
}

/** The environment variable that carries the password into the load container (never its argv). */
export const PASSWORD_ENV = "TB_MYSQL_PASSWORD";

/**
 * The load container's shell step: write the password from the environment into a private sysbench config file
 * (`--config-file`, one `name=value` a line), drop it from the environment, and run sysbench with the argv it was
 * given. The password is on no process's argv (printf is the shell's own), so `ps` never shows it.
 */
export const SYSBENCH_WRAPPER =
  `umask 077 && f=$(mktemp) && printf 'mysql-password=%s\\n' "$${PASSWORD_ENV}" > "$f" && unset ${PASSWORD_ENV} && ` +
  `exec sysbench --config-file="$f" "$@"`;

/**
 * An argv split for the load container: the entrypoint runs {@link SYSBENCH_WRAPPER}, `cmd` is the argv without
 * `--mysql-password=`, and the password goes in `env`.
 */
export function sysbenchCommand(argv: readonly string[]): {
  entrypoint: string[];
  cmd: string[];
  env: Record<string, string>;
} {
  const pw = argv.find((a) => a.startsWith("--mysql-password="));
  return {
    entrypoint: ["sh", "-c", SYSBENCH_WRAPPER, "sysbench"],
    cmd: argv.filter((a) => !a.startsWith("--mysql-password=")),
    env: { [PASSWORD_ENV]: pw === undefined ? "" : pw.slice("--mysql-password=".length) },
  };
}

/** The same argv with the password shown as `***` (for `plan`, logs and run.json). */
export function redactArgv(argv: readonly string[]): string[] {
  return argv.map((a) => (a.startsWith("--mysql-password=") ? "--mysql-password=***" : a));
}
