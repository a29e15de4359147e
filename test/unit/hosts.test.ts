/**
 * The pure parts of multi-host runs: engine URLs and --host flags, dockerode options, shard planning and
 * redistribution, the host-facts diff and the sharding rule, image parity, merging, the host-vs-host report.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import {
  displayEngineUrl,
  hostsOverride,
  parseEngineUrl,
  parseHostFlag,
  resolveHosts,
  resumeHosts,
} from "../../src/core/hosts/url.ts";
import { dockerOptions } from "../../src/adapters/docker/connect.ts";
import { cellsByHost, missingCells, redistribute, shardSummary, groupKey } from "../../src/core/hosts/shard.ts";
import {
  hostFactDiff,
  hostFactRows,
  mergeProbe,
  parseProbeOutput,
  probeCommand,
  shardMismatches,
} from "../../src/core/hosts/facts.ts";
import {
  imageIdNotes,
  imageParity,
  parityError,
  parseDpkgList,
  type HostImageFacts,
} from "../../src/core/hosts/parity.ts";
import { mergeShard, mergeStatus } from "../../src/core/hosts/merge.ts";
import {
  compareHosts,
  renderHostsMarkdown,
  renderHostsText,
  renderShardMarkdown,
} from "../../src/core/report/hosts.ts";
import { planRun } from "../../src/core/plan/plan.ts";
import { ScenarioSchema, type Scenario } from "../../src/core/model/scenario/schema.ts";
import type { CellRecord, HostFacts, RunManifest } from "../../src/core/model/results.ts";
import { InputError } from "../../src/core/base/errors.ts";

const scenario = (extra: Record<string, unknown> = {}): Scenario =>
  ScenarioSchema.parse({
    name: "t",
    servers: [
      { id: "mariadb", image: "mariadb-11.8" },
      { id: "mysql", image: "mysql-9.7" },
    ],
    workload: { tests: ["oltp_read_only", "oltp_point_select"], threads: [1, 4], duration: "2s", repeats: 2 },
    ...extra,
  });

describe("engine URLs", () => {
  it.each([
    ["unix:///var/run/docker.sock", { kind: "unix", socketPath: "/var/run/docker.sock" }],
    ["tcp://127.0.0.2:2375", { kind: "tcp", host: "127.0.0.2", port: 2375, tls: false }],
    ["tcp://10.0.0.5", { kind: "tcp", host: "10.0.0.5", port: 2375, tls: false }],
    ["tcp://box:2376", { kind: "tcp", host: "box", port: 2376, tls: true }],
    ["tcp://[::1]:2375", { kind: "tcp", host: "::1", port: 2375, tls: false }],
    ["ssh://bench@lab2", { kind: "ssh", host: "lab2", port: 22, username: "bench" }],
    ["ssh://lab2:2222", { kind: "ssh", host: "lab2", port: 2222 }],
  ])("%s", (url, want) => {
    expect(parseEngineUrl(url)).toEqual(want);
  });

  it("TLS material turns TLS on and defaults the port to 2376", () => {
    expect(parseEngineUrl("tcp://box", { tls: true })).toEqual({ kind: "tcp", host: "box", port: 2376, tls: true });
  });

  it.each([
    ["http://box:2375", /unsupported scheme http/],
    ["unix://relative.sock", /absolute path/],
    ["tcp://user@box:2375", /no user name/],
    ["tcp://box:2375/path", /unexpected path/],
    ["box:2375", /no scheme/],
  ])("refuses %s", (url, why) => {
    expect(() => parseEngineUrl(url)).toThrow(why);
    try {
      parseEngineUrl(url);
    } catch (e) {
      expect((e as InputError).code).toBe("HOST_URL_INVALID");
      expect((e as InputError).message).toContain(url);
    }
  });

  it("displays without secrets", () => {
    expect(displayEngineUrl(parseEngineUrl("tcp://box:2376"))).toBe("tcp://box:2376 (TLS)");
    expect(displayEngineUrl(parseEngineUrl("ssh://bench@lab2"))).toBe("ssh://bench@lab2");
  });
});

describe("--host flags", () => {
  it("parses ID=URL", () => {
    expect(parseHostFlag("a=unix:///var/run/docker.sock")).toEqual({ id: "a", engine: "unix:///var/run/docker.sock" });
  });
  it.each([["a"], ["=tcp://x:1"], ["A=tcp://x:1"], ["a=ftp://x"]])("refuses %s", (v) => {
    expect(() => parseHostFlag(v)).toThrow(InputError);
  });
  it("flags replace the scenario's hosts, keeping a same-id entry's TLS", () => {
    const tls = { ca: "/c/ca.pem", cert: "/c/cert.pem", key: "/c/key.pem" };
    const hosts = resolveHosts(
      [
        { id: "b", engine: "tcp://old:2376", tls },
        { id: "c", engine: "tcp://c:2375" },
      ],
      ["a=unix:///s.sock", "b=tcp://new:2376"],
    );
    expect(hosts).toEqual([
      { id: "a", engine: "unix:///s.sock" },
      { id: "b", engine: "tcp://new:2376", tls },
    ]);
    expect(resolveHosts([{ id: "c", engine: "tcp://c:2375" }], [])).toEqual([{ id: "c", engine: "tcp://c:2375" }]);
  });
  it("refuses duplicate ids", () => {
    expect(() => resolveHosts(undefined, ["a=tcp://x:1", "a=tcp://y:1"])).toThrow(/given twice/);
  });
  it("on resume, moves a recorded host to a new URL (its TLS kept) and refuses a host the run did not use", () => {
    const tls = { ca: "ca.pem", cert: "c.pem", key: "k.pem" };
    const recorded = [
      { id: "a", engine: "unix:///var/run/docker.sock" },
      { id: "b", engine: "tcp://10.0.0.2:2376", tls },
    ];
    expect(resumeHosts(recorded, [])).toEqual(recorded);
    expect(resumeHosts(recorded, ["b=tcp://10.0.0.9:2376"])).toEqual([
      recorded[0],
      { id: "b", engine: "tcp://10.0.0.9:2376", tls },
    ]);
    expect(() => resumeHosts(recorded, ["c=tcp://10.0.0.3:2375"])).toThrow(/has no host "c" \(its hosts: a, b\)/);
    expect(() => resumeHosts(recorded, ["b=http://x"])).toThrow(InputError);
  });

  it("becomes a --set override that the validator sees", () => {
    expect(hostsOverride([])).toEqual([]);
    expect(hostsOverride(["a=unix:///s.sock"])).toEqual(['hosts=[{"id":"a","engine":"unix:///s.sock"}]']);
  });
});

describe("dockerode options", () => {
  const read = (p: string) => Buffer.from(`PEM ${p}`);
  it("unix: socket path, DOCKER_HOST ignored", () => {
    expect(
      dockerOptions({ id: "a", engine: "unix:///run/x.sock" }, { env: { DOCKER_HOST: "tcp://elsewhere:1" } }),
    ).toEqual({ socketPath: "/run/x.sock", host: undefined, protocol: undefined });
  });
  it("tcp plain and with TLS files", () => {
    expect(dockerOptions({ id: "b", engine: "tcp://127.0.0.2:2375" }, { env: {} })).toEqual({
      protocol: "http",
      host: "127.0.0.2",
      port: 2375,
    });
    const o = dockerOptions(
      { id: "b", engine: "tcp://box", tls: { ca: "/t/ca", cert: "/t/cert", key: "/t/key" } },
      { env: {}, readFile: read },
    );
    expect(o).toMatchObject({ protocol: "https", host: "box", port: 2376 });
    expect(String(o.ca)).toBe("PEM /t/ca");
  });
  it("tcp TLS from DOCKER_CERT_PATH, or a clear error", () => {
    const o = dockerOptions(
      { id: "b", engine: "tcp://box:2376" },
      { env: { DOCKER_CERT_PATH: "/certs" }, readFile: read },
    );
    expect(String(o.key)).toBe("PEM /certs/key.pem");
    expect(() => dockerOptions({ id: "b", engine: "tcp://box:2376" }, { env: {} })).toThrow(/needs TLS material/);
    expect(() =>
      dockerOptions(
        { id: "b", engine: "tcp://box", tls: { ca: "/nope", cert: "/c", key: "/k" } },
        {
          env: {},
          readFile: () => {
            throw new Error("ENOENT");
          },
        },
      ),
    ).toThrow(/cannot read the TLS ca \/nope/);
  });
  it("ssh through docker-modem", () => {
    expect(dockerOptions({ id: "c", engine: "ssh://bench@lab2" }, { env: { SSH_AUTH_SOCK: "/agent" } })).toEqual({
      protocol: "ssh",
      host: "lab2",
      port: 22,
      username: "bench",
      sshOptions: { agent: "/agent", hostVerifier: expect.any(Function) },
    });
  });
});

describe("shard planning", () => {
  const hosts = [
    { id: "a", engine: "unix:///a.sock" },
    { id: "b", engine: "tcp://b:2375" },
    { id: "c", engine: "tcp://c:2375" },
  ];
  const plan = planRun(scenario({ hosts, shard: true }));

  it("group k goes to host k mod h, servers of a group stay together", () => {
    // 2 tests x 2 threads x 2 repeats = 8 groups over 3 hosts: 3, 3, 2 groups.
    expect(shardSummary(plan.cells)).toEqual([
      { host: "a", groups: 3, cells: 6 },
      { host: "b", groups: 3, cells: 6 },
      { host: "c", groups: 2, cells: 4 },
    ]);
    for (const [, cells] of cellsByHost(plan.cells)) {
      const groups = new Map<string, string[]>();
      for (const c of cells) groups.set(groupKey(c), [...(groups.get(groupKey(c)) ?? []), c.server]);
      for (const servers of groups.values()) expect(servers.sort()).toEqual(["mariadb", "mysql"]);
    }
  });

  it("missing cells: planned cells without an ok measure record", () => {
    const bCells = cellsByHost(plan.cells).get("b")!;
    const rec = (key: string, status: CellRecord["status"], phase: CellRecord["phase"] = "measure") =>
      ({ key, status, phase }) as CellRecord;
    const records = [rec(bCells[0]!.key, "ok"), rec(bCells[1]!.key, "failed"), rec(bCells[2]!.key, "ok", "warmup")];
    expect(missingCells(bCells, records).map((c) => c.key)).toEqual(bCells.slice(1).map((c) => c.key));
  });

  it("a lost host's cells go to the survivors by whole groups, in plan order", () => {
    const bCells = cellsByHost(plan.cells).get("b")!;
    const moved = redistribute(bCells, ["a", "c"]);
    const groupsOf = (h: string) => [...new Set(moved.get(h)!.map(groupKey))];
    const bGroups = [...new Set(bCells.map(groupKey))];
    expect(groupsOf("a")).toEqual([bGroups[0], bGroups[2]]);
    expect(groupsOf("c")).toEqual([bGroups[1]]);
    expect(moved.get("a")!.length + moved.get("c")!.length).toBe(bCells.length);
    expect(redistribute(bCells, []).size).toBe(0);
  });

  it("without shard every host runs the whole plan", () => {
    const all = planRun(scenario({ hosts: hosts.slice(0, 2), compare: "hosts" }));
    expect(shardSummary(all.cells)).toEqual([
      { host: "a", groups: 8, cells: 16 },
      { host: "b", groups: 8, cells: 16 },
    ]);
  });
});

const factsA: HostFacts = {
  id: "a",
  kernel: "6.1.0-18-amd64",
  os: "Debian GNU/Linux 12 (bookworm)",
  cpuModel: "AMD EPYC 7763",
  cpus: 8,
  nproc: 8,
  memoryBytes: 32 * 2 ** 30,
  dockerVersion: "20.10.24",
  apiVersion: "1.41",
  storageDriver: "overlay2",
  cgroupVersion: "2",
  volumeFs: "ext4",
  volumeMountOptions: "rw,relatime",
  engine: "unix:///var/run/docker.sock",
};

describe("host facts", () => {
  it("parses the probe", () => {
    const out =
      "kernel=6.1.0-18-amd64\narch=x86_64\nnproc=8\ncpu=AMD  EPYC 7763 64-Core Processor\nvolfs=xfs\nvolopts=rw,noatime,attr2\n";
    expect(parseProbeOutput(out)).toEqual({
      kernel: "6.1.0-18-amd64",
      architecture: "x86_64",
      nproc: 8,
      cpuModel: "AMD EPYC 7763 64-Core Processor",
      volumeFs: "xfs",
      volumeMountOptions: "rw,noatime,attr2",
    });
    expect(parseProbeOutput("garbage\nnproc=x\n")).toEqual({});
    expect(probeCommand()[0]).toBe("sh");
  });
  it("merges the probe into engine info", () => {
    const m = mergeProbe(
      { id: "a", kernel: "6.1", cpus: 8 },
      { cpuModel: "EPYC", nproc: 4, volumeFs: "xfs" },
      "tcp://a:2375",
    );
    expect(m).toEqual({
      id: "a",
      kernel: "6.1",
      cpus: 8,
      cpuModel: "EPYC",
      nproc: 4,
      volumeFs: "xfs",
      engine: "tcp://a:2375",
    });
  });

  const b: HostFacts = {
    ...factsA,
    id: "b",
    kernel: "6.1.0-21-amd64",
    memoryBytes: 32 * 2 ** 30 - 50 * 2 ** 20,
    volumeMountOptions: "rw,noatime",
    engine: "tcp://b:2375",
  };
  it("side by side, marking what differs (the engine URL is not a fact of the machine)", () => {
    const rows = hostFactRows([factsA, b]);
    expect(rows.find((r) => r.field === "kernel")).toEqual({
      field: "kernel",
      values: { a: "6.1.0-18-amd64", b: "6.1.0-21-amd64" },
      equal: false,
    });
    expect(hostFactDiff([factsA, b]).map((r) => r.field)).toEqual(["kernel", "memory", "volume mount options"]);
  });
  it("sharding needs alike hosts; memory within 2% counts as alike", () => {
    expect(
      shardMismatches([factsA, { ...factsA, id: "b", engine: "x", memoryBytes: factsA.memoryBytes! * 0.99 }]),
    ).toEqual([]);
    expect(shardMismatches([factsA, b])).toEqual([
      "kernel: a=6.1.0-18-amd64, b=6.1.0-21-amd64",
      "volume mount options: a=rw,relatime, b=rw,noatime",
    ]);
    expect(shardMismatches([factsA, { ...factsA, id: "b", memoryBytes: 16 * 2 ** 30, cpuModel: undefined }])).toEqual([
      "cpu model: a=AMD EPYC 7763, b=(unknown)",
      "memory: a=32 GiB, b=16 GiB",
    ]);
  });
});

describe("image parity", () => {
  const img = (host: string, extra: Partial<HostImageFacts> = {}): HostImageFacts => ({
    host,
    name: "mysql-9.7",
    tag: "twinbench/mysql-9.7:789ec0ffdef7",
    id: "sha256:43f5662c204d0000",
    labels: { "twinbench.content-hash": "789ec0ffdef7ff", "twinbench.package-version": "9.7.4-2" },
    packages: { "mysql-server": "9.7.4-2", libc6: "2.36-9" },
    ...extra,
  });
  it.each([
    ["identical", [img("a"), img("b")], []],
    [
      "another tag",
      [img("a"), img("b", { tag: "twinbench/mysql-9.7:aaaaaaaaaaaa" })],
      ["mysql-9.7 tag (content hash): a=twinbench/mysql-9.7:789ec0ffdef7, b=twinbench/mysql-9.7:aaaaaaaaaaaa"],
    ],
    [
      "another package label",
      [
        img("a"),
        img("b", { labels: { "twinbench.content-hash": "789ec0ffdef7ff", "twinbench.package-version": "9.7.3-1" } }),
      ],
      ["mysql-9.7 package-version label: a=9.7.4-2, b=9.7.3-1"],
    ],
    [
      "an installed package differs",
      [img("a"), img("b", { packages: { "mysql-server": "9.7.4-2", libc6: "2.36-10" } })],
      ["mysql-9.7 package libc6: a=2.36-9, b=2.36-10"],
    ],
    [
      "a package only on one",
      [img("a"), img("b", { packages: { "mysql-server": "9.7.4-2" } })],
      ["mysql-9.7 package libc6: a=2.36-9, b=(none)"],
    ],
    [
      "missing on a host",
      [img("a"), { ...img("b"), name: "sysbench-1.0" }],
      ["mysql-9.7 present: a=yes, b=no", "sysbench-1.0 present: a=no, b=yes"],
    ],
    ["no dpkg anywhere: labels decide", [img("a", { packages: undefined }), img("b", { packages: undefined })], []],
  ])("%s", (_name, list, want) => {
    const problems = imageParity(list);
    const e = parityError(problems);
    expect(e.problems).toEqual(want);
    if (want.length) expect(e.code).toBe("IMAGE_PARITY");
  });
  it("notes separately built copies (different ids, same content)", () => {
    expect(imageIdNotes([img("a"), img("b", { id: "sha256:bbbbbbbbbbbbbbbbbb" })])).toEqual([
      "mysql-9.7: built separately on each host (ids a=43f5662c204d, b=bbbbbbbbbbbb)",
    ]);
  });
  it("reads dpkg-query output", () => {
    expect(
      parseDpkgList("libc6=2.36-9+deb12u4\nmysql-server=9.7.4-2\n\nbroken line\nlibssl3:amd64=3.0.15-1\n"),
    ).toEqual({ libc6: "2.36-9+deb12u4", "mysql-server": "9.7.4-2", "libssl3:amd64": "3.0.15-1" });
  });
});

// ---- merging and reports on the compare-a / compare-b fixtures (two runs of the same scenario) ----

const fixture = (name: string) => {
  const dir = new URL(`../fixtures/results/${name}/`, import.meta.url);
  const manifest = JSON.parse(readFileSync(new URL("run.json", dir), "utf8")) as RunManifest;
  const cells = readFileSync(new URL("cells.jsonl", dir), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CellRecord);
  return { manifest, cells };
};

describe("merging a sharded run", () => {
  const a = fixture("compare-a");
  const planned = a.manifest.cells.map((c, i) => ({ ...c, host: i % 4 < 2 ? "a" : "b" }));
  const keysOf = (h: string) => new Set(planned.filter((c) => c.host === h).map((c) => c.key));
  const part = (host: string, folder: string, keys: Set<string>) => ({
    host,
    folder,
    manifest: { ...a.manifest, runId: `r-${folder}`, hosts: [{ id: host }], timings: { measure: 10 } },
    cells: a.cells.filter((c) => keys.has(c.key)),
  });

  it("one folder: every cell, host kept, raw paths under raw/<folder>/", () => {
    const m = mergeShard({
      runId: "r",
      parts: [part("a", "a", keysOf("a")), part("b", "b", keysOf("b"))],
      plannedCells: planned,
      hostFacts: [{ id: "a" }, { id: "b" }],
    });
    expect(m.manifest.runId).toBe("r");
    expect(m.manifest.status).toBe(mergeStatus(planned, a.cells, false));
    expect(m.cells.length).toBe(a.cells.filter((c) => keysOf("a").has(c.key) || keysOf("b").has(c.key)).length);
    expect(m.cells.every((c) => c.host === "a" || c.host === "b")).toBe(true);
    expect(m.cells.find((c) => c.host === "b")!.raw.startsWith("raw/b/")).toBe(true);
    expect(m.rawCopies).toEqual([
      { from: "hosts/a/raw", to: "raw/a" },
      { from: "hosts/b/raw", to: "raw/b" },
    ]);
    expect(m.manifest.timings).toEqual({ "a.measure": 10, "b.measure": 10 });
    expect(m.manifest.hostsMixed).toBeUndefined();
  });

  it("a second pass on a survivor fills a lost host's cells; failures and mixing are recorded", () => {
    const bKeys = [...keysOf("b")];
    const half = new Set(bKeys.slice(0, 4));
    const rest = new Set(bKeys.slice(4));
    const m = mergeShard({
      runId: "r",
      parts: [part("a", "a", keysOf("a")), part("b", "b", half), part("a", "a.pass2", rest)],
      plannedCells: planned,
      hostFacts: [{ id: "a" }, { id: "b" }],
      failures: [{ host: "b", message: "its engine stopped answering" }],
      mixed: ["kernel: a=6.1, b=6.2"],
    });
    expect(
      m.cells.filter((c) => rest.has(c.key)).every((c) => c.host === "a" && c.raw.startsWith("raw/a.pass2/")),
    ).toBe(true);
    expect(m.manifest.hostFailures).toEqual([{ host: "b", message: "its engine stopped answering" }]);
    expect(m.manifest.hostsMixed).toEqual(["kernel: a=6.1, b=6.2"]);
    expect(m.manifest.actions!.map((x) => x.action)).toEqual(expect.arrayContaining(["host-lost", "hosts-mixed"]));
    const md = renderShardMarkdown({
      runId: "r",
      hosts: [
        { id: "a", status: "ok" },
        { id: "b", status: "unreachable", error: "gone" },
      ],
      manifest: m.manifest,
      cells: m.cells,
    });
    expect(md).toContain("MIXED HOSTS");
    expect(md).toContain("| b | ");
    expect(md).toContain("host b was lost");
  });

  it("status: every planned cell ok → ok, none → failed, some → partial", () => {
    const ok = (key: string) => ({ key, phase: "measure", status: "ok" }) as CellRecord;
    expect(mergeStatus(planned.slice(0, 2), [ok(planned[0]!.key), ok(planned[1]!.key)], false)).toBe("ok");
    expect(mergeStatus(planned.slice(0, 2), [ok(planned[0]!.key)], false)).toBe("partial");
    expect(mergeStatus(planned.slice(0, 2), [], false)).toBe("failed");
    expect(mergeStatus(planned.slice(0, 2), [], true)).toBe("cancelled");
  });
});

describe("host-vs-host report", () => {
  const a = fixture("compare-a");
  const b = fixture("compare-b");
  const run = (id: string, f: typeof a, facts: HostFacts) => ({
    id,
    status: "ok" as const,
    dir: `hosts/${id}`,
    manifest: {
      ...f.manifest,
      hosts: [facts],
      servers: f.manifest.servers.map((s) => ({
        ...s,
        storage: {
          kind: "tmpfs" as const,
          fsType: "tmpfs",
          mountOptions: id === "a" ? "rw,relatime" : "rw,noatime",
          details: { volume: `v-${id}`, device: "tmpfs" },
        },
      })),
    },
    cells: f.cells,
  });
  const cmp = compareHosts([run("a", a, factsA), run("b", b, { ...factsA, id: "b", kernel: "6.1.0-21-amd64" })]);

  it("host A / host B per server", () => {
    expect(cmp.tables.map((t) => `${t.server}: ${t.numeratorHost}/${t.denominatorHost}`)).toEqual([
      "mariadb: a/b",
      "mysql: a/b",
    ]);
    const t = cmp.tables[0]!.table;
    const cell = t.rows[0]!.cells[0]!;
    expect(cell.status).toBe("ok");
    expect(cell.ratio).toBeCloseTo((cell.numeratorMedian! / cell.denominatorMedian!) * 100, 0);
    expect(t.numeratorLabel).toBe("mariadb@a");
  });

  it("the facts diff: host facts side by side, server facts that differ (per-host names dropped)", () => {
    expect(cmp.facts.filter((f) => !f.equal && f.field !== "engine").map((f) => f.field)).toEqual(["kernel"]);
    expect(cmp.serverFacts.map((d) => `${d.scope} ${d.field}`)).toEqual(
      expect.arrayContaining(["server mariadb storage mountOptions", "server mysql storage mountOptions"]),
    );
    expect(cmp.serverFacts.some((d) => d.field === "storage details")).toBe(false);
    const text = renderHostsText(cmp);
    expect(text).toContain("Server mariadb: host a / host b");
    expect(text).toContain("(mariadb@a q/s / mariadb@b q/s * 100)");
    expect(text).toMatch(/\* kernel\s+6\.1\.0-18-amd64\s+6\.1\.0-21-amd64/);
    const md = renderHostsMarkdown(cmp);
    expect(md).toContain("## mariadb: host a / host b");
    expect(md).toContain("| kernel | 6.1.0-18-amd64 | 6.1.0-21-amd64 | **yes** |");
  });

  it("a lost host: partial, named by id, no table", () => {
    const c = compareHosts([
      run("a", a, factsA),
      { id: "b", status: "unreachable", error: "its engine stopped answering" },
    ]);
    expect(c.tables).toEqual([]);
    const text = renderHostsText(c);
    expect(text).toContain("host b: unreachable - its engine stopped answering");
    expect(text).toContain("PARTIAL");
  });
});

describe("SQL probes through docker exec (remote engines)", async () => {
  const { execProbe, unescapeBatch } = await import("../../src/adapters/docker/exec-probe.ts");
  it("undoes --batch escapes", () => {
    expect(unescapeBatch("a\\tb\\nc\\\\d")).toBe("a\tb\nc\\d");
  });
  it("finds the server by address, reads facts, creates the user, waits for readiness", async () => {
    const execs: string[][] = [];
    const envs: Array<Record<string, string>> = [];
    let ready = 2;
    const engine = {
      hostId: "b",
      async listLabelled() {
        return {
          containers: [{ id: "c1", name: "tb-x-mysql", labels: {}, state: "running" }],
          networks: [],
          volumes: [],
        };
      },
      async inspect() {
        return {
          running: true,
          paused: false,
          exitCode: null,
          oomKilled: false,
          ips: { "tb-x-mysql-net": "10.0.0.2" },
        };
      },
      async exec(id: string, cmd: string[], opts?: { env?: Record<string, string> }) {
        execs.push([id, ...cmd]);
        envs.push(opts?.env ?? {});
        const sql = opts?.env?.TB_SQL ?? "";
        if (sql === "SELECT 1")
          return ready-- > 0
            ? { exitCode: 1, stdout: "", stderr: "ERROR 2002: Can't connect" }
            : { exitCode: 0, stdout: "1\n", stderr: "" };
        if (sql.startsWith("SELECT @@version"))
          return {
            exitCode: 0,
            stdout:
              "9.7.4-2\tMySQL Community Server - GPL\nmax_connections\t151\nsql_mode\tA,B\ninit_file\tNULL\nx\ta\\tb\n",
            stderr: "",
          };
        return { exitCode: 0, stdout: "caching_sha2_password\n", stderr: "" };
      },
    } as unknown as import("../../src/adapters/docker/engine.ts").Engine;
    const p = execProbe(engine);
    const ep = { host: "10.0.0.2", port: 3306, user: "root", password: "pw" };
    expect(await p.waitReady(ep, { deadlineMs: 10_000 })).toBeGreaterThanOrEqual(0);
    expect(await p.readServerFacts(ep)).toEqual({
      version: "9.7.4-2",
      versionComment: "MySQL Community Server - GPL",
      variables: { max_connections: "151", sql_mode: "A,B", init_file: "", x: "a\tb" },
    });
    expect(
      await p.createBenchUser(ep, {
        user: "sbtest",
        password: "tb'x",
        db: "sbtest",
        charset: "utf8mb4",
        collation: "utf8mb4_general_ci",
      }),
    ).toBe("caching_sha2_password");
    const last = execs[execs.length - 1]!;
    expect(last[0]).toBe("c1");
    expect(last).toContain("--host=127.0.0.1");
    expect(last).toContain("--protocol=TCP");
    // The statements (with the benchmark user's password) and root's password go by environment, never argv.
    expect(envs[envs.length - 1]!.TB_SQL).toContain("IDENTIFIED BY 'tb\\'x'");
    expect(envs[envs.length - 1]!.TB_MYSQL_PWD).toBe("pw");
    for (const argv of execs) expect(argv.some((a) => a.includes("pw") || a.includes("tb'x"))).toBe(false);
    await expect(p.readServerFacts({ ...ep, host: "10.9.9.9" })).rejects.toMatchObject({ code: "SERVER_NOT_FOUND" });
  });
});
