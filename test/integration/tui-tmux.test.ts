/**
 * The run screen end to end, in a real terminal: `twinbench run scenarios/quick.yaml` (one short cell a server) in a
 * detached tmux session of a fixed size. During measurement the live figures are on screen and change between two
 * captures; `q` cancels; the run exits 130, records its status as cancelled with an end time, and leaves nothing of
 * its own behind (containers, networks, volumes). It asserts end states, never how long a step took.
 *
 * Needs Debian's `tmux` (`apt-get install -y tmux`) and the real Docker engine. The tmux server runs on its own
 * socket, with CI variables removed (Ink renders only the last frame when it thinks it runs in CI).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const socket = `twinbench-tui-${process.pid}`;
const session = "run";
const WIDTH = 100;
const HEIGHT = 30;

/** The environment the tmux server (and so twinbench) gets: no CI markers, no colour. */
function terminalEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (
      k !== "CI" &&
      k !== "CONTINUOUS_INTEGRATION" &&
      !k.startsWith("CI_") &&
      k !== "VITEST" &&
      !k.startsWith("VITEST_")
    )
      env[k] = v;
  return { ...env, NO_COLOR: "1", TERM: "xterm-256color", LANG: env.LANG ?? "C.UTF-8" };
}

function run(
  cmd: string,
  args: string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(cmd, args, { env: env ?? process.env, cwd: repo, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const code = err
        ? typeof (err as NodeJS.ErrnoException & { code?: unknown }).code === "number"
          ? (err as unknown as { code: number }).code
          : 1
        : 0;
      res({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

const tmux = (...args: string[]) => run("tmux", ["-u", "-L", socket, ...args], terminalEnv());
const capture = async () => (await tmux("capture-pane", "-p", "-t", session)).stdout;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The live figure lines (tps, qps, latency, err/s, reconn/s) of a captured pane, or null when not shown. */
function liveFigures(pane: string): string[] | null {
  const lines = pane.split("\n");
  const i = lines.findIndex((l) => /^\s+tps\s+\d/.test(l));
  if (i < 0) return null;
  const block = lines.slice(i, i + 5);
  const labels = block.map((l) => l.trim().split(/\s+/)[0]);
  if (labels[1] !== "qps" || !/^(p\d+|lat)$/.test(labels[2]) || labels[3] !== "err/s" || labels[4] !== "reconn/s")
    return null;
  return block;
}

async function waitFor<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | null | undefined | false>,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: string;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) {
      last = await capture().catch(() => "(no pane)");
      throw new Error(`${what}: not seen after ${timeoutMs} ms; the pane shows:\n${last}`);
    }
    await sleep(500);
  }
}

const haveTmux = existsSync("/usr/bin/tmux") || existsSync("/usr/local/bin/tmux");

describe.skipIf(!haveTmux)("run screen in tmux", () => {
  let outDir = "";

  afterAll(async () => {
    await tmux("kill-server");
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it("shows live figures that change, and q cancels with exit 130 and nothing left", { timeout: 900_000 }, async () => {
    outDir = join(await mkdtemp(join(tmpdir(), "twinbench-tui-")), "results");
    const argv = [
      "twinbench",
      "run",
      "scenarios/quick.yaml",
      "--out",
      outDir,
      "--set",
      "workload.duration=6s",
      "--set",
      "workload.threads=[1]",
      "--set",
      "workload.repeats=1",
      "--set",
      "workload.tests=[oltp_point_select]",
      "--set",
      "workload.warmup=1s",
      "--set",
      "workload.tables=1",
      "--set",
      "workload.tableSize=1000",
    ];
    // A fixed script writes the exit code to a file (tmux's #{pane_dead_status} is not always filled in); the
    // command itself comes as separate arguments ("$@"), never through a shell string.
    const exitFile = join(dirname(outDir), "exit-code");
    const script = 'out=$1; shift; "$@"; echo "EXIT=$?" > "$out"';
    const started = await tmux(
      "new-session",
      "-d",
      "-s",
      session,
      "-x",
      String(WIDTH),
      "-y",
      String(HEIGHT),
      "-c",
      repo,
      "sh",
      "-c",
      script,
      "sh",
      exitFile,
      "npx",
      ...argv,
    );
    expect(started.code, started.stderr).toBe(0);
    // Keep the pane (and its last frame) after the process exits.
    await tmux("set-option", "-t", session, "remain-on-exit", "on");
    const exited = async () => (await readFile(exitFile, "utf8").catch(() => "")).trim();

    // Measurement: the live figures are on screen in two captures, and they differ.
    const [a, b] = await waitFor("two captures of live figures that differ", 600_000, async () => {
      const first = liveFigures(await capture());
      if (!first) return null;
      await sleep(2500);
      const second = liveFigures(await capture());
      return second && second.join("\n") !== first.join("\n") ? [first, second] : null;
    });
    for (const block of [a, b]) expect(block[1]).toMatch(/^\s+qps\s+\d+(\.\d+)?\s+[▁▂▃▄▅▆▇█]+\s*$/);
    const pane = await capture();
    expect(pane).toMatch(/▶ (measure|warm-up) · (mariadb|mysql) · oltp_point_select · threads 1/);
    const runId = /run (\d{8}-\d{6}-[0-9a-f]+)/.exec(pane)?.[1];
    expect(runId, pane).toBeDefined();

    // q: a graceful cancel. The screen says "cleaning up…" while teardown runs, but a fast teardown can end before
    // any capture sees it (the unit test tui-run-screen checks that frame): this test checks the end state the
    // cancel leads to instead, whatever the teardown's speed.
    await tmux("send-keys", "-t", session, "q");
    const code = await waitFor("the run to exit after q", 240_000, exited);
    const final = await capture();
    expect(code, final).toBe("EXIT=130");
    expect(final).toContain("run cancelled");
    expect(final).toContain("exit code 130");

    // Nothing of this run is left.
    for (const kind of ["ps -a", "network ls", "volume ls"]) {
      const r = await run("docker", [...kind.split(" "), "--filter", `label=twinbench.run=${runId}`, "-q"]);
      expect(r.stdout.trim(), `docker ${kind} of run ${runId}`).toBe("");
    }
    // The run recorded its graceful end: status cancelled, an end time (teardown ran to its end), not a forced quit.
    const manifest = JSON.parse(await readFile(join(outDir, "run.json"), "utf8")) as {
      status: string;
      endedAt?: string;
    };
    expect(manifest.status).toBe("cancelled");
    expect(manifest.endedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(final).not.toContain("forcing");
  });
});
