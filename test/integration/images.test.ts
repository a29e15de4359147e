/**
 * The pinned images for real: build all four in debian mode (once; a later run is all cache hits), check their tags
 * and labels, start the three servers through testcontainers' MariaDB/MySQL modules and probe them with mysql2,
 * run the sysbench image's select.lua and tb_conninfo.lua against them, and check the failure paths (a package
 * missing at its pinned version, official mode with a placeholder digest). Leaves the built images in place;
 * removes every container it started.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Docker from "dockerode";
import { DockerEngine } from "../../src/adapters/docker/engine.ts";
import mysql from "mysql2/promise";
import { MariaDbContainer, type StartedMariaDbContainer } from "@testcontainers/mariadb";
import { MySqlContainer, type StartedMySqlContainer } from "@testcontainers/mysql";
import {
  detectMode,
  ensureImage,
  ensureImages,
  listImages,
  loadLock,
  type EnsuredImage,
} from "../../src/adapters/images/index.ts";
import type { Lock } from "../../src/core/images/lock.ts";
import { TwinbenchError } from "../../src/core/base/errors.ts";

const docker = new Docker();
const images = new DockerEngine().images;
const SESSION = `it-images-${process.pid}`;
const LABELS = { "twinbench.session": SESSION, "twinbench.run": `${SESSION}-run` };
let lock: Lock;
const built = new Map<string, EnsuredImage>();

beforeAll(async () => {
  lock = await loadLock();
  // Builds what is missing: up to ~6 minutes on a fresh machine (two debootstraps, four apt installs).
  for (const img of await ensureImages(images, undefined, { lock, mode: "debian" })) built.set(img.name, img);
}, 1_800_000);

afterAll(async () => {
  const cs = await docker.listContainers({ all: true, filters: { label: [`twinbench.session=${SESSION}`] } });
  for (const c of cs)
    await docker
      .getContainer(c.Id)
      .remove({ force: true, v: true })
      .catch(() => undefined);
});

describe("pinned images", () => {
  it("are tagged twinbench/<name>:<hash12> and carry the labels", () => {
    expect([...built.keys()].sort()).toEqual(["mariadb-10.11", "mariadb-11.8", "mysql-9.7", "sysbench-1.0"]);
    for (const [name, img] of built) {
      const e = lock.images[name]!;
      expect(img.tag).toMatch(new RegExp(`^twinbench/${name.replace(".", "\\.")}:[0-9a-f]{12}$`));
      expect(img.mode).toBe("debian");
      expect(img.labels).toMatchObject({
        "twinbench.image": name,
        "twinbench.family": e.family,
        "twinbench.version": e.version,
        "twinbench.package-version": e.packages[e.package],
        "twinbench.mode": "debian",
      });
      expect(img.labels["twinbench.lock-hash"]).toMatch(/^[0-9a-f]{64}$/);
      expect(img.labels["twinbench.content-hash"]?.slice(0, 12)).toBe(img.tag.split(":")[1]);
      expect(Number.isNaN(Date.parse(img.labels["twinbench.build-time"] ?? ""))).toBe(false);
      if (e.family !== "sysbench") expect(img.labels["twinbench.mysql-uid"]).toBe("999");
    }
  });

  it("a second ensureImage is a cache hit with the same image", async () => {
    for (const name of ["mariadb-11.8", "sysbench-1.0"]) {
      const again = await ensureImage(images, name, { lock, mode: "debian" });
      expect(again.cacheHit).toBe(true);
      expect(again.id).toBe(built.get(name)!.id);
      expect(again.tag).toBe(built.get(name)!.tag);
    }
  });

  it("listImages shows them and the base images", async () => {
    const list = await listImages(images);
    for (const img of built.values()) expect(list.some((l) => l.tags.includes(img.tag))).toBe(true);
    expect(list.some((l) => l.name === "base" && l.labels["twinbench.suite"] === "sid")).toBe(true);
    expect(list.some((l) => l.name === "base" && l.labels["twinbench.suite"] === "bookworm")).toBe(true);
  });

  it("the sysbench image has no MySQL packages and pins libmariadb3", async () => {
    const out = await runIn(built.get("sysbench-1.0")!.tag, ["dpkg-query", "-W", "-f", "${Package}=${Version}\\n"]);
    expect(out.exitCode).toBe(0);
    expect(out.output).toContain(`libmariadb3=${lock.images["sysbench-1.0"]!.packages["libmariadb3"]}`);
    expect(out.output).toContain("sysbench=1.0.20+ds-5");
    expect(out.output).not.toMatch(/^(mysql-server|mysql-client|libmysqlclient)/m);
  });
});

describe("failures", () => {
  it("a package missing at its pinned version names package, version and suite; nothing is tagged", async () => {
    const e = lock.images["sysbench-1.0"]!;
    const bad: Lock = {
      ...lock,
      images: { "sysbench-missing": { ...e, packages: { ...e.packages, sysbench: "9.9.9-1" } } },
    };
    const err = await ensureImage(images, "sysbench-missing", { lock: bad, mode: "debian" }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(err).toBeInstanceOf(TwinbenchError);
    const t = err as TwinbenchError;
    expect(t.code).toBe("IMAGE_PACKAGE_NOT_FOUND");
    expect(t.message).toContain("sysbench 9.9.9-1");
    expect(t.message).toContain("bookworm");
    expect(t.hint).toContain("lock.yaml");
    expect(t.details.join("\n")).toMatch(/E: Version '9\.9\.9-1' for 'sysbench' was not found/);
    const imgs = await docker.listImages({ filters: { reference: ["twinbench/sysbench-missing"] } });
    expect(imgs).toEqual([]);
  }, 300_000);

  it("official mode refuses a placeholder digest", async () => {
    await expect(ensureImage(images, "mariadb-11.8", { lock, mode: "official" })).rejects.toMatchObject({
      code: "IMAGE_DIGEST_PLACEHOLDER",
    });
  });

  it("auto mode falls back to debian when no registry answers", async () => {
    const digest = `sha256:${"0".repeat(64)}`;
    const withDigests: Lock = {
      ...lock,
      images: Object.fromEntries(
        Object.entries(lock.images).map(([n, e]) => [n, { ...e, official: { ...e.official, digest } }]),
      ),
    };
    const d = await detectMode(images, withDigests, ["mariadb-11.8"], { timeoutMs: 5000 });
    expect(d.mode).toBe("debian");
    expect(d.reason).toContain("mariadb:11.8");
  }, 60_000);
});

type Started = StartedMariaDbContainer | StartedMySqlContainer;

async function startServer(name: string, command?: string[]): Promise<Started> {
  const e = lock.images[name]!;
  const tag = built.get(name)!.tag;
  const c = e.family === "mysql" ? new MySqlContainer(tag) : new MariaDbContainer(tag);
  c.withLabels(LABELS).withTmpFs({ "/var/lib/mysql": "rw,size=1g" });
  if (command) c.withCommand(command);
  return c.start();
}

async function query(s: Started, sql: string, root = false): Promise<Record<string, unknown>[]> {
  const conn = await mysql.createConnection({
    host: s.getHost(),
    port: s.getPort(),
    user: root ? "root" : s.getUsername(),
    password: root ? s.getRootPassword() : s.getUserPassword(),
    database: s.getDatabase(),
    // MySQL's caching_sha2_password over plain TCP needs the server's key; mysql2 3.26 fetches it only when allowed
    // (the lab's own container, as src/adapters/mysql/probe.ts says).
    allowPublicKeyRetrieval: true,
  });
  try {
    const [rows] = await conn.query(sql);
    return rows as Record<string, unknown>[];
  } finally {
    await conn.end();
  }
}

/** Run a one-off labelled container and collect its output. */
async function runIn(
  image: string,
  cmd: string[],
  networkMode?: string,
): Promise<{ exitCode: number; output: string }> {
  const c = await docker.createContainer({
    Image: image,
    Cmd: cmd,
    Labels: LABELS,
    HostConfig: networkMode ? { NetworkMode: networkMode } : {},
  });
  try {
    await c.start();
    const r = (await c.wait()) as { StatusCode: number };
    const logs = (await c.logs({ stdout: true, stderr: true, follow: false })) as Buffer;
    return { exitCode: r.StatusCode, output: demux(logs) };
  } finally {
    await c.remove({ force: true, v: true }).catch(() => undefined);
  }
}

/** Strip Docker's 8-byte stream headers from a non-TTY log buffer. */
function demux(buf: Buffer): string {
  const out: Buffer[] = [];
  let i = 0;
  while (i + 8 <= buf.length) {
    const len = buf.readUInt32BE(i + 4);
    out.push(buf.subarray(i + 8, i + 8 + len));
    i += 8 + len;
  }
  return Buffer.concat(out).toString("utf8");
}

describe.each([
  ["mariadb-11.8", "11.8.9"],
  ["mariadb-10.11", "10.11.19"],
  ["mysql-9.7", "9.7.4"],
])("server %s", (name, version) => {
  let s: Started;
  beforeAll(async () => {
    // Extra options after --defaults-file: the init step must honour innodb_page_size (init-time only).
    s = await startServer(name, [
      "--defaults-file=/etc/twinbench/my.cnf",
      "--innodb-page-size=8192",
      "--max-connections=77",
    ]);
  }, 300_000);
  afterAll(async () => {
    await s?.stop();
  });

  it("starts from our image via testcontainers and SELECT VERSION() matches the lock", async () => {
    const [row] = await query(s, "SELECT VERSION() AS v, CURRENT_USER() AS u, DATABASE() AS d");
    expect(String(row!.v).startsWith(`${version}`)).toBe(true);
    expect(row!.u).toBe(`${s.getUsername()}@%`);
    expect(row!.d).toBe(s.getDatabase());
    const [r2] = await query(s, "SELECT VERSION() AS v, CURRENT_USER() AS u", true);
    expect(String(r2!.v).startsWith(version)).toBe(true);
    expect(r2!.u).toBe("root@%");
  });

  it("runs with the given options, initialised with them", async () => {
    const [row] = await query(
      s,
      "SELECT @@innodb_page_size AS ps, @@max_connections AS mc, @@socket AS sock, @@skip_name_resolve AS snr",
      true,
    );
    expect(Number(row!.ps)).toBe(8192);
    expect(Number(row!.mc)).toBe(77);
    expect(row!.sock).toBe("/run/mysqld/mysqld.sock");
    expect(Number(row!.snr)).toBe(1);
  });

  it("runs the server as PID 1, user mysql with uid 999, socket dir open to sidecars, procps present", async () => {
    const r = await s.exec([
      "bash",
      "-c",
      "ps -o user=,comm= -p 1; id -u mysql; id -g mysql; stat -c '%a %U' /run/mysqld; command -v pkill",
    ]);
    expect(r.exitCode).toBe(0);
    const lines = r.output.trim().split("\n");
    expect(lines[0]).toMatch(/^mysql\s+(mariadbd|mysqld)$/);
    expect(lines.slice(1, 4)).toEqual(["999", "999", "777 mysql"]);
    expect(lines[4]).toMatch(/pkill$/);
  });

  it("writes its error log to stderr (docker logs)", async () => {
    const logs = (await docker.getContainer(s.getId()).logs({ stdout: true, stderr: true })) as Buffer;
    expect(demux(logs)).toMatch(/ready for connections/);
  });

  it("select.lua and tb_conninfo.lua run against it from the sysbench image", async () => {
    const sb = built.get("sysbench-1.0")!.tag;
    const net = `container:${s.getId()}`;
    const opts = [
      "--db-driver=mysql",
      "--mysql-host=127.0.0.1",
      "--mysql-port=3306",
      `--mysql-user=${s.getUsername()}`,
      `--mysql-password=${s.getUserPassword()}`,
      `--mysql-db=${s.getDatabase()}`,
      "--tables=2",
      "--table-size=1000",
    ];
    const prep = await runIn(sb, ["sysbench", "select", ...opts, "prepare"], net);
    expect(prep.exitCode, prep.output).toBe(0);
    expect(prep.output).toContain("Inserting 1000 records into 'sbtest2'");
    const run = await runIn(sb, ["sysbench", "select", ...opts, "--threads=2", "--events=200", "--time=0", "run"], net);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toMatch(/read:\s+200\b/);
    expect(run.output).toMatch(/write:\s+0\b/);
    const info = await runIn(sb, ["sysbench", "tb_conninfo", ...opts, "--events=1", "run"], net);
    expect(info.exitCode, info.output).toBe(0);
    expect(info.output).toMatch(/^twinbench\.ssl_cipher=.*$/m);
    expect(info.output).toMatch(new RegExp(`^twinbench\\.version=${version.replace(/\./g, "\\.")}`, "m"));
    expect(info.output).toContain(`twinbench.user=${s.getUsername()}@%`);
    const cmd = await runIn(sb, ["sysbench", "tb_conninfo", ...opts, "conninfo"], net);
    expect(cmd.exitCode, cmd.output).toBe(0);
    expect(cmd.output).toContain(`twinbench.user=${s.getUsername()}@%`);
    // Record what the connection really was, for the report.
    console.log(
      `${name}: ${cmd.output
        .split("\n")
        .filter((l) => l.startsWith("twinbench."))
        .join(" ")}`,
    );
    const [count] = await query(s, "SELECT COUNT(*) AS n FROM sbtest1");
    expect(Number(count!.n)).toBe(1000);
  }, 120_000);
});
