import { describe, expect, it } from "vitest";
import { InputError } from "../../../src/core/base/errors.ts";
import { StorageSchema, type Storage } from "../../../src/core/model/scenario/schema.ts";
import {
  loopSpaceWarnings,
  planStorage,
  requiredTools,
  tmpfsMemoryWarnings,
  type PlanContext,
} from "../../../src/core/storage/plan.ts";

const GiB = 2 ** 30;
const MiB = 2 ** 20;
const ctx = (over: Partial<PlanContext> = {}): PlanContext => ({
  runId: "r1",
  serverId: "mariadb",
  uid: 999,
  gid: 999,
  hasMd: false,
  ...over,
});
const spec = (raw: unknown): Storage => StorageSchema.parse(raw);

function planError(raw: unknown, c: PlanContext = ctx()): InputError {
  try {
    planStorage(spec(raw), c);
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error("expected an InputError");
}

describe("planStorage: tmpfs", () => {
  it.each([
    ["2g", 2 * GiB],
    ["512M", 512 * MiB],
    ["1.5GiB", 1.5 * GiB],
    [64 * MiB, 64 * MiB],
  ])("size %s → %i bytes in the driver options", (size, bytes) => {
    const { plan } = planStorage(spec({ kind: "tmpfs", size }), ctx());
    expect(plan).toMatchObject({
      kind: "tmpfs",
      sizeBytes: bytes,
      volumeName: "twinbench-r1-mariadb-tmpfs",
      driverOptions: { type: "tmpfs", device: "tmpfs", o: `size=${bytes},uid=999,gid=999,mode=0750` },
    });
  });

  it("defaults to 2 GiB", () => {
    expect(planStorage(spec({ kind: "tmpfs" }), ctx()).plan).toMatchObject({ sizeBytes: 2 * GiB });
  });

  it("refuses a tiny tmpfs, naming the size", () => {
    const e = planError({ kind: "tmpfs", size: "1m" });
    expect(e.code).toBe("STORAGE_TMPFS_TOO_SMALL");
    expect(e.message).toContain("1 MiB");
  });
});

describe("planStorage: volume and bind", () => {
  it("volume keeps the keep flag", () => {
    expect(planStorage(spec({ kind: "volume", keep: true }), ctx()).plan).toEqual({
      kind: "volume",
      keep: true,
      volumeName: "twinbench-r1-mariadb-data",
    });
  });
  it("bind uses a subdirectory per run and server", () => {
    expect(planStorage(spec({ kind: "bind", path: "/mnt/array/" }), ctx({ runId: "2024 x" })).plan).toEqual({
      kind: "bind",
      basePath: "/mnt/array",
      dir: "/mnt/array/twinbench-2024_x-mariadb",
    });
  });
  it("bind refuses a relative path", () => {
    expect(planError({ kind: "bind", path: "data" }).code).toBe("STORAGE_BIND_RELATIVE");
  });
});

describe("planStorage: raid0", () => {
  it("without md: btrfs native RAID 0, 64 KiB stripes", () => {
    const { plan } = planStorage(spec({ kind: "raid0", loop: { members: 2, size: "1g" } }), ctx());
    expect(plan).toMatchObject({
      kind: "raid0",
      builder: "btrfs",
      fs: "btrfs",
      chunkBytes: 64 * 1024,
      loop: { dir: "/var/lib/twinbench/loop", memberBytes: GiB },
      members: [
        { backingFile: "/var/lib/twinbench/loop/twinbench-r1-mariadb-0.img" },
        { backingFile: "/var/lib/twinbench/loop/twinbench-r1-mariadb-1.img" },
      ],
      mountPoint: "/var/lib/twinbench/mnt/r1/mariadb",
      dataDir: "/var/lib/twinbench/mnt/r1/mariadb/data",
    });
    expect(plan).not.toHaveProperty("mdName");
  });

  it("with md: mdadm, xfs by default, 512 KiB chunk, chunk from the spec", () => {
    const a = planStorage(spec({ kind: "raid0", devices: ["/dev/sdb", "/dev/sdc"] }), ctx({ hasMd: true })).plan;
    expect(a).toMatchObject({
      builder: "mdadm",
      fs: "xfs",
      chunkBytes: 512 * 1024,
      members: [{ device: "/dev/sdb" }, { device: "/dev/sdc" }],
    });
    expect((a as { mdName: string }).mdName).toMatch(/^tb[0-9a-f]{8}$/);
    const b = planStorage(
      spec({ kind: "raid0", devices: ["/dev/sdb", "/dev/sdc"], fs: "ext4", chunk: "64k" }),
      ctx({ hasMd: true }),
    ).plan;
    expect(b).toMatchObject({ fs: "ext4", chunkBytes: 64 * 1024 });
  });

  it.each([
    [{ kind: "raid0", devices: ["/dev/sdb", "/dev/sdc"], fs: "xfs" }, false, "RAID_FS_NEEDS_MD", "fs xfs"],
    [{ kind: "raid0", loop: { members: 2, size: "1g" }, fs: "ext4" }, false, "RAID_FS_NEEDS_MD", "fs ext4"],
    [{ kind: "raid0", loop: { members: 2, size: "1g" }, chunk: "512k" }, false, "RAID_CHUNK_BTRFS", "512 KiB"],
    [{ kind: "raid0", loop: { members: 2, size: "1g" }, chunk: "96k" }, true, "RAID_CHUNK_INVALID", "96 KiB"],
    [{ kind: "raid0" }, false, "STORAGE_RAID_MEMBERS", "exactly one"],
    [
      { kind: "raid0", devices: ["/dev/sdb", "/dev/sdc"], loop: { members: 2, size: "1g" } },
      false,
      "STORAGE_RAID_MEMBERS",
      "exactly one",
    ],
    [{ kind: "raid0", devices: ["/dev/sdb", "/dev/sdb"] }, false, "RAID_DEVICE_DUPLICATE", "/dev/sdb"],
    [{ kind: "raid0", loop: { members: 2, size: "64m" } }, false, "RAID_MEMBER_TOO_SMALL", "64 MiB"],
    [{ kind: "raid0", loop: { members: 2, size: "100m" }, fs: "xfs" }, true, "RAID_MEMBER_TOO_SMALL", "xfs"],
    [{ kind: "raid0", loop: { members: 2, size: "1g", dir: "loops" } }, false, "STORAGE_LOOP_DIR_RELATIVE", "loops"],
  ])("%j (md=%s) → %s", (raw, hasMd, code, text) => {
    const e = planError(raw, ctx({ hasMd }));
    expect(e.code).toBe(code);
    expect(e.message).toContain(text);
    expect(e.hint).toBeTruthy();
  });

  it("btrfs accepts an explicit 64k chunk", () => {
    expect(
      planStorage(spec({ kind: "raid0", loop: { members: 3, size: "256m" }, chunk: "64k" }), ctx()).plan,
    ).toMatchObject({ chunkBytes: 65536 });
  });
});

describe("requiredTools", () => {
  it.each([
    [{ kind: "tmpfs" }, false, []],
    [{ kind: "raid0", loop: { members: 2, size: "1g" } }, false, ["losetup", "mkfs.btrfs", "btrfs"]],
    [{ kind: "raid0", devices: ["/dev/sdb", "/dev/sdc"] }, true, ["mdadm", "mkfs.xfs"]],
  ])("%j (md=%s) needs %j", (raw, hasMd, tools) => {
    const got = requiredTools(planStorage(spec(raw), ctx({ hasMd })).plan).map((t) => t.tool);
    for (const t of tools) expect(got).toContain(t);
    if (tools.length === 0) expect(got).toEqual([]);
  });
  it("never asks for losetup with real devices", () => {
    const got = requiredTools(planStorage(spec({ kind: "raid0", devices: ["/dev/sdb", "/dev/sdc"] }), ctx()).plan).map(
      (t) => t.tool,
    );
    expect(got).not.toContain("losetup");
  });
});

describe("tmpfsMemoryWarnings", () => {
  it.each([
    [{ tmpfsBytes: 2 * GiB, bufferPoolBytes: 1 * GiB, memoryLimitBytes: 4 * GiB }, 0, ""],
    [{ tmpfsBytes: 2 * GiB, bufferPoolBytes: 1 * GiB, memoryLimitBytes: 3 * GiB }, 0, ""],
    [
      { tmpfsBytes: 2 * GiB, bufferPoolBytes: 1 * GiB + 1, memoryLimitBytes: 3 * GiB },
      1,
      "exceeds the container memory limit 3 GiB",
    ],
    [{ tmpfsBytes: 4 * GiB, memoryLimitBytes: 2 * GiB }, 1, "tmpfs size 4 GiB exceeds"],
    [{ tmpfsBytes: 4 * GiB, bufferPoolBytes: 1 * GiB }, 0, ""],
    [{ tmpfsBytes: 20 * GiB, bufferPoolBytes: 8 * GiB, hostMemoryBytes: 24 * GiB }, 1, "engine host's memory 24 GiB"],
    [
      { tmpfsBytes: 20 * GiB, bufferPoolBytes: 8 * GiB, memoryLimitBytes: 16 * GiB, hostMemoryBytes: 24 * GiB },
      2,
      "28 GiB",
    ],
  ])("%j → %i warning(s)", (n, count, text) => {
    const w = tmpfsMemoryWarnings(n);
    expect(w).toHaveLength(count);
    if (text) expect(w.join("\n")).toContain(text);
  });
});

describe("loopSpaceWarnings", () => {
  it.each([
    [{ dir: "/l", totalBytes: 8 * GiB, freeBytes: 10 * GiB }, 0],
    [{ dir: "/l", totalBytes: 8 * GiB, freeBytes: 4 * GiB }, 1],
    [{ dir: "/l", totalBytes: 8 * GiB }, 0],
  ])("%j → %i", (n, count) => {
    expect(loopSpaceWarnings(n)).toHaveLength(count);
  });
});
