import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeEngine } from "../../../test/support/fake-engine.ts";
import { createStorageProvider } from "../../../src/adapters/storage/provider.ts";
import { StateWriter } from "../../../src/adapters/storage/state-file.ts";
import { selfOwner } from "../../../src/adapters/host/process-identity.ts";
import {
  planCleanup,
  planForcedSweep,
  type Observed,
  type StorageStateRecord,
} from "../../../src/core/storage/state.ts";
import { fakeRunner } from "../../support/fake-runner.ts";

/** Commands outside the table: succeed, except `cat` (no file). */
const runnerOf = (table: Parameters<typeof fakeRunner>[0]) =>
  fakeRunner(table, (cmd) => ({ stdout: "", stderr: "", exitCode: cmd === "cat" ? 1 : 0 }));

/** This test process as an owner; DEAD: a process of this namespace and boot whose pid does not exist. */
const SELF = selfOwner();
const DEAD = { pid: 4_000_000, hostname: "h", pidNs: SELF.pidNs, bootId: SELF.bootId };

const rec = (entries: StorageStateRecord["entries"], over: Partial<StorageStateRecord> = {}): StorageStateRecord => ({
  version: 1,
  runId: "r1",
  serverId: "s1",
  sessionId: "sess",
  kind: "raid0",
  owner: DEAD,
  createdAt: "2024-01-01T00:00:00.000Z",
  entries,
  ...over,
});

const F0 = "/var/lib/twinbench/loop/twinbench-r1-s1-0.img";
const F1 = "/var/lib/twinbench/loop/twinbench-r1-s1-1.img";
const MP = "/var/lib/twinbench/mnt/r1/s1";
const raidEntries: StorageStateRecord["entries"] = [
  { type: "file", path: F0 },
  { type: "loop", device: "/dev/loop0", backingFile: F0 },
  { type: "file", path: F1 },
  { type: "loop", device: "/dev/loop1", backingFile: F1 },
  { type: "btrfs", devices: ["/dev/loop0", "/dev/loop1"] },
  { type: "dir", path: "/var/lib/twinbench/mnt/r1", recursive: false },
  { type: "dir", path: MP, recursive: false },
  { type: "mount", target: MP, sources: ["/dev/loop0", "/dev/loop1"], fsType: "btrfs" },
];
const live: Observed = {
  mounts: [
    { source: "/dev/vda", target: "/", fsType: "ext4", options: "rw" },
    { source: "/dev/loop0", target: MP, fsType: "btrfs", options: "rw" },
  ],
  loops: [
    { device: "/dev/loop0", backingFile: F0 },
    { device: "/dev/loop1", backingFile: F1 },
  ],
  md: null,
};
const ops = (steps: ReturnType<typeof planCleanup>) =>
  steps.map((s) =>
    s.action
      ? `${s.action.op} ${"target" in s.action ? s.action.target : "device" in s.action ? s.action.device : "path" in s.action ? s.action.path : "name" in s.action ? s.action.name : s.action.devices.join(",")}`
      : `- ${s.note}`,
  );

describe("planCleanup (state-file replay)", () => {
  it("undoes a btrfs raid0 over loops in reverse order", () => {
    expect(ops(planCleanup(rec(raidEntries), live))).toEqual([
      `umount ${MP}`,
      `rmdir ${MP}`,
      "rmdir /var/lib/twinbench/mnt/r1",
      "btrfs-forget /dev/loop0,/dev/loop1",
      "losetup-detach /dev/loop1",
      `rm-file ${F1}`,
      "losetup-detach /dev/loop0",
      `rm-file ${F0}`,
    ]);
  });

  it("leaves a mount that no longer matches, and the directories under it", () => {
    const obs: Observed = { ...live, mounts: [{ source: "/dev/sdz", target: MP, fsType: "xfs", options: "rw" }] };
    const got = ops(planCleanup(rec(raidEntries), obs));
    expect(got[0]).toMatch(/now holds \/dev\/sdz \(xfs\), not twinbench's \/dev\/loop0: left alone/);
    expect(got[1]).toMatch(/has a mount twinbench does not own under it/);
    expect(got[2]).toMatch(/has a mount twinbench does not own under it/);
    expect(got).not.toContain(`umount ${MP}`);
  });

  it("leaves a loop device that now backs another file; detaches an unrecorded loop on our file", () => {
    const obs: Observed = {
      mounts: [],
      loops: [
        { device: "/dev/loop0", backingFile: "/home/u/other.img" },
        { device: "/dev/loop5", backingFile: F1 },
      ],
      md: null,
    };
    const entries = raidEntries.filter((e) => !(e.type === "loop" && e.device === "/dev/loop1"));
    const got = ops(planCleanup(rec(entries), obs));
    expect(got).toContain("losetup-detach /dev/loop5");
    expect(got).not.toContain("losetup-detach /dev/loop0");
    expect(got.join("\n")).toContain("/dev/loop0 now backs /home/u/other.img");
    expect(got).toContain(`- ${MP} is not mounted`);
  });

  it("stops an md array found by its members", () => {
    const entries: StorageStateRecord["entries"] = [
      { type: "md", device: "/dev/md/tb1234abcd", members: ["/dev/sdb", "/dev/sdc"] },
      {
        type: "mount",
        target: MP,
        sources: ["/dev/md/tb1234abcd", "/dev/md127", "/dev/sdb", "/dev/sdc"],
        fsType: "xfs",
      },
    ];
    const obs: Observed = {
      mounts: [{ source: "/dev/md127", target: MP, fsType: "xfs", options: "rw" }],
      loops: [],
      md: [{ name: "md127", state: "active", level: "raid0", members: ["sdc", "sdb"] }],
    };
    expect(ops(planCleanup(rec(entries), obs))).toEqual([`umount ${MP}`, "mdadm-stop /dev/md127"]);
    expect(
      ops(planCleanup(rec(entries), { ...obs, md: [{ name: "md5", state: "active", members: ["sdb", "sdx"] }] }))[1],
    ).toMatch(/no md array over/);
  });

  it.each([
    [{ type: "volume", name: "v", keep: false }, { v: { "twinbench.run": "r1" } }, "volume-rm v"],
    [
      { type: "volume", name: "v", keep: false },
      { v: { "twinbench.run": "other" } },
      "- volume v is not labelled with run r1: left alone",
    ],
    [{ type: "volume", name: "v", keep: false }, {}, "- volume v is gone"],
    [{ type: "volume", name: "v", keep: true }, { v: { "twinbench.run": "r1" } }, "- volume v kept (keep: true)"],
    [{ type: "dir", path: "/data/twinbench-r1-s1", recursive: true }, undefined, "rm-tree /data/twinbench-r1-s1"],
  ] as const)("%j with volumes %j → %s", (entry, volumes, want) => {
    expect(
      ops(planCleanup(rec([entry]), { mounts: [], loops: [], md: null, ...(volumes ? { volumes } : {}) })),
    ).toEqual([want]);
  });
});

describe("cleanLeftovers replays state files (fake runner, fake engine, temp dirs)", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "tb-storage-state-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const removed: string[] = [];
  const engine = new FakeEngine();
  engine.volumes.inspect = async (name: string) => ({ name, labels: { "twinbench.run": "r1" } });
  engine.volumes.remove = async (name: string) => void removed.push(name);

  it("undoes a dead run, in reverse order, and removes its state; skips a live one", async () => {
    const files = [join(dir, "loop", "a.img"), join(dir, "loop", "b.img")];
    const mp = join(dir, "mnt", "r1", "s1");
    mkdirSync(join(dir, "loop"));
    mkdirSync(mp, { recursive: true });
    for (const f of files) writeFileSync(f, "");
    const runDir = join(dir, "run");
    const stateDir = join(dir, "state");
    const dead = new StateWriter(
      rec(
        [
          { type: "file", path: files[0] },
          { type: "loop", device: "/dev/loop3", backingFile: files[0] },
          { type: "file", path: files[1] },
          { type: "loop", device: "/dev/loop4", backingFile: files[1] },
          { type: "btrfs", devices: ["/dev/loop3", "/dev/loop4"] },
          { type: "dir", path: join(dir, "mnt", "r1"), recursive: false },
          { type: "dir", path: mp, recursive: false },
          { type: "mount", target: mp, sources: ["/dev/loop3", "/dev/loop4"], fsType: "btrfs" },
        ],
        { owner: DEAD, runDir },
      ),
      runDir,
      stateDir,
    );
    await dead.flush();
    const liveRec = new StateWriter(
      rec([{ type: "volume", name: "tmpv", keep: false }], {
        serverId: "s2",
        kind: "tmpfs",
        owner: {
          ...SELF,
          hostname: "h",
          startTime: readFileSync(`/proc/${process.pid}/stat`, "utf8").split(") ")[1].split(" ")[19],
        },
        runDir,
      }),
      runDir,
      stateDir,
    );
    await liveRec.flush();
    expect(JSON.parse(readFileSync(join(runDir, "storage-state.json"), "utf8")).records).toHaveLength(2);

    const runner = runnerOf({
      "cat /proc/mounts": { stdout: `/dev/vda / ext4 rw 0 0\n/dev/loop3 ${mp} btrfs rw 0 0\n` },
      "losetup -J -l": {
        stdout: JSON.stringify({
          loopdevices: [
            { name: "/dev/loop3", "back-file": files[0] },
            { name: "/dev/loop4", "back-file": files[1] },
          ],
        }),
      },
    });
    const p = createStorageProvider({ engine, runner, stateDir, hostname: "h" });
    const lines = await p.cleanLeftovers();
    const acts = runner.calls.filter((c) => !c.startsWith("cat ") && c !== "losetup -J -l");
    expect(acts).toEqual([
      `umount ${mp}`,
      "btrfs device scan --forget /dev/loop3",
      "btrfs device scan --forget /dev/loop4",
      "losetup -d /dev/loop4",
      "losetup -d /dev/loop3",
    ]);
    for (const f of files) expect(existsSync(f)).toBe(false);
    expect(existsSync(join(dir, "mnt", "r1"))).toBe(false);
    expect(lines.some((l) => l.includes("r1/s2: skipped, its process"))).toBe(true);
    expect(removed).toEqual([]);
    // The dead record is gone from both files; the live one stays.
    expect(readdirSync(stateDir)).toEqual(["r1-s2.json"]);
    expect(
      JSON.parse(readFileSync(join(runDir, "storage-state.json"), "utf8")).records.map(
        (r: StorageStateRecord) => r.serverId,
      ),
    ).toEqual(["s2"]);
  });

  it("clean --run of a multi-host run replays its hosts' records, every pass, and no other run's", async () => {
    const stateDir = join(dir, "state");
    const run = "20261201-000000-ab12";
    for (const id of [`${run}-a`, `${run}-b-p5`, `${run}9-a`])
      await new StateWriter(
        rec([{ type: "volume", name: `v-${id}`, keep: false }], {
          runId: id,
          owner: DEAD,
        }),
        undefined,
        stateDir,
      ).flush();
    removed.length = 0;
    const own = new FakeEngine();
    own.volumes.inspect = async (name: string) => ({ name, labels: { "twinbench.run": name.slice(2) } });
    own.volumes.remove = engine.volumes.remove;
    const p = createStorageProvider({ engine: own, runner: fakeRunner({}), stateDir, hostname: "h" });
    await p.cleanLeftovers({ runId: run });
    expect(removed.sort()).toEqual([`v-${run}-a`, `v-${run}-b-p5`]);
    expect(readdirSync(stateDir)).toEqual([`${run}9-a-s1.json`]);
  });

  it("keeps the entries whose undo failed, and says so", async () => {
    const stateDir = join(dir, "state");
    const mp = join(dir, "m");
    mkdirSync(mp);
    await new StateWriter(
      rec([
        { type: "loop", device: "/dev/loop3", backingFile: "/f" },
        { type: "mount", target: mp, sources: ["/dev/loop3"], fsType: "btrfs" },
      ]),
      undefined,
      stateDir,
    ).flush();
    const runner = runnerOf({
      "cat /proc/mounts": { stdout: `/dev/loop3 ${mp} btrfs rw 0 0\n` },
      "losetup -J -l": { stdout: JSON.stringify({ loopdevices: [{ name: "/dev/loop3", "back-file": "/f" }] }) },
      [`umount ${mp}`]: { exitCode: 32, stderr: "target is busy" },
      [`umount -l ${mp}`]: { exitCode: 32, stderr: "no" },
    });
    const p = createStorageProvider({ engine, runner, stateDir, hostname: "h" });
    await expect(p.cleanLeftovers()).rejects.toMatchObject({ code: "STORAGE_CLEAN_FAILED" });
    expect(runner.calls).not.toContain("losetup -d /dev/loop3"); // never below a mount still in place
    const left = JSON.parse(readFileSync(join(stateDir, "r1-s1.json"), "utf8")) as StorageStateRecord;
    expect(left.entries.map((e) => e.type)).toEqual(["loop", "mount"]);
  });
});

describe("damaged state files and clean --force", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "tb-storage-corrupt-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const engine = new FakeEngine();
  const runnerFor = (stdouts: Record<string, string>) =>
    runnerOf(Object.fromEntries(Object.entries(stdouts).map(([k, stdout]) => [k, { stdout }])));

  it.each([
    ["not JSON", '{"version":1,"runId":"r1","ent'],
    ["empty", ""],
    ["not a record", '{"hello":1}'],
  ])("a damaged global state file (%s) is a loud error naming it, never 'no state'", async (_n, text) => {
    const stateDir = join(dir, "state");
    mkdirSync(stateDir);
    writeFileSync(join(stateDir, "r1-s1.json"), text);
    const runner = runnerFor({});
    const p = createStorageProvider({ engine, runner, stateDir, hostname: "h", hostRoot: dir });
    const err = await p.cleanLeftovers().catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: "STORAGE_STATE_CORRUPT",
      message: expect.stringContaining(join(stateDir, "r1-s1.json")),
    });
    expect((err as { hint: string }).hint).toContain("twinbench clean --force");
    expect(runner.calls.filter((c) => !c.startsWith("cat ") && !c.startsWith("losetup -J"))).toEqual([]);
    // Another run's damaged file does not block `clean --run r2`.
    expect(await p.cleanLeftovers({ runId: "r2" })).toEqual([]);
  });

  it("a damaged run state file is an error too, also for the run writing it", async () => {
    const runDir = join(dir, "run");
    mkdirSync(runDir);
    writeFileSync(join(runDir, "storage-state.json"), "{");
    await expect(
      new StateWriter(rec([]), runDir, join(dir, "state")).add({ type: "dir", path: "/x", recursive: false }),
    ).rejects.toMatchObject({ code: "STORAGE_STATE_CORRUPT" });
    expect(readFileSync(join(runDir, "storage-state.json"), "utf8")).toBe("{");
  });

  it("--force moves the damaged file aside (kept) and undoes the run's mounts and loops from the host's tables", async () => {
    const stateDir = join(dir, "state");
    mkdirSync(stateDir);
    const damaged = join(stateDir, "r1-s1.json");
    writeFileSync(damaged, '{"version":1,"ru');
    // A live run's record: its loop and mount are kept.
    const live = rec(
      [
        { type: "loop", device: "/dev/loop7", backingFile: "/var/lib/twinbench/loop/twinbench-r9-s1-0.img" },
        { type: "mount", target: "/var/lib/twinbench/mnt/r9/s1", sources: ["/dev/loop7"], fsType: "btrfs" },
      ],
      {
        runId: "r9",
        owner: {
          ...SELF,
          hostname: "h",
          startTime: readFileSync(`/proc/${process.pid}/stat`, "utf8").split(") ")[1]!.split(" ")[19],
        },
      },
    );
    await new StateWriter(live, undefined, stateDir).flush();
    const loopDir = join(dir, "var/lib/twinbench/loop");
    mkdirSync(loopDir, { recursive: true });
    for (const n of ["twinbench-r1-s1-0.img", "twinbench-r1-s2-0.img", "twinbench-r9-s1-0.img", "other.img"])
      writeFileSync(join(loopDir, n), "");
    mkdirSync(join(dir, MP), { recursive: true });
    const runner = runnerFor({
      "cat /proc/mounts": `/dev/vda / ext4 rw 0 0\n/dev/loop0 ${MP} btrfs rw 0 0\n/dev/loop7 /var/lib/twinbench/mnt/r9/s1 btrfs rw 0 0\n/dev/sdb /srv xfs rw 0 0\n`,
      "losetup -J -l": JSON.stringify({
        loopdevices: [
          { name: "/dev/loop0", "back-file": F0 },
          { name: "/dev/loop1", "back-file": `${F1} (deleted)` },
          { name: "/dev/loop7", "back-file": "/var/lib/twinbench/loop/twinbench-r9-s1-0.img" },
          { name: "/dev/loop8", "back-file": "/home/u/disk.img" },
        ],
      }),
    });
    const p = createStorageProvider({ engine, runner, stateDir, hostname: "h", hostRoot: dir });
    await expect(p.cleanLeftovers()).rejects.toMatchObject({ code: "STORAGE_STATE_CORRUPT" });
    const lines = await p.cleanLeftovers({ force: true });
    expect(lines[0]).toBe(
      `moved the damaged state file ${damaged} (invalid JSON: ${(() => {
        try {
          JSON.parse('{"version":1,"ru');
        } catch (e) {
          return (e as Error).message;
        }
      })()}) aside to ${damaged}.corrupt`,
    );
    expect(readFileSync(`${damaged}.corrupt`, "utf8")).toBe('{"version":1,"ru');
    expect(runner.calls.filter((c) => !c.startsWith("cat ") && c !== "losetup -J -l")).toEqual([
      `umount ${MP}`,
      "btrfs device scan --forget /dev/loop0",
      "btrfs device scan --forget /dev/loop1",
      "losetup -d /dev/loop0",
      "losetup -d /dev/loop1",
    ]);
    // Backing files of the run's loops and of no loop are deleted; the live run's and foreign ones stay.
    expect(readdirSync(loopDir).sort()).toEqual(["other.img", "twinbench-r9-s1-0.img"]);
    expect(existsSync(join(dir, MP))).toBe(false);
    expect(lines.some((l) => l.includes("r9/s1: skipped, its process"))).toBe(true);
  });

  it("--force --run: only that run's damaged files, mounts and loops", async () => {
    const stateDir = join(dir, "state");
    mkdirSync(stateDir);
    writeFileSync(join(stateDir, "r1-s1.json"), "{");
    writeFileSync(join(stateDir, "r2-s1.json"), "{");
    const runner = runnerFor({
      "cat /proc/mounts": `/dev/loop0 ${MP} btrfs rw 0 0\n/dev/loop5 /var/lib/twinbench/mnt/r2/s1 btrfs rw 0 0\n`,
      "losetup -J -l": JSON.stringify({
        loopdevices: [
          { name: "/dev/loop0", "back-file": F0 },
          { name: "/dev/loop5", "back-file": "/var/lib/twinbench/loop/twinbench-r2-s1-0.img" },
        ],
      }),
    });
    const p = createStorageProvider({ engine, runner, stateDir, hostname: "h", hostRoot: dir });
    await p.cleanLeftovers({ force: true, runId: "r1" });
    expect(readdirSync(stateDir).sort()).toEqual(["r1-s1.json.corrupt", "r2-s1.json"]);
    expect(runner.calls.filter((c) => /^(umount|losetup -d)/.test(c))).toEqual([
      `umount ${MP}`,
      "losetup -d /dev/loop0",
    ]);
  });
});

describe("planForcedSweep", () => {
  const LOOP_DIRS = ["/var/lib/twinbench/loop"];
  const obs: Observed & { loopFiles: string[] } = {
    mounts: [
      { source: "/dev/loop0", target: "/var/lib/twinbench/mnt/r1/s1", fsType: "xfs", options: "rw" },
      { source: "/dev/md127", target: "/var/lib/twinbench/mnt/r1/s2", fsType: "xfs", options: "rw" },
      { source: "/dev/sda1", target: "/var/lib/twinbench", fsType: "ext4", options: "rw" },
    ],
    loops: [
      { device: "/dev/loop0", backingFile: F0 },
      { device: "/dev/loop2", backingFile: "/var/lib/twinbench/loop/twinbench-r1-s2-0.img" },
      { device: "/dev/loop3", backingFile: "/var/lib/twinbench/loop/twinbench-r1-s2-1.img" },
    ],
    md: [{ name: "md127", state: "active", members: ["loop2", "loop3"] }],
    loopFiles: [],
  };
  it("unmounts deepest first, stops md over twinbench loops, detaches, deletes, removes the mount points; never a mount outside the root", () => {
    const steps = planForcedSweep(obs, { mountRoot: "/var/lib/twinbench/mnt", loopDirs: LOOP_DIRS }).map(
      (s) => s.action,
    );
    expect(steps.map((a) => a.op)).toEqual([
      "umount",
      "umount",
      "mdadm-stop",
      "btrfs-forget",
      "losetup-detach",
      "losetup-detach",
      "losetup-detach",
      "rm-file",
      "rm-file",
      "rm-file",
      "rmdir",
      "rmdir",
    ]);
    expect(steps).toContainEqual({ op: "mdadm-stop", device: "/dev/md127", members: ["/dev/loop2", "/dev/loop3"] });
    expect(steps.some((a) => a.op === "umount" && a.target === "/var/lib/twinbench")).toBe(false);
  });
  it("keeps a live record's mount and loops, and another run's with runId", () => {
    const keep = [
      rec([
        { type: "loop", device: "/dev/loop0", backingFile: F0 },
        { type: "mount", target: MP, sources: ["/dev/loop0"], fsType: "xfs" },
      ]),
    ];
    const kept = planForcedSweep(obs, { mountRoot: "/var/lib/twinbench/mnt", loopDirs: LOOP_DIRS, keep })
      .map((s) => s.note)
      .join("\n");
    expect(kept).not.toContain("loop0");
    expect(kept).not.toContain(MP);
    expect(planForcedSweep(obs, { mountRoot: "/var/lib/twinbench/mnt", loopDirs: LOOP_DIRS, runId: "r2" })).toEqual([]);
  });
  it("detaches and deletes only loops whose backing file lies in a known loop dir, whatever its name", () => {
    const elsewhere: Observed & { loopFiles: string[] } = {
      mounts: [],
      loops: [
        { device: "/dev/loop5", backingFile: "/home/me/twinbench-r1-s1-0.img" },
        { device: "/dev/loop6", backingFile: "/var/lib/twinbench/loop/sub/twinbench-r1-s1-0.img" },
        { device: "/dev/loop7", backingFile: "/srv/tb-loops/twinbench-r1-s1-0.img (deleted)" },
      ],
      md: [],
      loopFiles: ["/home/me/twinbench-r9-x-0.img"],
    };
    const ops = planForcedSweep(elsewhere, { mountRoot: "/var/lib/twinbench/mnt", loopDirs: LOOP_DIRS }).map(
      (s) => s.action,
    );
    expect(ops).toEqual([]);
    // A loop dir a state record names (storage.loop.dir) is a known one.
    const known = planForcedSweep(elsewhere, {
      mountRoot: "/var/lib/twinbench/mnt",
      loopDirs: [...LOOP_DIRS, "/srv/tb-loops/"],
    }).map((s) => s.action);
    expect(known).toContainEqual({ op: "losetup-detach", device: "/dev/loop7" });
    expect(known.filter((a) => a.op === "losetup-detach")).toHaveLength(1);
  });
});
