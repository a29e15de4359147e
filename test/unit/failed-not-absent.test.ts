/**
 * Failed is never read as absent: a permission or I/O error, an engine that does not answer, a lost connection are
 * raised (and become notes or errors), while only "not there" answers (ENOENT, 404, the server's own refusal) mean
 * absence. One case per site.
 */
import { mkdtempSync, mkdirSync, writeFileSync, chmodSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readOrNull } from "../../src/adapters/host/cpu-accounting.ts";
import { execProbe } from "../../src/adapters/docker/exec-probe.ts";
import { isServerAnswer } from "../../src/adapters/mysql/probe.ts";
import { LabServer, type LabServerInit } from "../../src/app/lab-server.ts";
import { exists } from "../../src/adapters/storage/host.ts";
import { bindProvisioner } from "../../src/adapters/storage/kinds/bind.ts";
import type { Engine } from "../../src/adapters/docker/engine.ts";
import { TwinbenchError } from "../../src/core/base/errors.ts";

/** Run `f` with the effective uid of nobody (as root, mode bits are otherwise ignored), then give root back. */
async function asNobody<T>(f: () => Promise<T> | T): Promise<T> {
  const root = process.getuid?.() === 0;
  if (root) process.seteuid!(65534);
  try {
    return await f();
  } finally {
    if (root) process.seteuid!(0);
  }
}

/** A folder nobody may not enter, with a file inside. */
function lockedDir(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "tb-fna-"));
  chmodSync(dir, 0o755);
  const locked = join(dir, "locked");
  mkdirSync(locked);
  writeFileSync(join(locked, "f"), "1");
  chmodSync(locked, 0o700);
  return { dir: locked, file: join(locked, "f") };
}

const connectionError = () =>
  Object.assign(new Error("connect ECONNREFUSED /var/run/docker.sock"), { code: "ECONNREFUSED" });
const answer = (statusCode: number) => Object.assign(new Error(`HTTP ${statusCode}`), { statusCode });

describe("CPU accounting reads", () => {
  it("a missing file is absent; an unreadable one (EACCES) or a directory (EISDIR) is a failure", async () => {
    const { file } = lockedDir();
    expect(readOrNull(join(tmpdir(), "tb-no-such-file"))).toBeNull();
    await expect(asNobody(() => readOrNull(file))).rejects.toMatchObject({ code: "EACCES" });
    expect(() => readOrNull(tmpdir())).toThrow(/EISDIR/);
  });
});

describe("the exec probe", () => {
  const engineWith = (exec: Engine["exec"], listings: { n: number }) =>
    ({
      hostId: "b",
      async listLabelled() {
        listings.n++;
        return { containers: [{ id: "c1", name: "s", labels: {}, state: "running" }], networks: [], volumes: [] };
      },
      async inspect() {
        return { running: true, paused: false, exitCode: null, oomKilled: false, ips: { net: "10.0.0.2" } };
      },
      exec,
    }) as Partial<Engine> as Engine;
  const ep = { host: "10.0.0.2", port: 3306, user: "root", password: "pw" };

  it("raises an engine failure at once, without a retry", async () => {
    let calls = 0;
    const listings = { n: 0 };
    const p = execProbe(
      engineWith(async () => {
        calls++;
        throw answer(500);
      }, listings),
    );
    await expect(p.readServerFacts(ep)).rejects.toMatchObject({ statusCode: 500 });
    expect(calls).toBe(1);
  });

  it("finds a recreated server again (404) and retries once", async () => {
    let calls = 0;
    const listings = { n: 0 };
    const p = execProbe(
      engineWith(async () => {
        if (calls++ === 0) throw answer(404);
        return { exitCode: 0, stdout: "1.0\tx\n", stderr: "" };
      }, listings),
    );
    expect((await p.readServerFacts(ep)).version).toBe("1.0");
    expect(calls).toBe(2);
    expect(listings.n).toBe(2);
  });
});

describe("the mysql2 probe", () => {
  it("only the server's own SQL error means 'no counter'; a lost connection or timeout is a failure", () => {
    expect(isServerAnswer(Object.assign(new Error("denied"), { errno: 1227, sqlState: "42000", fatal: false }))).toBe(
      true,
    );
    expect(
      isServerAnswer(Object.assign(new Error("Connection lost"), { code: "PROTOCOL_CONNECTION_LOST", fatal: true })),
    ).toBe(false);
    expect(
      isServerAnswer(Object.assign(new Error("timeout"), { code: "PROTOCOL_SEQUENCE_TIMEOUT", fatal: true })),
    ).toBe(false);
    expect(isServerAnswer(new TypeError("bug"))).toBe(false);
  });
});

describe("pausing an idle server", () => {
  const serverWith = (pause: Engine["pause"]) => {
    const init = { id: "maria", runId: "r1", labels: () => ({}) } as Partial<LabServerInit> as LabServerInit;
    const s = new LabServer(init, { pause } as Partial<Engine> as Engine, {} as never, {} as never, {} as never);
    s.containerId = "c1";
    return s;
  };

  it("an engine that does not answer is an ENGINE error naming the server, not 'the freezer refused'", async () => {
    let calls = 0;
    const err = await serverWith(async () => {
      calls++;
      throw connectionError();
    })
      .pause()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TwinbenchError);
    expect(err).toMatchObject({ code: "ENGINE" });
    expect((err as Error).message).toContain('pausing server "maria"');
    expect(calls).toBe(1);
  });

  it("the engine's refusal (500) is retried", async () => {
    let calls = 0;
    const ok = await serverWith(async () => {
      if (calls++ === 0) throw answer(500);
    }).pause();
    expect(ok).toBe(true);
    expect(calls).toBe(2);
  });
});

describe("storage paths", () => {
  it("exists: missing is false, a path that cannot be resolved (a symlink loop, ELOOP) is raised", async () => {
    const { dir, file } = lockedDir();
    expect(await exists(join(dir, "no-such"))).toBe(false);
    expect(await exists(file)).toBe(true);
    // access(2) checks the real uid, which stays root here; a loop is a failure that root meets too.
    symlinkSync(join(dir, "b"), join(dir, "a"));
    symlinkSync(join(dir, "a"), join(dir, "b"));
    await expect(exists(join(dir, "a"))).rejects.toMatchObject({ code: "ELOOP" });
  });

  it("bind: an unreadable path is said to be unreadable, not missing", async () => {
    const { dir } = lockedDir();
    const host = { hp: (p: string) => p } as never;
    const plan = { kind: "bind", basePath: join(dir, "sub"), dir: join(dir, "sub", "x") } as never;
    const problems = await asNobody(() => bindProvisioner.problems(plan, host));
    expect(problems).toEqual([{ what: expect.stringMatching(/^bind path .* cannot be read: EACCES/) }]);
    expect(await bindProvisioner.problems(plan, host)).toEqual([
      { what: `bind path ${join(dir, "sub")} does not exist` },
    ]);
  });
});
