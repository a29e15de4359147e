/** CPU accounting reads: a missing file is absent; a read that fails is a failure, never "no cgroup". */
import { mkdtempSync, mkdirSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readOrNull } from "../../../../src/adapters/host/cpu-accounting.ts";

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

describe("CPU accounting reads", () => {
  it("a missing file is absent; an unreadable one (EACCES) or a directory (EISDIR) is a failure", async () => {
    const { file } = lockedDir();
    expect(readOrNull(join(tmpdir(), "tb-no-such-file"))).toBeNull();
    await expect(asNobody(() => readOrNull(file))).rejects.toMatchObject({ code: "EACCES" });
    expect(() => readOrNull(tmpdir())).toThrow(/EISDIR/);
  });
});
