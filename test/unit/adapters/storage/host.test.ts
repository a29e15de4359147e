/** Storage paths: missing is absent; a path that cannot be resolved or read is a failure, said as such. */
import { mkdtempSync, mkdirSync, writeFileSync, chmodSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exists } from "../../../../src/adapters/storage/host.ts";
import { bindProvisioner } from "../../../../src/adapters/storage/kinds/bind.ts";

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
