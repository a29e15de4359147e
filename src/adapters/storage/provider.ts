/**
 * The storage provider: carries out a core/storage plan on the host and the engine, records every resource in the
 * state files the moment it exists, measures facts, and undoes everything in reverse order.
 *
 * tmpfs is a local-driver volume of type tmpfs (a dedicated mount, never /dev/shm). The engine mounts it only while
 * some container uses it and unmounts it (losing its content) when the last one stops: verified on Docker 20.10.24,
 * hence `needsHolder: true`.
 */
import { access, chmod, chown, constants, mkdir, open, stat, statfs } from "node:fs/promises";
import { readFileSync, realpathSync } from "node:fs";
import { hostname as osHostname } from "node:os";
import { delimiter, join } from "node:path";
import { TwinbenchError } from "../../core/errors.ts";
import { LABEL } from "../../core/labels.ts";
import type { StorageFacts } from "../../core/results.ts";
import type { Storage } from "../../core/scenario/schema.ts";
import { assessDevice, decideDevices, type DeviceFindings } from "../../core/storage/devices.ts";
import { parseDfLine, parseProcMounts } from "../../core/storage/parse.ts";
import {
  DATA_TARGET,
  GLOBAL_STATE_DIR,
  MOUNT_ROOT,
  loopSpaceWarnings,
  planStorage,
  requiredTools,
  tmpfsMemoryWarnings,
  type BindPlan,
  type Raid0Plan,
  type StoragePlan,
  type TmpfsPlan,
  type VolumePlan,
} from "../../core/storage/plan.ts";
import { ownerStatus, remainingEntries, type StorageStateRecord } from "../../core/storage/state.ts";
import { runChecked, type Runner } from "../host/runner.ts";
import { sweepUnrecorded, undoRecord } from "./cleanup.ts";
import { blockSize, findmnt, inspectDevice, readMd, readMounts, readSwaps } from "./host.ts";
import { readGlobalRecords, readRunStateFile, setAsideDamagedStateFiles, StateWriter } from "./state-file.ts";
import type { DataMount, ProvisionedStorage, StorageEngine, StorageProvider, StorageRequest } from "./types.ts";
import { unreachableReason } from "../docker/guard.ts";
import { randomBytes } from "node:crypto";

export interface StorageProviderDeps {
  engine: StorageEngine;
  runner: Runner;
  /** Global state dir (default /var/lib/twinbench/state). */
  stateDir?: string;
  /** Where the host's root is visible to this process (default "/"; e.g. "/host" when twinbench runs in a container
   *  with the host's / mounted there). Docker mount sources stay host paths. */
  hostRoot?: string;
  /** Hostname written into state records (default os.hostname()). */
  hostname?: string;
}

const PROBE_TARGET = "/tb-probe";

export function createStorageProvider(deps: StorageProviderDeps): StorageProvider {
  const stateDir = deps.stateDir ?? GLOBAL_STATE_DIR;
  const hostRoot = (deps.hostRoot ?? "/").replace(/\/+$/, "");
  const hostname = deps.hostname ?? osHostname();
  /** A host path as this process sees it. */
  const hp = (p: string) => (hostRoot === "" ? p : join(hostRoot, p));
  const { engine, runner } = deps;

  /** The engine listens on a local socket, so its host paths are this host's (seen under hostRoot). */
  function engineIsLocal(): boolean {
    return engine.location().local;
  }

  async function hasMd(): Promise<boolean> {
    return (await readMd(runner)) !== null;
  }

  async function preflight(spec: Storage): Promise<void> {
    const { plan } = planStorage(spec, { runId: "preflight", serverId: "preflight", uid: 999, gid: 999, hasMd: await hasMd() });
    const problems = await preflightProblems(plan);
    if (problems.length > 0) {
      const pkgs = [...new Set(problems.flatMap((p) => (p.pkg ? [p.pkg] : [])))];
      throw new TwinbenchError(`storage kind ${spec.kind} cannot be set up on this host: ${problems.map((p) => p.what).join("; ")}`, {
        code: "STORAGE_PREREQUISITES",
        hint: pkgs.length > 0
          ? `run \`twinbench doctor --fix\` or \`apt-get install ${pkgs.join(" ")}\`${problems.some((p) => !p.pkg) ? ", and fix the rest listed above" : ""}`
          : "fix the problems listed above (twinbench doctor shows them too)",
        details: problems.map((p) => p.what),
      });
    }
  }

  async function preflightProblems(plan: StoragePlan): Promise<Array<{ what: string; pkg?: string }>> {
    const out: Array<{ what: string; pkg?: string }> = [];
    if (plan.kind === "bind" || plan.kind === "raid0") {
      if (!engineIsLocal()) {
        const host = engine.location().host;
        out.push({ what: `storage kind ${plan.kind} needs this host to be the engine's host, but the engine is remote (${host})` });
      }
      if (process.getuid?.() !== 0) {
        out.push({ what: plan.kind === "raid0" ? "root is needed for loop devices, mkfs and mount" : "root is needed to chown the data dir to the server's uid" });
      }
    }
    if (plan.kind === "bind") {
      const st = await stat(hp(plan.basePath)).catch(() => undefined);
      if (!st) out.push({ what: `bind path ${plan.basePath} does not exist` });
      else if (!st.isDirectory()) out.push({ what: `bind path ${plan.basePath} is not a directory` });
    }
    if (plan.kind === "raid0") {
      for (const t of requiredTools(plan)) if (!(await findTool(t.tool))) out.push({ what: `${t.tool} is missing (package ${t.pkg})`, pkg: t.pkg });
      if (plan.loop && !(await exists("/dev/loop-control"))) out.push({ what: "/dev/loop-control is missing: no loop device support" });
      const fsList = await runner.run("cat", ["/proc/filesystems"]);
      if (fsList.exitCode === 0 && !fsList.stdout.split("\n").some((l) => l.trim().split(/\s+/).pop() === plan.fs)) {
        out.push({ what: `the kernel does not support ${plan.fs} (not in /proc/filesystems)` });
      }
    }
    if (plan.kind === "tmpfs" || plan.kind === "volume") {
      try {
        await engine.ping();
      } catch (e) {
        out.push({ what: `the container engine does not answer (${unreachableReason(e)})` });
      }
    }
    return out;
  }

  async function provision(req: StorageRequest): Promise<ProvisionedStorage> {
    const { plan, warnings } = planStorage(req.spec, {
      runId: req.runId,
      serverId: req.serverId,
      uid: req.uid,
      gid: req.gid,
      hasMd: await hasMd(),
    });
    const rec: StorageStateRecord = {
      version: 1,
      runId: req.runId,
      serverId: req.serverId,
      sessionId: req.sessionId,
      kind: plan.kind,
      owner: { pid: process.pid, hostname, ...startTimeField(process.pid) },
      createdAt: new Date().toISOString(),
      runDir: req.runDir,
      entries: [],
    };
    const writer = new StateWriter(rec, req.runDir, stateDir);
    await writer.flush();

    let disposing: Promise<void> | undefined;
    const dispose = (): Promise<void> => {
      disposing ??= (async () => {
        const out = await undoRecord({ engine, runner }, rec);
        await writer.setEntries(remainingEntries(rec, out.failedEntries));
        if (out.failures.length > 0) {
          disposing = undefined; // a later call retries what is left
          throw new TwinbenchError(`could not undo all storage of server ${req.serverId}: ${out.failures[0]}`, {
            code: "STORAGE_TEARDOWN_FAILED",
            hint: `what is left is recorded in ${writer.globalFile}; \`twinbench clean\` retries it`,
            details: out.failures,
          });
        }
      })();
      return disposing;
    };

    const labels = { [LABEL.role]: "storage", [LABEL.server]: req.serverId, ...req.labels, [LABEL.session]: req.sessionId, [LABEL.run]: req.runId };
    try {
      let made: { mount: DataMount; facts: StorageFacts; refresh: () => Promise<Partial<StorageFacts>>; needsHolder: boolean };
      switch (plan.kind) {
        case "tmpfs":
          made = await provisionTmpfs(plan, req, labels, writer, warnings);
          break;
        case "volume":
          made = await provisionVolume(plan, req, labels, writer);
          break;
        case "bind":
          made = await provisionBind(plan, req, writer);
          break;
        case "raid0":
          made = await provisionRaid0(plan, req, writer, warnings);
          break;
      }
      let facts = made.facts;
      return {
        mount: made.mount,
        get facts() {
          return facts;
        },
        warnings,
        needsHolder: made.needsHolder,
        async refreshFacts() {
          const after = await made.refresh().catch(() => ({}));
          facts = { ...facts, ...after };
          return facts;
        },
        dispose,
      };
    } catch (e) {
      try {
        await dispose();
      } catch (undoErr) {
        if (e instanceof TwinbenchError) e.details.push(`and the undo failed: ${(undoErr as Error).message}`);
      }
      throw e;
    }
  }

  // ---- tmpfs and volume ------------------------------------------------------------------------------------------

  async function ensureNewVolume(name: string): Promise<void> {
    if (!(await engine.inspectVolume(name))) return;
    throw new TwinbenchError(`volume ${name} already exists`, {
      code: "STORAGE_VOLUME_EXISTS",
      hint: "it is left from an earlier run with the same id: `twinbench clean` removes it, or choose another run id",
    });
  }

  async function provisionTmpfs(plan: TmpfsPlan, req: StorageRequest, labels: Record<string, string>, writer: StateWriter, warnings: string[]) {
    const hostMemoryBytes = await engine.facts().then((f) => f.memoryBytes, () => undefined); // unknown: no host-memory warning
    warnings.push(...tmpfsMemoryWarnings({
      tmpfsBytes: plan.sizeBytes,
      bufferPoolBytes: req.bufferPoolBytes,
      memoryLimitBytes: req.memoryBytes,
      hostMemoryBytes,
    }));
    await ensureNewVolume(plan.volumeName);
    await writer.add({ type: "volume", name: plan.volumeName, keep: false });
    await engine.createVolume(plan.volumeName, labels, plan.driverOptions);
    const facts: StorageFacts = {
      kind: "tmpfs",
      fsType: "tmpfs",
      mountOptions: plan.driverOptions.o,
      sizeBytes: plan.sizeBytes,
      freeBytesBefore: plan.sizeBytes,
      details: { volume: plan.volumeName, driver: "local", device: "tmpfs", engineOptions: plan.driverOptions.o },
    };
    const measured = await measureVolume(plan.volumeName, req, labels, false, "tmpfs");
    if (measured.mountOptions) facts.mountOptions = measured.mountOptions;
    if (measured.sizeBytes !== undefined) facts.sizeBytes = measured.sizeBytes;
    return {
      mount: volumeMount(plan.volumeName),
      facts,
      needsHolder: true,
      refresh: async () => {
        const m = await measureVolume(plan.volumeName, req, labels, false, "tmpfs");
        return m.availBytes !== undefined ? { freeBytesAfter: m.availBytes } : {};
      },
    };
  }

  async function provisionVolume(plan: VolumePlan, req: StorageRequest, labels: Record<string, string>, writer: StateWriter) {
    await ensureNewVolume(plan.volumeName);
    await writer.add({ type: "volume", name: plan.volumeName, keep: plan.keep });
    await engine.createVolume(plan.volumeName, labels);
    const m = await measureVolume(plan.volumeName, req, labels, true);
    const facts: StorageFacts = {
      kind: "volume",
      ...(m.fsType ? { fsType: m.fsType } : {}),
      ...(m.mountOptions ? { mountOptions: m.mountOptions } : {}),
      ...(m.availBytes !== undefined ? { freeBytesBefore: m.availBytes } : {}),
      ...(m.sizeBytes !== undefined ? { sizeBytes: m.sizeBytes } : {}),
      details: { volume: plan.volumeName, driver: "local", keep: String(plan.keep), ...(m.mountpoint ? { mountpoint: m.mountpoint } : {}), measuredBy: m.by },
    };
    return {
      mount: volumeMount(plan.volumeName),
      facts,
      needsHolder: false,
      refresh: async () => {
        const after = await measureVolume(plan.volumeName, req, labels, false);
        return after.availBytes !== undefined ? { freeBytesAfter: after.availBytes } : {};
      },
    };
  }

  function volumeMount(name: string): DataMount {
    return { Type: "volume", Source: name, Target: DATA_TARGET, VolumeOptions: { NoCopy: true } };
  }

  /**
   * Measure a volume (and chown its root when asked): with a short container of `probeImage` when given (works on
   * remote engines), else on the host at the engine's mountpoint when it is visible here.
   */
  async function measureVolume(name: string, req: StorageRequest, labels: Record<string, string>, chownRoot: boolean, expectFs?: string) {
    type M = { fsType?: string; mountOptions?: string; sizeBytes?: number; availBytes?: number; mountpoint?: string; by: string };
    const mountpoint = (await engine.inspectVolume(name))?.mountpoint;
    if (req.probeImage) {
      const out = await probeVolume(name, req.probeImage, labels, chownRoot ? { uid: req.uid, gid: req.gid } : undefined);
      const df = parseDfLine(out);
      const mnt = parseProcMounts(out).find((x) => x.target === PROBE_TARGET);
      return {
        ...(mnt ? { fsType: mnt.fsType, mountOptions: mnt.options } : {}),
        ...(df ? { sizeBytes: df.sizeBytes, availBytes: df.availBytes } : {}),
        ...(mountpoint ? { mountpoint } : {}),
        by: `container (${req.probeImage})`,
      } satisfies M;
    }
    if (mountpoint && engineIsLocal() && (await exists(hp(mountpoint)))) {
      if (chownRoot) {
        await chown(hp(mountpoint), req.uid, req.gid);
        await chmod(hp(mountpoint), 0o750);
      }
      const f = await findmnt(runner, hp(mountpoint));
      if (f && (!expectFs || f.fsType === expectFs)) {
        return { fsType: f.fsType, mountOptions: f.options, sizeBytes: f.sizeBytes, availBytes: f.availBytes, mountpoint, by: "host" } satisfies M;
      }
      return { mountpoint, by: "host" } satisfies M;
    }
    return { ...(mountpoint ? { mountpoint } : {}), by: "none (no probeImage and the engine's mountpoint is not visible here)" } satisfies M;
  }

  async function probeVolume(name: string, image: string, labels: Record<string, string>, owner?: { uid: number; gid: number }): Promise<string> {
    const script = 'if [ "$3" = 1 ]; then chown "$1:$2" "$4" && chmod 0750 "$4" || exit 3; fi; df -P -B1 "$4"; grep " $4 " /proc/mounts; exit 0';
    const r = await engine.run(
      {
        name: `${name}-probe-${randomBytes(3).toString("hex")}`,
        image,
        user: "0:0",
        entrypoint: ["sh", "-c", script, "sh", String(owner?.uid ?? 0), String(owner?.gid ?? 0), owner ? "1" : "0", PROBE_TARGET],
        labels: { ...labels, [LABEL.role]: "storage-probe" },
        networkMode: "none",
        mounts: [{ Type: "volume", Source: name, Target: PROBE_TARGET, VolumeOptions: { NoCopy: true } }],
      },
      { timeoutMs: 120_000 },
    );
    const logs = r.output.replace(/\r/g, "");
    if (r.exitCode !== 0) {
      throw new TwinbenchError(`the probe container for volume ${name} exited with ${r.exitCode}${r.timedOut ? " (stopped after 120 s)" : ""}`, {
        code: "STORAGE_PROBE_FAILED",
        hint: `the image ${image} needs sh, df, grep and chown`,
        details: logs.trim().split("\n").slice(-5),
      });
    }
    return logs;
  }

  // ---- bind ------------------------------------------------------------------------------------------------------

  async function provisionBind(plan: BindPlan, req: StorageRequest, writer: StateWriter) {
    const st = await stat(hp(plan.basePath)).catch(() => undefined);
    if (!st || !st.isDirectory()) {
      throw new TwinbenchError(`bind path ${plan.basePath} ${st ? "is not a directory" : "does not exist"}`, {
        code: "STORAGE_BIND_MISSING",
        hint: "create it (or mount your array there) first; twinbench does not create it, so a missing mount never sends data to the root filesystem",
      });
    }
    const local = hp(plan.dir);
    try {
      await mkdir(local, { mode: 0o750 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") {
        throw new TwinbenchError(`${plan.dir} already exists`, {
          code: "STORAGE_BIND_EXISTS",
          hint: "it is left from an earlier run with the same id; remove it (twinbench never deletes what it did not create in this run)",
        });
      }
      throw e;
    }
    // Only now is it certainly ours.
    await writer.add({ type: "dir", path: local, recursive: true });
    await chown(local, req.uid, req.gid);
    await chmod(local, 0o750);
    const f = await findmnt(runner, local);
    const facts: StorageFacts = {
      kind: "bind",
      ...(f ? { fsType: f.fsType, mountOptions: f.options, freeBytesBefore: f.availBytes, sizeBytes: f.sizeBytes } : {}),
      details: { path: plan.basePath, dir: plan.dir, ...(f ? { source: f.source, mountpoint: f.target } : {}) },
    };
    return {
      mount: { Type: "bind", Source: plan.dir, Target: DATA_TARGET } satisfies DataMount,
      facts,
      needsHolder: false,
      refresh: async () => {
        await runner.run("sync", ["-f", local]);
        const a = await findmnt(runner, local);
        return a?.availBytes !== undefined ? { freeBytesAfter: a.availBytes } : {};
      },
    };
  }

  // ---- raid0 -----------------------------------------------------------------------------------------------------

  async function provisionRaid0(plan: Raid0Plan, req: StorageRequest, writer: StateWriter, warnings: string[]) {
    const details: Record<string, string> = { builder: plan.builder, mountpoint: plan.mountPoint };
    let members: Array<{ device: string; sizeBytes?: number; backingFile?: string }>;
    if (plan.loop) {
      const loop = plan.loop;
      await mkdir(hp(loop.dir), { recursive: true });
      const fsStat = await statfs(hp(loop.dir)).catch(() => undefined);
      warnings.push(...loopSpaceWarnings({
        dir: loop.dir,
        totalBytes: loop.memberBytes * plan.members.length,
        ...(fsStat ? { freeBytes: fsStat.bavail * fsStat.bsize } : {}),
      }));
      members = [];
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
    } else {
      const mounts = await readMounts(runner);
      const shared = { mounts, swaps: await readSwaps(runner), md: await readMd(runner) };
      const findings: DeviceFindings[] = [];
      for (const m of plan.members) findings.push(assessDevice(await inspectDevice(runner, m.device!, shared)));
      const { wipe } = decideDevices(findings, !!req.wipeDevices);
      for (const d of wipe) {
        await runChecked(runner, "wipefs", ["-a", d], { code: "RAID_WIPE_FAILED", hint: `check that nothing uses ${d}` });
      }
      if (wipe.length > 0) details.wiped = wipe.join(",");
      members = findings.map((f) => ({ device: f.device, ...(f.sizeBytes !== undefined ? { sizeBytes: f.sizeBytes } : {}) }));
    }
    const memberDevs = members.map((m) => m.device);

    let fsDevice: string;
    let chunk: string;
    if (plan.builder === "mdadm") {
      const md = `/dev/md/${plan.mdName}`;
      await writer.add({ type: "md", device: md, members: memberDevs });
      await runChecked(runner, "mdadm", [
        "--create", md, "--run", "--level=0", `--raid-devices=${memberDevs.length}`, `--chunk=${plan.chunkBytes / 1024}K`,
        "--metadata=1.2", ...memberDevs,
      ], { code: "RAID_MDADM_FAILED", hint: "see mdadm's message above" });
      fsDevice = md;
      details.array = md;
      const real = safeRealpath(md);
      const sys = await runner.run("cat", [`/sys/block/${real.replace(/^.*\//, "")}/md/chunk_size`]);
      const bytes = Number(sys.stdout.trim());
      chunk = `${(sys.exitCode === 0 && bytes > 0 ? bytes : plan.chunkBytes) / 1024}K`;
    } else {
      fsDevice = memberDevs[0];
      chunk = "64K";
      details.profile = "data=raid0,metadata=raid0";
    }
    details.label = plan.label;

    if (plan.fs === "btrfs") {
      const args = plan.builder === "btrfs" ? ["-f", "-L", plan.label, "-d", "raid0", "-m", "raid0", ...memberDevs] : ["-f", "-L", plan.label, fsDevice];
      await runChecked(runner, "mkfs.btrfs", args, { code: "RAID_MKFS_FAILED", hint: "see mkfs.btrfs's message above" });
      await writer.add({ type: "btrfs", devices: plan.builder === "btrfs" ? memberDevs : [fsDevice] });
      await runner.run("btrfs", ["device", "scan", ...(plan.builder === "btrfs" ? memberDevs : [fsDevice])]);
    } else if (plan.fs === "xfs") {
      await runChecked(runner, "mkfs.xfs", ["-f", "-q", "-L", plan.label, fsDevice], { code: "RAID_MKFS_FAILED", hint: "see mkfs.xfs's message above" });
    } else {
      await runChecked(runner, "mkfs.ext4", ["-F", "-q", "-L", plan.label, fsDevice], { code: "RAID_MKFS_FAILED", hint: "see mkfs.ext4's message above" });
    }

    // Mount point directories: record the ones created under the mount root (removed when empty).
    const mp = hp(plan.mountPoint);
    const firstCreated = await mkdir(mp, { recursive: true });
    if (firstCreated) {
      const root = hp(MOUNT_ROOT);
      const parts: string[] = [];
      for (let p = mp; p.length >= firstCreated.length && p.startsWith(root + "/"); p = p.replace(/\/[^/]+$/, "")) parts.unshift(p);
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
    await runChecked(runner, "mount", ["-t", plan.fs, fsDevice, mp], { code: "RAID_MOUNT_FAILED", hint: "see mount's message above" });

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
      mount: { Type: "bind", Source: plan.dataDir, Target: DATA_TARGET } satisfies DataMount,
      facts,
      needsHolder: false,
      refresh: async () => {
        await runner.run("sync", ["-f", mp]); // btrfs/xfs report space only once delayed allocations are written
        const a = await findmnt(runner, mp);
        return a?.target === mp && a.availBytes !== undefined ? { freeBytesAfter: a.availBytes } : {};
      },
    };
  }

  // ---- leftovers -------------------------------------------------------------------------------------------------

  async function cleanLeftovers(opts: { runDir?: string; runId?: string; force?: boolean } = {}): Promise<string[]> {
    const recs: StorageStateRecord[] = [];
    const lines: string[] = [];
    const failures: string[] = [];
    // --force: damaged state files go aside (kept), and the mount and loop tables say what to undo (below).
    if (opts.force) lines.push(...(await setAsideDamagedStateFiles(stateDir, { runId: opts.runId, runDir: opts.runDir })));
    if (opts.runDir) {
      recs.push(...((await readRunStateFile(opts.runDir))?.records ?? []));
    } else {
      for (const { rec } of await readGlobalRecords(stateDir, opts.runId)) recs.push(rec);
    }
    const live: StorageStateRecord[] = [];
    for (const rec of recs) {
      const who = `${rec.runId}/${rec.serverId}`;
      const status = ownerStatus(rec, hostname, startTimeOf);
      if (status === "alive") {
        lines.push(`${who}: skipped, its process ${rec.owner.pid} is still running`);
        live.push(rec);
        continue;
      }
      if (status === "unknown" && !opts.force) {
        lines.push(`${who}: skipped, written on host ${rec.owner.hostname} (use --force if that twinbench is gone)`);
        continue;
      }
      const out = await undoRecord({ engine, runner }, rec);
      lines.push(...out.lines.map((l) => `${who}: ${l}`));
      failures.push(...out.failures.map((l) => `${who}: ${l}`));
      const writer = new StateWriter(rec, opts.runDir ?? rec.runDir, stateDir);
      await writer.setEntries(remainingEntries(rec, out.failedEntries));
    }
    if (opts.force) {
      // Live runs' mounts and loops stay: `live` holds them unless only a run folder's file was read.
      const others = opts.runDir && opts.runId === undefined ? (await readGlobalRecords(stateDir)).map((g) => g.rec) : [];
      const keep = [...live, ...others.filter((r) => ownerStatus(r, hostname, startTimeOf) === "alive")];
      const swept = await sweepUnrecorded({ engine, runner }, { runId: opts.runId, keep, hostPath: hp });
      lines.push(...swept.lines);
      failures.push(...swept.failures);
    }
    if (failures.length > 0) {
      throw new TwinbenchError(`could not undo all storage leftovers: ${failures[0]}`, {
        code: "STORAGE_CLEAN_FAILED",
        hint: `what is left stays recorded in ${stateDir}; fix the cause and run \`twinbench clean\` again`,
        details: [...lines, ...failures.map((f) => `FAILED ${f}`)],
      });
    }
    return lines;
  }

  return { preflight, provision, cleanLeftovers };
}

async function exists(p: string): Promise<boolean> {
  try {
    await access(p, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

async function findTool(name: string): Promise<boolean> {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/local/sbin", "/usr/sbin", "/sbin"].filter(Boolean);
  for (const d of new Set(dirs)) {
    try {
      await access(join(d, name), constants.X_OK);
      return true;
    } catch {
      // next
    }
  }
  return false;
}

function safeRealpath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot): tells a pid apart from a reused one. */
function startTimeOf(pid: number): string | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    return s.slice(s.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

function startTimeField(pid: number): { startTime?: string } {
  const st = startTimeOf(pid);
  return st ? { startTime: st } : {};
}

// Used by doctor-like callers: the tools a spec needs and whether each is present.
export async function storageToolReport(): Promise<Array<{ tool: string; pkg: string; present: boolean }>> {
  const tools = [
    { tool: "losetup", pkg: "mount" },
    { tool: "mount", pkg: "mount" },
    { tool: "findmnt", pkg: "util-linux" },
    { tool: "lsblk", pkg: "util-linux" },
    { tool: "wipefs", pkg: "util-linux" },
    { tool: "mdadm", pkg: "mdadm" },
    { tool: "mkfs.btrfs", pkg: "btrfs-progs" },
    { tool: "mkfs.xfs", pkg: "xfsprogs" },
    { tool: "mkfs.ext4", pkg: "e2fsprogs" },
  ];
  const out: Array<{ tool: string; pkg: string; present: boolean }> = [];
  for (const t of tools) out.push({ ...t, present: await findTool(t.tool) });
  return out;
}

