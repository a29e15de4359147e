import { describe, expect, it } from "vitest";
import type { RunResult } from "../../../src/adapters/host/runner.ts";
import { inspectDevice } from "../../../src/adapters/storage/host.ts";
import { TwinbenchError } from "../../../src/core/base/errors.ts";
import { assessDevice, decideDevices } from "../../../src/core/storage/devices.ts";
import { fakeRunner } from "../../support/fake-runner.ts";

const LSBLK = "lsblk -J -b -o NAME,PATH,TYPE,SIZE,FSTYPE,MOUNTPOINT";
const lsblk = (node: object) => ({ stdout: JSON.stringify({ blockdevices: [node] }) });
const disk = (name: string, extra: object = {}) => ({
  name,
  path: `/dev/${name}`,
  type: "disk",
  size: 10737418240,
  fstype: null,
  mountpoint: null,
  ...extra,
});
const noSig = { stdout: "" };
const sig = (...s: Array<{ type: string; offset: string; label?: string }>) => ({
  stdout: JSON.stringify({ signatures: s.map((x) => ({ device: "x", uuid: "u", label: null, ...x })) }),
});

const MOUNTS = `/dev/vda / ext4 rw,relatime 0 0
proc /proc proc rw 0 0
/dev/sdd /srv/data xfs rw,noatime 0 0
`;
const SWAPS = `Filename				Type		Size		Used		Priority
/dev/sde                                partition	1048572		0		-2
`;
const MDSTAT = `Personalities : [raid0]
md127 : active raid0 sdf[1] sdg[0]
      20953088 blocks super 1.2 512k chunks

unused devices: <none>
`;

function host(devs: Record<string, { ls: Partial<RunResult>; wipe?: Partial<RunResult> }>, md: string | null = MDSTAT) {
  const table: Record<string, Partial<RunResult>> = {
    "cat /proc/mounts": { stdout: MOUNTS },
    "cat /proc/swaps": { stdout: SWAPS },
    ...(md === null ? {} : { "cat /proc/mdstat": { stdout: md } }),
  };
  for (const [d, v] of Object.entries(devs)) {
    table[`${LSBLK} ${d}`] = v.ls;
    if (v.wipe) table[`wipefs -n -J ${d}`] = v.wipe;
  }
  return fakeRunner(table);
}

const cases: Array<{
  name: string;
  dev: string;
  ls: Partial<RunResult>;
  wipe?: Partial<RunResult>;
  refuse: string[];
  wipeable: string[];
}> = [
  { name: "blank disk", dev: "/dev/sdb", ls: lsblk(disk("sdb")), wipe: noSig, refuse: [], wipeable: [] },
  {
    name: "filesystem signature",
    dev: "/dev/sdb",
    ls: lsblk(disk("sdb", { fstype: "ext4" })),
    wipe: sig({ type: "ext4", offset: "0x438", label: "old" }),
    refuse: [],
    wipeable: ['ext4 signature at offset 0x438 (label "old")'],
  },
  {
    name: "partition table with an unused partition",
    dev: "/dev/sdb",
    ls: lsblk(
      disk("sdb", {
        children: [{ name: "sdb1", path: "/dev/sdb1", type: "part", size: 1, fstype: "xfs", mountpoint: null }],
      }),
    ),
    wipe: sig({ type: "gpt", offset: "0x200" }),
    refuse: [],
    wipeable: ["partition /dev/sdb1 (xfs)", "gpt signature at offset 0x200"],
  },
  {
    name: "a mounted partition",
    dev: "/dev/sdb",
    ls: lsblk(
      disk("sdb", {
        children: [{ name: "sdb1", path: "/dev/sdb1", type: "part", size: 1, fstype: "xfs", mountpoint: "/home" }],
      }),
    ),
    wipe: sig({ type: "dos", offset: "0x1fe" }),
    refuse: ["/dev/sdb1 is mounted at /home"],
    wipeable: ["partition /dev/sdb1 (xfs)", "dos signature at offset 0x1fe"],
  },
  {
    name: "mounted itself (from /proc/mounts)",
    dev: "/dev/sdd",
    ls: lsblk(disk("sdd")),
    wipe: sig({ type: "xfs", offset: "0x0" }),
    refuse: ["mounted at /srv/data (xfs)"],
    wipeable: ["xfs signature at offset 0x0"],
  },
  {
    name: "the root disk",
    dev: "/dev/vda",
    ls: lsblk(disk("vda", { mountpoint: "/" })),
    wipe: noSig,
    refuse: ["mounted at /"],
    wipeable: [],
  },
  {
    name: "active swap",
    dev: "/dev/sde",
    ls: lsblk(disk("sde", { fstype: "swap" })),
    wipe: sig({ type: "swap", offset: "0xff6" }),
    refuse: ["active swap"],
    wipeable: ["swap signature at offset 0xff6"],
  },
  {
    name: "md member",
    dev: "/dev/sdf",
    ls: lsblk(
      disk("sdf", {
        fstype: "linux_raid_member",
        children: [{ name: "md127", path: "/dev/md127", type: "raid0", size: 1, fstype: "xfs", mountpoint: null }],
      }),
    ),
    wipe: sig({ type: "linux_raid_member", offset: "0x1000" }),
    refuse: ["in use by /dev/md127 (raid0)", "member of md array /dev/md127"],
    wipeable: ["linux_raid_member signature at offset 0x1000"],
  },
  {
    name: "LVM physical volume with a holder",
    dev: "/dev/sdh",
    ls: lsblk(
      disk("sdh", {
        fstype: "LVM2_member",
        children: [
          { name: "vg-lv", path: "/dev/mapper/vg-lv", type: "lvm", size: 1, fstype: "ext4", mountpoint: null },
        ],
      }),
    ),
    wipe: sig({ type: "LVM2_member", offset: "0x218" }),
    refuse: ["in use by /dev/mapper/vg-lv (lvm)"],
    wipeable: ["LVM2_member signature at offset 0x218"],
  },
  {
    name: "not a block device",
    dev: "/dev/nope",
    ls: { exitCode: 32, stdout: '{"blockdevices": []}', stderr: "lsblk: /dev/nope: not a block device" },
    refuse: ["not a block device (lsblk: /dev/nope: not a block device)"],
    wipeable: [],
  },
  {
    name: "size 0 (detached loop)",
    dev: "/dev/loop9",
    ls: lsblk({ name: "loop9", path: "/dev/loop9", type: "loop", size: 0, fstype: null, mountpoint: null }),
    wipe: noSig,
    refuse: ["size 0 (a detached loop device or an empty drive?)"],
    wipeable: [],
  },
];

describe("device safety from command output (fake runner)", () => {
  it.each(cases)("$name", async (c) => {
    const runner = host({ [c.dev]: { ls: c.ls, ...(c.wipe ? { wipe: c.wipe } : {}) } });
    const f = assessDevice(await inspectDevice(runner, c.dev));
    expect(f.refuse).toEqual(c.refuse);
    expect(f.wipeable).toEqual(c.wipeable);
    // Inspection never changes anything.
    expect(runner.calls.every((k) => !/wipefs -a|mkfs|mdadm --create|dd /.test(k))).toBe(true);
  });

  it("no md driver: membership is not checked, nothing fails", async () => {
    const runner = host({ "/dev/sdb": { ls: lsblk(disk("sdb")), wipe: noSig } }, null);
    const obs = await inspectDevice(runner, "/dev/sdb");
    expect(obs.md).toBeNull();
    expect(assessDevice(obs).refuse).toEqual([]);
  });
});

describe("decideDevices", () => {
  const clean = { device: "/dev/sdb", refuse: [], wipeable: [] };
  const dirty = { device: "/dev/sdc", refuse: [], wipeable: ["ext4 signature at offset 0x438"] };
  const busy = { device: "/dev/sdd", refuse: ["mounted at /srv"], wipeable: ["xfs signature at offset 0x0"] };

  function err(fn: () => unknown): TwinbenchError {
    try {
      fn();
    } catch (e) {
      if (e instanceof TwinbenchError) return e;
      throw e;
    }
    throw new Error("expected a TwinbenchError");
  }

  it("clean devices pass, nothing to wipe", () => {
    expect(decideDevices([clean, { ...clean, device: "/dev/sdx" }], false)).toEqual({ wipe: [] });
  });
  it("a signature is refused without --wipe-devices, naming device and signature", () => {
    const e = err(() => decideDevices([clean, dirty], false));
    expect(e.code).toBe("DEVICE_HAS_DATA");
    expect(e.message).toContain("/dev/sdc (ext4 signature at offset 0x438)");
    expect(e.hint).toContain("--wipe-devices");
  });
  it("--wipe-devices: the dirty device is to be wiped", () => {
    expect(decideDevices([clean, dirty], true)).toEqual({ wipe: ["/dev/sdc"] });
  });
  it("a device in use is refused even with --wipe-devices", () => {
    const e = err(() => decideDevices([dirty, busy], true));
    expect(e.code).toBe("DEVICE_IN_USE");
    expect(e.message).toContain("/dev/sdd (mounted at /srv)");
    expect(e.details).toContain("/dev/sdd: xfs signature at offset 0x0");
  });
});
