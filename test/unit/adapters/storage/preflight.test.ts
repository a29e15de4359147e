import { describe, expect, it } from "vitest";
import type { EngineLocation } from "../../../../src/core/model/engine/engine.ts";
import { FakeEngine } from "../../../../test/support/fake-engine.ts";
import { fakeRunner } from "../../../support/fake-runner.ts";
import { createStorageProvider } from "../../../../src/adapters/storage/provider.ts";
import { StorageSchema } from "../../../../src/core/model/scenario/schema.ts";

/** Commands outside the table: fail as a missing file. */
const runnerOf = (table: Parameters<typeof fakeRunner>[0]) =>
  fakeRunner(table, () => ({ stdout: "", stderr: "no such file", exitCode: 1 }));
const engine = (location: EngineLocation, ping: () => Promise<void>) => {
  const e = new FakeEngine();
  e.location = () => location;
  e.ping = ping;
  return e;
};
const local = engine({ local: true }, async () => {});
const remote = engine({ local: false, host: "10.0.0.9" }, async () => {});
const down = engine({ local: true }, async () => {
  throw new Error("connect ENOENT /x.sock");
});

const FS_WITHOUT_BTRFS = "nodev\ttmpfs\n\text4\n\txfs\n";
const raid = StorageSchema.parse({ kind: "raid0", loop: { members: 2, size: "1g" } });

describe("preflight", () => {
  it.each([
    ["kernel without btrfs", local, FS_WITHOUT_BTRFS, raid, "the kernel does not support btrfs"],
    ["remote engine with raid0", remote, "\tbtrfs\n", raid, "the engine is remote (10.0.0.9)"],
    ["engine down with tmpfs", down, "", StorageSchema.parse({ kind: "tmpfs" }), "connect ENOENT /x.sock"],
    ["remote engine with bind", remote, "", StorageSchema.parse({ kind: "bind", path: "/" }), "the engine is remote"],
  ] as const)("%s", async (_name, engine, filesystems, spec, text) => {
    const p = createStorageProvider({
      engine,
      runner: runnerOf({ "cat /proc/filesystems": { stdout: filesystems } }),
      stateDir: "/nonexistent",
    });
    const err = await p.preflight(spec).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: "STORAGE_PREREQUISITES" });
    expect((err as { details: string[] }).details.join("\n")).toContain(text);
  });

  it("an invalid combination fails as input before any probing", async () => {
    const p = createStorageProvider({ engine: local, runner: runnerOf({}), stateDir: "/nonexistent" });
    await expect(
      p.preflight(StorageSchema.parse({ kind: "raid0", loop: { members: 2, size: "1g" }, fs: "xfs" })),
    ).rejects.toMatchObject({ code: "RAID_FS_NEEDS_MD" });
  });

  it("a remote engine is fine for tmpfs and volume", async () => {
    const p = createStorageProvider({ engine: remote, runner: runnerOf({}), stateDir: "/nonexistent" });
    await p.preflight(StorageSchema.parse({ kind: "tmpfs", size: "1g" }));
    await p.preflight(StorageSchema.parse({ kind: "volume" }));
  });
});
