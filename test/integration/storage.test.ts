/**
 * Real storage provisioning on this host and engine: tmpfs, volume, bind, raid0 over loop devices (btrfs here, no
 * md), raid0 over "real" devices (loop devices the test attaches itself), and a kill -9 fault test. Needs root.
 * After each case no mount, loop device, backing file, volume or state file of the run remains.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Docker from "dockerode";
import { DockerEngine } from "../../src/adapters/docker/engine.ts";
import { dockerMount } from "../../src/adapters/docker/container-spec.ts";
import { execa } from "execa";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createRunner } from "../../src/adapters/host/runner.ts";
import { createStorageProvider } from "../../src/adapters/storage/index.ts";
import type { ProvisionedStorage, StorageRequest } from "../../src/adapters/storage/types.ts";
import type { Storage } from "../../src/core/model/scenario/schema.ts";
import { StorageSchema } from "../../src/core/model/scenario/schema.ts";
import { resourceLabels } from "../../src/core/base/labels.ts";

/** Full twinbench labels (with pid and hostname), so other sessions' orphan sweeps leave our resources alone. */
const labelsFor = (runId: string) =>
  resourceLabels({ sessionId: SESSION, runId, hostId: "local", pid: process.pid, hostname: hostname() });

const docker = new Docker();
const runner = createRunner();
const SESSION = `it-storage-${process.pid}`;
const root = mkdtempSync(join(tmpdir(), "tb-storage-it-"));
const stateDir = join(root, "state");
const provider = createStorageProvider({ engine: new DockerEngine(), runner, stateDir });
let image = "";
let seq = 0;

const isRoot = process.getuid?.() === 0;

beforeAll(async () => {
  const imgs = await docker.listImages();
  const tags = imgs.flatMap((i) => i.RepoTags ?? []).filter((t) => t !== "<none>:<none>");
  // Any local image with sh, df and coreutils; the exploration base when present.
  image =
    tags.find((t) => t === "tbexp-base:bookworm") ??
    tags.find((t) => /debian|bookworm|mariadb|mysql|tbexp/.test(t)) ??
    tags[0] ??
    "";
});

afterAll(async () => {
  const c = await docker.listContainers({ all: true, filters: { label: [`twinbench.session=${SESSION}`] } });
  for (const x of c)
    await docker
      .getContainer(x.Id)
      .remove({ force: true })
      .catch(() => undefined);
  const v = await docker.listVolumes({ filters: { label: [`twinbench.session=${SESSION}`] } });
  for (const x of v.Volumes ?? [])
    await docker
      .getVolume(x.Name)
      .remove()
      .catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
});

function request(spec: unknown, over: Partial<StorageRequest> = {}): StorageRequest & { runId: string } {
  const runId = `it${process.pid}x${++seq}`;
  const runDir = join(root, runId);
  mkdirSync(runDir, { recursive: true });
  return {
    spec: StorageSchema.parse(spec) as Storage,
    serverId: "srv",
    runId,
    sessionId: SESSION,
    runDir,
    uid: 999,
    gid: 999,
    labels: labelsFor(runId),
    ...over,
  };
}

/** The volume's name or the host directory of a data mount. */
function sourceOf(st: ProvisionedStorage): string {
  if (st.mount.kind === "tmpfs") throw new Error("a tmpfs mount has no source");
  return st.mount.source;
}

/** Run a short container as uid 999 on the data mount; returns its output. */
async function useMount(st: ProvisionedStorage, runId: string, script: string): Promise<string> {
  const c = await docker.createContainer({
    Image: image,
    User: "999:999",
    Entrypoint: ["sh", "-c", script],
    Tty: true,
    Labels: labelsFor(runId),
    HostConfig: { NetworkMode: "none", Mounts: [dockerMount(st.mount) as Docker.MountSettings] },
  });
  try {
    await c.start();
    const r = (await c.wait()) as { StatusCode: number };
    const out = String(await c.logs({ stdout: true, stderr: true })).replace(/\r/g, "");
    expect(r.StatusCode, out).toBe(0);
    return out;
  } finally {
    await c.remove({ force: true });
  }
}

async function holder(st: ProvisionedStorage, runId: string): Promise<Docker.Container> {
  const c = await docker.createContainer({
    Image: image,
    Entrypoint: ["sleep", "infinity"],
    Labels: labelsFor(runId),
    HostConfig: {
      NetworkMode: "none",
      Mounts: [dockerMount({ ...st.mount, target: "/data" }) as Docker.MountSettings],
    },
  });
  await c.start();
  return c;
}

const WRITE = "echo hello > /var/lib/mysql/t && ls -ln /var/lib/mysql/t && df -P -B1 /var/lib/mysql";

/** Nothing of the run is left: mounts, loop devices, backing files, volumes, state. */
async function expectNothingLeft(runId: string): Promise<void> {
  const mounts = readFileSync("/proc/mounts", "utf8");
  expect(mounts).not.toContain(runId);
  const loops = (await execa("losetup", ["-a"])).stdout;
  expect(loops).not.toContain(runId);
  if (existsSync("/var/lib/twinbench/loop"))
    expect(readdirSync("/var/lib/twinbench/loop").filter((f) => f.includes(runId))).toEqual([]);
  expect(existsSync(`/var/lib/twinbench/mnt/${runId}`)).toBe(false);
  const vols = await docker.listVolumes({ filters: { label: [`twinbench.run=${runId}`] } });
  expect((vols.Volumes ?? []).map((v) => v.Name)).toEqual([]);
  expect(existsSync(join(root, runId, "storage-state.json"))).toBe(false);
  expect(existsSync(stateDir) ? readdirSync(stateDir).filter((f) => f.startsWith(runId)) : []).toEqual([]);
}

describe.skipIf(!isRoot)("storage provider (real)", () => {
  it(
    "tmpfs: a dedicated tmpfs volume; content lives only while a holder keeps it mounted",
    { timeout: 120_000 },
    async () => {
      const req = request({ kind: "tmpfs", size: "64m" }, { memoryBytes: 32 * 2 ** 20 });
      await provider.preflight(req.spec);
      const st = await provider.provision(req);
      try {
        expect(st.needsHolder).toBe(true);
        expect(st.mount).toMatchObject({ kind: "volume", target: "/var/lib/mysql", startEmpty: true });
        expect(st.facts).toMatchObject({
          kind: "tmpfs",
          fsType: "tmpfs",
          sizeBytes: 64 * 2 ** 20,
          freeBytesBefore: 64 * 2 ** 20,
        });
        expect(st.warnings.join("\n")).toContain("exceeds the container memory limit");
        // Without a holder the engine unmounts the tmpfs when the container stops: the file is gone.
        const out = await useMount(st, req.runId, WRITE);
        expect(out).toMatch(/999\s+999/);
        expect(out).toMatch(/^tmpfs\s+67108864\s/m);
        expect(await useMount(st, req.runId, "ls -A /var/lib/mysql; echo end")).toBe("end\n");
        // With a holder it survives from one container to the next.
        const h = await holder(st, req.runId);
        try {
          await useMount(st, req.runId, WRITE);
          expect(await useMount(st, req.runId, "cat /var/lib/mysql/t")).toBe("hello\n");
          const f = await st.refreshFacts();
          expect(f.freeBytesAfter).toBeLessThanOrEqual(64 * 2 ** 20);
        } finally {
          await h.remove({ force: true });
        }
      } finally {
        await st.dispose();
        await st.dispose(); // idempotent
      }
      await expectNothingLeft(req.runId);
    },
  );

  it("tmpfs facts through a probe container (as on a remote engine)", { timeout: 120_000 }, async () => {
    const req = request({ kind: "tmpfs", size: "32m" }, { probeImage: image });
    const st = await provider.provision(req);
    try {
      expect(st.facts.mountOptions).toMatch(/size=32768k/);
      expect(st.facts.mountOptions).toMatch(/uid=999,gid=999/);
    } finally {
      await st.dispose();
    }
    await expectNothingLeft(req.runId);
  });

  it("volume: labelled, chowned to 999, removed at teardown", { timeout: 120_000 }, async () => {
    const req = request({ kind: "volume" });
    const st = await provider.provision(req);
    try {
      expect(st.needsHolder).toBe(false);
      const info = await docker.getVolume(sourceOf(st)).inspect();
      expect(info.Labels).toMatchObject({
        "twinbench.session": SESSION,
        "twinbench.run": req.runId,
        "twinbench.role": "storage",
      });
      expect(st.facts.kind).toBe("volume");
      expect(st.facts.fsType).toBeTruthy();
      expect(st.facts.freeBytesBefore).toBeGreaterThan(0);
      const out = await useMount(st, req.runId, WRITE);
      expect(out).toMatch(/999\s+999/);
      expect(await useMount(st, req.runId, "cat /var/lib/mysql/t")).toBe("hello\n");
      expect((await st.refreshFacts()).freeBytesAfter).toBeGreaterThan(0);
    } finally {
      await st.dispose();
    }
    await expectNothingLeft(req.runId);
  });

  it("volume with keep: true stays", { timeout: 60_000 }, async () => {
    const req = request({ kind: "volume", keep: true });
    const st = await provider.provision(req);
    const name = sourceOf(st);
    await st.dispose();
    expect((await docker.getVolume(name).inspect()).Name).toBe(name);
    await docker.getVolume(name).remove();
  });

  it("bind: a subdirectory per run and server; only it is deleted", { timeout: 120_000 }, async () => {
    const base = join(root, "userdir");
    mkdirSync(base);
    writeFileSync(join(base, "users-file"), "keep me");
    const req = request({ kind: "bind", path: base });
    await provider.preflight(req.spec);
    const st = await provider.provision(req);
    try {
      expect(st.mount).toEqual({
        kind: "bind",
        source: join(base, `twinbench-${req.runId}-srv`),
        target: "/var/lib/mysql",
      });
      expect(st.facts).toMatchObject({ kind: "bind" });
      expect(st.facts.fsType).toBeTruthy();
      await useMount(st, req.runId, WRITE);
      expect(readFileSync(join(sourceOf(st), "t"), "utf8")).toBe("hello\n");
    } finally {
      await st.dispose();
    }
    expect(readdirSync(base)).toEqual(["users-file"]);
    await expectNothingLeft(req.runId);
    await expect(
      provider.preflight(StorageSchema.parse({ kind: "bind", path: join(root, "missing") })),
    ).rejects.toMatchObject({ code: "STORAGE_PREREQUISITES" });
  });

  it("raid0 over two loop members (btrfs native RAID 0 without md)", { timeout: 180_000 }, async () => {
    const req = request({ kind: "raid0", loop: { members: 2, size: "256m" } });
    await provider.preflight(req.spec);
    const st = await provider.provision(req);
    try {
      expect(st.mount.kind).toBe("bind");
      expect(sourceOf(st)).toBe(`/var/lib/twinbench/mnt/${req.runId}/srv/data`);
      expect(st.facts).toMatchObject({
        kind: "raid0",
        fsType: "btrfs",
        raidLevel: "raid0",
        chunk: "64K",
        loopBacked: true,
        sizeBytes: 512 * 2 ** 20,
      });
      expect(st.facts.members).toHaveLength(2);
      expect(st.facts.members![0]).toMatchObject({
        device: expect.stringMatching(/^\/dev\/loop\d+$/),
        sizeBytes: 256 * 2 ** 20,
      });
      expect(st.facts.mountOptions).toBeTruthy();
      expect(st.facts.freeBytesBefore).toBeGreaterThan(0);
      const state = JSON.parse(readFileSync(join(req.runDir, "storage-state.json"), "utf8"));
      expect(state.records[0].entries.map((e: { type: string }) => e.type)).toEqual([
        "file",
        "loop",
        "file",
        "loop",
        "btrfs",
        "dir",
        "dir",
        "mount",
      ]);
      expect(readFileSync("/proc/mounts", "utf8")).toContain(`/var/lib/twinbench/mnt/${req.runId}/srv btrfs`);
      const out = await useMount(
        st,
        req.runId,
        "dd if=/dev/zero of=/var/lib/mysql/big bs=1M count=32 2>/dev/null && " + WRITE,
      );
      expect(out).toMatch(/999\s+999/);
      const f = await st.refreshFacts();
      expect(f.freeBytesAfter).toBeLessThan(f.freeBytesBefore!);
    } finally {
      await st.dispose();
    }
    await expectNothingLeft(req.runId);
  });

  describe("raid0 over real devices (loop devices attached by the test)", () => {
    const devs: string[] = [];
    const files: string[] = [];
    beforeAll(async () => {
      for (let i = 0; i < 2; i++) {
        const f = join(root, `dev${i}.img`);
        writeFileSync(f, "");
        await execa("truncate", ["-s", "256M", f]);
        files.push(f);
        devs.push((await execa("losetup", ["--show", "-f", f])).stdout.trim());
      }
      await execa("mkfs.ext4", ["-q", "-F", "-L", "precious", devs[1]]);
    });
    afterAll(async () => {
      for (const d of devs) await execa("losetup", ["-d", d], { reject: false });
    });

    it(
      "refuses a device with a filesystem, and a mounted one even with --wipe-devices",
      { timeout: 120_000 },
      async () => {
        const req = request({ kind: "raid0", devices: devs });
        await expect(provider.provision(req)).rejects.toMatchObject({
          code: "DEVICE_HAS_DATA",
          message: expect.stringContaining(`${devs[1]} (ext4 signature`),
        });
        await expectNothingLeft(req.runId);
        const mnt = join(root, "devmnt");
        mkdirSync(mnt);
        await execa("mount", [devs[1], mnt]);
        try {
          const req2 = request({ kind: "raid0", devices: devs }, { wipeDevices: true });
          await expect(provider.provision(req2)).rejects.toMatchObject({
            code: "DEVICE_IN_USE",
            message: expect.stringContaining(`${devs[1]} (mounted at ${mnt}`),
          });
        } finally {
          await execa("umount", [mnt]);
        }
        // The refused device was not touched.
        expect((await execa("blkid", ["-o", "value", "-s", "LABEL", devs[1]])).stdout.trim()).toBe("precious");
      },
    );

    it("uses them with --wipe-devices and undoes the array", { timeout: 180_000 }, async () => {
      const req = request({ kind: "raid0", devices: devs }, { wipeDevices: true });
      const st = await provider.provision(req);
      try {
        expect(st.facts).toMatchObject({
          kind: "raid0",
          fsType: "btrfs",
          loopBacked: false,
          details: expect.objectContaining({ wiped: devs[1] }),
        });
        expect(st.facts.members!.map((m) => m.device)).toEqual(devs);
        expect(st.facts.members![0].sizeBytes).toBe(256 * 2 ** 20);
        await useMount(st, req.runId, WRITE);
      } finally {
        await st.dispose();
      }
      await expectNothingLeft(req.runId);
      // The devices themselves are the user's: still attached, never detached by twinbench.
      const loops = (await execa("losetup", ["-a"])).stdout;
      for (const f of files) expect(loops).toContain(f);
    });
  });

  it("fault: kill -9 while a raid0 is mounted; cleanLeftovers undoes it", { timeout: 180_000 }, async () => {
    const req = request({ kind: "raid0", loop: { members: 2, size: "200m" } });
    const child = join(root, "fault-child.mts");
    const src = resolve(import.meta.dirname, "../../src");
    writeFileSync(
      child,
      `
import { createRequire } from "node:module";
import { createRunner } from ${JSON.stringify(join(src, "adapters/host/runner.ts"))};
import { createStorageProvider } from ${JSON.stringify(join(src, "adapters/storage/index.ts"))};
import { DockerEngine } from ${JSON.stringify(join(src, "adapters/docker/engine.ts"))};
const req = JSON.parse(process.argv[2]);
const p = createStorageProvider({ engine: new DockerEngine(), runner: createRunner(), stateDir: ${JSON.stringify(stateDir)} });
const st = await p.provision(req);
process.stdout.write("READY " + st.mount.source + "\\n");
setInterval(() => {}, 1000);
`,
    );
    const tsx = resolve(import.meta.dirname, "../../node_modules/.bin/tsx");
    // Its own process group (tsx runs node as a child): kill -9 the whole group, as a crash would.
    const proc = spawn(tsx, [child, JSON.stringify(req)], {
      stdio: ["ignore", "pipe", "pipe"],
      cwd: resolve(import.meta.dirname, "../.."),
      detached: true,
    });
    let out = "";
    let err = "";
    proc.stderr.on("data", (d) => (err += String(d)));
    await new Promise<void>((res, rej) => {
      proc.stdout.on("data", (d) => {
        out += String(d);
        if (out.includes("READY")) res();
      });
      proc.on("exit", (code) => rej(new Error(`child exited ${code} before READY: ${err}`)));
    });
    expect(readFileSync("/proc/mounts", "utf8")).toContain(`/var/lib/twinbench/mnt/${req.runId}/srv`);
    const owner = JSON.parse(readFileSync(join(req.runDir, "storage-state.json"), "utf8")).records[0].owner
      .pid as number;
    const exited = new Promise((r) => proc.once("exit", r));
    process.kill(-proc.pid!, "SIGKILL");
    await exited;
    for (let i = 0; i < 100 && existsSync(`/proc/${owner}`); i++) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(`/proc/${owner}`)).toBe(false);
    expect((await execa("losetup", ["-a"])).stdout).toContain(req.runId);
    const lines = await provider.cleanLeftovers({ runDir: req.runDir });
    expect(lines.join("\n")).toContain("unmount");
    expect(lines.join("\n")).toContain("detach /dev/loop");
    await expectNothingLeft(req.runId);
    // Nothing left to do a second time.
    expect(await provider.cleanLeftovers({ runDir: req.runDir })).toEqual([]);
  });
});
