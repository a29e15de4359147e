/**
 * raid0: an array over block devices or sparse loop files, built by mdadm where the kernel has md, else by
 * btrfs raid0; a filesystem on it, mounted under the mount root, and a data dir bind-mounted into the server.
 */
import { chmod, chown, mkdir, open, statfs } from "node:fs/promises";
import { TwinbenchError } from "../../../core/base/errors.ts";
import type { StorageFacts } from "../../../core/model/results.ts";
import { assessDevice, decideDevices, type DeviceFindings } from "../../../core/storage/devices.ts";
import {
  DATA_TARGET,
  MOUNT_ROOT,
  loopSpaceWarnings,
  requiredTools,
  type Raid0Plan,
} from "../../../core/storage/plan.ts";
import { runChecked } from "../../host/runner.ts";
import { mkdirDurable } from "../../durable-file.ts";
import {
  blockSize,
  exists,
  findTool,
  findmnt,
  inspectDevice,
  readMd,
  readMounts,
  readSwaps,
  safeRealpath,
} from "../host.ts";
import type { StorageMount } from "../../../core/model/engine/mounts.ts";
import type { Problem, ProvisionStep, Provisioner, StorageHost } from "./types.ts";

type Member = { device: string; sizeBytes?: number; backingFile?: string };

async function problems(plan: Raid0Plan, host: StorageHost): Promise<Problem[]> {
  const out: Problem[] = [];
  for (const t of requiredTools(plan))
    if (!(await findTool(t.tool))) out.push({ what: `${t.tool} is missing (package ${t.pkg})`, pkg: t.pkg });
  if (plan.loop && !(await exists("/dev/loop-control")))
    out.push({ what: "/dev/loop-control is missing: no loop device support" });
  const fsList = await host.runner.run("cat", ["/proc/filesystems"]);
  if (fsList.exitCode === 0 && !fsList.stdout.split("\n").some((l) => l.trim().split(/\s+/).pop() === plan.fs)) {
    out.push({ what: `the kernel does not support ${plan.fs} (not in /proc/filesystems)` });
  }
  return out;
}

/** Sparse backing files, each attached to a loop device with direct I/O; every one recorded as it appears. */
async function loopMembers(
  plan: Raid0Plan,
  loop: NonNullable<Raid0Plan["loop"]>,
  { writer, warnings }: ProvisionStep,
  host: StorageHost,
  details: Record<string, string>,
): Promise<Member[]> {
  const { runner, hp } = host;
  await mkdirDurable(hp(loop.dir));
  const fsStat = await statfs(hp(loop.dir)).catch(() => undefined); // free space unknown: the warning says less
  warnings.push(
    ...loopSpaceWarnings({
      dir: loop.dir,
      totalBytes: loop.memberBytes * plan.members.length,
      ...(fsStat ? { freeBytes: fsStat.bavail * fsStat.bsize } : {}),
    }),
  );
  const members: Member[] = [];
  const dio: string[] = [];
  for (const m of plan.members) {
    const file = hp(m.backingFile!);
    let fh;
    try {
      fh = await open(file, "wx", 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") {
        throw new TwinbenchError(`loop backing file ${m.backingFile} already exists`, {
          code: "RAID_BACKING_EXISTS",
          hint: "it is left from an earlier run with the same id: `twinbench clean` removes it (when a state file lists it), or delete it yourself",
        });
      }
      throw e;
    }
    await writer.add({ type: "file", path: file });
    try {
      await fh.truncate(loop.memberBytes); // sparse
    } finally {
      await fh.close();
    }
    const r = await runChecked(runner, "losetup", ["--show", "--direct-io=on", "-f", file], {
      code: "RAID_LOSETUP_FAILED",
      hint: "no free loop device, or loop devices are not available here",
    });
    const device = r.stdout.trim().split("\n").pop()!;
    await writer.add({ type: "loop", device, backingFile: file });
    members.push({ device, sizeBytes: loop.memberBytes, backingFile: m.backingFile });
    const l = await runner.run("losetup", ["-J", "-l", device]);
    dio.push(/"dio":\s*(true|"1")/.test(l.stdout) ? "on" : "off");
  }
  details.loopDirectIo = dio.join(",");
  details.loopDir = loop.dir;
  return members;
}

/** Real devices: each checked (not mounted, not swap, not in an array), wiped only when allowed. */
async function deviceMembers(
  plan: Raid0Plan,
  { req }: ProvisionStep,
  { runner }: StorageHost,
  details: Record<string, string>,
): Promise<Member[]> {
  const mounts = await readMounts(runner);
  const shared = { mounts, swaps: await readSwaps(runner), md: await readMd(runner) };
  const findings: DeviceFindings[] = [];
  for (const m of plan.members) findings.push(assessDevice(await inspectDevice(runner, m.device!, shared)));
  const { wipe } = decideDevices(findings, !!req.wipeDevices);
  for (const d of wipe) {
    await runChecked(runner, "wipefs", ["-a", d], { code: "RAID_WIPE_FAILED", hint: `check that nothing uses ${d}` });
  }
  if (wipe.length > 0) details.wiped = wipe.join(",");
  return findings.map((f) => ({ device: f.device, ...(f.sizeBytes !== undefined ? { sizeBytes: f.sizeBytes } : {}) }));
}

/** The md array (mdadm) or nothing (btrfs raid0 spans the members itself): the device to put the filesystem on. */
async function buildArray(
  plan: Raid0Plan,
  memberDevs: string[],
  { writer }: ProvisionStep,
  { runner }: StorageHost,
  details: Record<string, string>,
) {
  if (plan.builder !== "mdadm") {
    details.profile = "data=raid0,metadata=raid0";
    return { fsDevice: memberDevs[0]!, chunk: "64K" };
  }
  const md = `/dev/md/${plan.mdName}`;
  await writer.add({ type: "md", device: md, members: memberDevs });
  await runChecked(
    runner,
    "mdadm",
    [
      "--create",
      md,
      "--run",
      "--level=0",
      `--raid-devices=${memberDevs.length}`,
      `--chunk=${plan.chunkBytes / 1024}K`,
      "--metadata=1.2",
      ...memberDevs,
    ],
    { code: "RAID_MDADM_FAILED", hint: "see mdadm's message above" },
  );
  details.array = md;
  const real = safeRealpath(md);
  const sys = await runner.run("cat", [`/sys/block/${real.replace(/^.*\//, "")}/md/chunk_size`]);
  const bytes = Number(sys.stdout.trim());
  return { fsDevice: md, chunk: `${(sys.exitCode === 0 && bytes > 0 ? bytes : plan.chunkBytes) / 1024}K` };
}

async function makeFs(
  plan: Raid0Plan,
  fsDevice: string,
  memberDevs: string[],
  { writer }: ProvisionStep,
  { runner }: StorageHost,
): Promise<void> {
  if (plan.fs === "btrfs") {
    const args =
      plan.builder === "btrfs"
        ? ["-f", "-L", plan.label, "-d", "raid0", "-m", "raid0", ...memberDevs]
        : ["-f", "-L", plan.label, fsDevice];
    await runChecked(runner, "mkfs.btrfs", args, { code: "RAID_MKFS_FAILED", hint: "see mkfs.btrfs's message above" });
    await writer.add({ type: "btrfs", devices: plan.builder === "btrfs" ? memberDevs : [fsDevice] });
    await runner.run("btrfs", ["device", "scan", ...(plan.builder === "btrfs" ? memberDevs : [fsDevice])]);
  } else if (plan.fs === "xfs") {
    await runChecked(runner, "mkfs.xfs", ["-f", "-q", "-L", plan.label, fsDevice], {
      code: "RAID_MKFS_FAILED",
      hint: "see mkfs.xfs's message above",
    });
  } else {
    await runChecked(runner, "mkfs.ext4", ["-F", "-q", "-L", plan.label, fsDevice], {
      code: "RAID_MKFS_FAILED",
      hint: "see mkfs.ext4's message above",
    });
  }
}

/** Mount point directories (the ones created under the mount root are recorded, removed when empty), then the mount. */
async function mountFs(
  plan: Raid0Plan,
  fsDevice: string,
  memberDevs: string[],
  { writer }: ProvisionStep,
  { runner, hp }: StorageHost,
): Promise<string> {
  const mp = hp(plan.mountPoint);
  const firstCreated = await mkdirDurable(mp);
  if (firstCreated) {
    const root = hp(MOUNT_ROOT);
    const parts: string[] = [];
    for (let p = mp; p.length >= firstCreated.length && p.startsWith(root + "/"); p = p.replace(/\/[^/]+$/, ""))
      parts.unshift(p);
    for (const p of parts) await writer.add({ type: "dir", path: p, recursive: false });
  } else {
    const busy = (await readMounts(runner)).find((m) => m.target === mp);
    if (busy) {
      throw new TwinbenchError(`${plan.mountPoint} is already a mount point (${busy.source})`, {
        code: "RAID_MOUNTPOINT_BUSY",
        hint: "a run with the same id is still mounted: `twinbench clean`, or choose another run id",
      });
    }
  }
  const sources = [...new Set([fsDevice, safeRealpath(fsDevice), ...memberDevs])];
  await writer.add({ type: "mount", target: mp, sources, fsType: plan.fs });
  await runChecked(runner, "mount", ["-t", plan.fs, fsDevice, mp], {
    code: "RAID_MOUNT_FAILED",
    hint: "see mount's message above",
  });
  return mp;
}

async function provision(plan: Raid0Plan, step: ProvisionStep, host: StorageHost) {
  const { runner, hp } = host;
  const { req } = step;
  const details: Record<string, string> = { builder: plan.builder, mountpoint: plan.mountPoint };
  const members = plan.loop
    ? await loopMembers(plan, plan.loop, step, host, details)
    : await deviceMembers(plan, step, host, details);
  const memberDevs = members.map((m) => m.device);
  const { fsDevice, chunk } = await buildArray(plan, memberDevs, step, host, details);
  details.label = plan.label;
  await makeFs(plan, fsDevice, memberDevs, step, host);
  const mp = await mountFs(plan, fsDevice, memberDevs, step, host);

  const data = hp(plan.dataDir);
  await mkdir(data, { mode: 0o750 });
  await chown(data, req.uid, req.gid);
  await chmod(data, 0o750);

  const f = await findmnt(runner, mp);
  for (const m of members) {
    if (m.sizeBytes === undefined) {
      const s = await blockSize(runner, m.device);
      if (s !== undefined) m.sizeBytes = s;
    }
  }
  const facts: StorageFacts = {
    kind: "raid0",
    fsType: f?.fsType ?? plan.fs,
    ...(f ? { mountOptions: f.options } : {}),
    raidLevel: "raid0",
    members,
    chunk,
    loopBacked: !!plan.loop,
    ...(f?.availBytes !== undefined ? { freeBytesBefore: f.availBytes } : {}),
    ...(f?.sizeBytes !== undefined ? { sizeBytes: f.sizeBytes } : {}),
    details,
  };
  return {
    mount: { kind: "bind", source: plan.dataDir, target: DATA_TARGET } satisfies StorageMount,
    facts,
    needsHolder: false,
    refresh: async () => {
      await runner.run("sync", ["-f", mp]); // btrfs/xfs report space only once delayed allocations are written
      const a = await findmnt(runner, mp);
      return a?.target === mp && a.availBytes !== undefined ? { freeBytesAfter: a.availBytes } : {};
    },
  };
}

export const raid0Provisioner: Provisioner<Raid0Plan> = {
  hostRoot: "root is needed for loop devices, mkfs and mount",
  problems,
  provision,
};
