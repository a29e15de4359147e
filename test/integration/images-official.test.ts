/**
 * Official mode against a real registry: Debian's docker-registry (distribution 2.x) on 127.0.0.1:<free port>, with
 * its own config and a temp storage dir, started here and stopped afterwards. The debian-mode images global set-up
 * builds are pushed under official-looking names (…/library/mariadb:10.11, …/library/debian:bookworm); then
 * `twinbench images pin` writes their digests into a copy of the lock (and nothing else), official mode pulls them
 * by digest, builds, and runs a tiny scenario from them; a tampered digest is refused, naming both digests.
 * Removes what it tagged, pulled and built; the debian-mode images stay.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execa, type ResultPromise } from "execa";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DockerEngine } from "../../src/adapters/docker/engine.ts";
import {
  detectMode,
  ensureBaseImage,
  ensureImage,
  ensureImages,
  loadLock,
  type EnsuredImage,
} from "../../src/adapters/images/index.ts";
import { readJsonStream } from "../../src/adapters/images/stream.ts";
import { createRunDeps } from "../../src/app/deps.ts";
import { runScenario } from "../../src/app/run.ts";
import { loadScenario, readNeutralConfig } from "../../src/adapters/scenario-file.ts";
import { TwinbenchError } from "../../src/core/base/errors.ts";
import type { CellRecord } from "../../src/core/model/results.ts";
import { docker, ensureLab, leftovers, ROOT, tinyScenario, twinbench } from "./support/lab.ts";

const images = new DockerEngine().images;
const REGISTRY_BIN = "/usr/bin/docker-registry";

let port = 0;
let work = "";
let registry: ResultPromise | undefined;
let registryLog = "";
/** Lock name → the digest the registry reported when we pushed (the truth `images pin` must find). */
const pushed = new Map<string, string>();
/** References this file created in the engine, removed afterwards (untagging only: the debian images stay). */
const created: string[] = [];

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });

async function waitForRegistry(): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/v2/`).then(
      (r) => r.status === 200,
      () => false, // not listening yet: try again until the deadline
    );
    if (ok) return;
    if (registry?.exitCode !== undefined && registry.exitCode !== null)
      throw new Error(`docker-registry exited: ${registryLog}`);
    if (Date.now() > until)
      throw new Error(`docker-registry did not answer on 127.0.0.1:${port} within 30 s: ${registryLog}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Tag a local image as `<repo>:<tag>`, push it, and return the digest the push reported. */
async function push(image: string, repo: string, tag: string): Promise<string> {
  await docker.getImage(image).tag({ repo, tag });
  created.push(`${repo}:${tag}`);
  const stream = (await docker.getImage(`${repo}:${tag}`).push({ authconfig: {} } as object)) as NodeJS.ReadableStream;
  let digest: string | undefined;
  let error: string | undefined;
  await readJsonStream(stream, (ev) => {
    if (ev.error) error = ev.error;
    const aux = (ev as { aux?: { Digest?: string } }).aux;
    if (aux?.Digest) digest = aux.Digest;
  });
  if (error || !digest) throw new Error(`push of ${repo}:${tag} failed: ${error ?? "no digest reported"}`);
  return digest;
}

/** Drop every reference to `repo` (tags and digests) from the engine, so the next use must pull. */
async function forget(repo: string): Promise<void> {
  for (const img of await docker.listImages({ digests: true })) {
    for (const r of [...(img.RepoTags ?? []), ...(img.RepoDigests ?? [])]) {
      if (!r.startsWith(`${repo}:`) && !r.startsWith(`${repo}@`)) continue;
      await docker
        .getImage(r)
        .remove({ noprune: true })
        .catch((e: { statusCode?: number }) => {
          if (e.statusCode !== 404) throw e; // 404: untagging the repo's tag dropped its digest reference too
        });
    }
  }
}

const officialRef = (name: string) =>
  ({
    "mariadb-10.11": `127.0.0.1:${port}/library/mariadb:10.11`,
    "sysbench-1.0": `127.0.0.1:${port}/library/debian:bookworm`,
    "mysql-9.7": `127.0.0.1:${port}/library/mysql:9.7`,
  })[name]!;

/** A copy of images/ whose lock names the local registry for three images (mysql's tag is never pushed). */
async function copyImagesDir(dir: string): Promise<string> {
  await cp(join(ROOT, "images"), dir, { recursive: true });
  const file = join(dir, "lock.yaml");
  let text = await readFile(file, "utf8");
  for (const [from, name] of [
    ["mariadb:10.11", "mariadb-10.11"],
    ["debian:bookworm", "sysbench-1.0"],
    ["mysql:9.7", "mysql-9.7"],
  ] as const) {
    expect(text).toContain(`ref: ${from}\n`);
    text = text.replace(`ref: ${from}\n`, `ref: ${officialRef(name)}\n`);
  }
  await writeFile(file, text);
  return file;
}

beforeAll(async () => {
  await ensureLab();
  if (!(await import("node:fs")).existsSync(REGISTRY_BIN))
    throw new Error(
      `${REGISTRY_BIN} missing: global set-up installs docker-registry (apt-get install docker-registry)`,
    );
  port = await freePort();
  work = await mkdtemp(join(tmpdir(), "tb-it-registry-"));
  const config = join(work, "registry.yml");
  await writeFile(
    config,
    [
      "version: 0.1",
      "log: { level: warn }",
      `storage: { filesystem: { rootdirectory: ${join(work, "storage")} }, delete: { enabled: true } }`,
      `http: { addr: "127.0.0.1:${port}" }`,
      "",
    ].join("\n"),
  );
  registry = execa(REGISTRY_BIN, ["serve", config], { reject: false, all: true, buffer: false, stdin: "ignore" });
  registry.all?.on("data", (d: Buffer) => {
    registryLog = (registryLog + d.toString()).slice(-4000);
  });
  await waitForRegistry();

  const lock = await loadLock();
  // The load image's official base is Debian's own image, a debootstrap minbase rootfs: our bookworm base image, as
  // "debian:bookworm". The server: the debian-mode MariaDB 10.11 image (built on that base, so the push sends only
  // its own layer) as "mariadb:10.11".
  const bookworm = await ensureBaseImage(images, "bookworm", lock.mirrors);
  const [mariadb] = await ensureImages(images, ["mariadb-10.11"], { lock, mode: "debian" });
  for (const [name, source] of [
    ["sysbench-1.0", bookworm.tag],
    ["mariadb-10.11", mariadb!.tag],
  ] as const) {
    const ref = officialRef(name);
    const [repo, tag] = [ref.slice(0, ref.lastIndexOf(":")), ref.slice(ref.lastIndexOf(":") + 1)];
    const t0 = Date.now();
    pushed.set(name, await push(source, repo, tag));
    console.log(`pushed ${source} as ${ref} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await forget(repo);
  }
}, 600_000);

afterAll(async () => {
  for (const r of created.reverse()) {
    await docker
      .getImage(r)
      .remove({ noprune: false })
      .catch(() => undefined); // already gone (untagged with its repo, or never made because a step failed)
  }
  for (const repo of [`127.0.0.1:${port}/library/mariadb`, `127.0.0.1:${port}/library/debian`]) {
    await forget(repo).catch(() => undefined); // nothing left to untag: fine
  }
  registry?.kill("SIGTERM");
  await registry;
  if (work) await rm(work, { recursive: true, force: true });
});

describe("official mode against a local registry", () => {
  let lockFile = "";
  let before = "";

  it(
    "images pin writes the pushed digests into the lock, changes nothing else, and shows the diff",
    { timeout: 60_000 },
    async () => {
      lockFile = await copyImagesDir(join(work, "images"));
      before = await readFile(lockFile, "utf8");
      const r = await twinbench(["images", "pin", "mariadb-10.11", "sysbench-1.0", "--lock", lockFile]);
      expect(r.exitCode, r.all).toBe(0);
      const after = await readFile(lockFile, "utf8");
      const [b, a] = [before.split("\n"), after.split("\n")];
      expect(a.length).toBe(b.length);
      const changed = b.flatMap((l, i) => (l === a[i] ? [] : [{ before: l, after: a[i]! }]));
      expect(changed).toEqual([
        { before: "      digest: PLACEHOLDER", after: `      digest: ${pushed.get("mariadb-10.11")}` },
        { before: "      digest: PLACEHOLDER", after: `      digest: ${pushed.get("sysbench-1.0")}` },
      ]);
      expect(r.stdout).toContain(`+      digest: ${pushed.get("mariadb-10.11")}`);
      expect(r.stdout).toContain(`+      digest: ${pushed.get("sysbench-1.0")}`);
      expect(r.stdout).toContain("-      digest: PLACEHOLDER");
      expect(r.stdout).toContain(`wrote 2 digests to ${lockFile}`);
      const lock = await loadLock(lockFile);
      expect(lock.images["mariadb-10.11"]!.official.digest).toBe(pushed.get("mariadb-10.11"));
      expect(lock.images["mysql-9.7"]!.official.digest).toBe("PLACEHOLDER");

      // doctor: the two pinned images are not enough for official mode; it names the ones still PLACEHOLDER.
      const doc = await twinbench(["doctor", "--json", "--lock", lockFile]);
      const line = (JSON.parse(doc.stdout) as { checks: { id: string; status: string; detail: string }[] }).checks.find(
        (c) => c.id === "image-mode",
      );
      expect(line?.detail, doc.all).toContain(
        `${lockFile} serves debian only: official.digest is PLACEHOLDER for mariadb-11.8, mysql-9.7`,
      );

      const again = await twinbench(["images", "pin", "mariadb-10.11", "--lock", lockFile]);
      expect(again.exitCode, again.all).toBe(0);
      expect(again.stdout).toContain("every digest is current");
      expect(await readFile(lockFile, "utf8")).toBe(after);
    },
  );

  it(
    "a tag the registry does not have: pin fails with IMAGE_REGISTRY and leaves the file alone",
    { timeout: 60_000 },
    async () => {
      const text = await readFile(lockFile, "utf8");
      const r = await twinbench(["images", "pin", "mysql-9.7", "--lock", lockFile]);
      expect(r.exitCode, r.all).toBe(1);
      expect(r.all).toContain(officialRef("mysql-9.7"));
      expect(r.all).toContain("IMAGE_REGISTRY");
      expect(await readFile(lockFile, "utf8")).toBe(text);
    },
  );

  let official: EnsuredImage | undefined;
  it(
    "official mode pulls the pinned digest, builds from it and runs a tiny scenario",
    { timeout: 300_000 },
    async () => {
      const lock = await loadLock(lockFile);
      // auto mode: real digests and a registry that answers → official.
      expect(await detectMode(images, lock, ["mariadb-10.11"])).toMatchObject({
        mode: "official",
        reason: expect.stringContaining("the registry answered"),
      });
      const progress: string[] = [];
      official = await ensureImage(images, "mariadb-10.11", {
        lock,
        mode: "official",
        onProgress: (ev) => progress.push(`${ev.step}: ${ev.line}`),
      });
      created.push(official.tag);
      const pinned = `127.0.0.1:${port}/library/mariadb@${pushed.get("mariadb-10.11")}`;
      expect(progress).toContain(`pull: pull ${pinned}`);
      expect(official).toMatchObject({ mode: "official", cacheHit: false });
      expect(official.labels).toMatchObject({
        "twinbench.mode": "official",
        "twinbench.package-version": `${officialRef("mariadb-10.11")}@${pushed.get("mariadb-10.11")}`,
      });
      const base = await docker.getImage(pinned).inspect();
      expect(base.RepoDigests).toContain(pinned);

      // An A/A pair: both servers from the official-mode image (a scenario needs two).
      const servers = [
        { id: "a", image: "mariadb-10.11" },
        { id: "b", image: "mariadb-10.11" },
      ];
      const { file, dir } = await tinyScenario(
        { servers },
        { tests: ["oltp_point_select"], threads: [1], duration: "2s" },
      );
      const { scenario } = await loadScenario(file, { lockImages: Object.keys(lock.images) });
      const deps = await createRunDeps({ lockFile, imageMode: "official" });
      const outDir = join(dir, "out");
      const summary = await runScenario(deps, { scenario, neutralCnf: await readNeutralConfig(scenario), outDir });
      expect(summary.status).toBe("ok");
      const manifest = JSON.parse(await readFile(join(outDir, "run.json"), "utf8")) as {
        runId: string;
        servers: { image?: { tag?: string; name?: string }; version?: string }[];
      };
      const cells = (await readFile(join(outDir, "cells.jsonl"), "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as CellRecord);
      const measured = cells.filter((c) => c.phase === "measure");
      expect(measured.length).toBeGreaterThan(0);
      for (const c of measured) expect(c.status).toBe("ok");
      for (const sv of manifest.servers) expect(sv.version).toMatch(/^10\.11\.19/);
      expect(JSON.stringify(manifest)).toContain(official.tag);
      const sysbench = await ensureImage(images, "sysbench-1.0", { lock, mode: "official" });
      expect(sysbench).toMatchObject({ mode: "official", cacheHit: true });
      created.push(sysbench.tag);
      expect(await leftovers(manifest.runId)).toEqual({ containers: [], networks: [], volumes: [] });
    },
  );

  it("a tampered digest is refused, naming the pinned digest and the registry's", { timeout: 60_000 }, async () => {
    const good = pushed.get("mariadb-10.11")!;
    const bad = `sha256:${good.slice(7, 8) === "0" ? "1" : "0"}${good.slice(8)}`;
    const tampered = join(work, "images", "tampered.yaml");
    await writeFile(tampered, (await readFile(lockFile, "utf8")).replace(`digest: ${good}`, `digest: ${bad}`));
    const lock = await loadLock(tampered);
    expect(lock.images["mariadb-10.11"]!.official.digest).toBe(bad);
    const err = await ensureImage(images, "mariadb-10.11", { lock, mode: "official" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TwinbenchError);
    const t = err as TwinbenchError;
    expect(t.code, t.message).toBe("IMAGE_DIGEST_MISMATCH");
    expect(t.message).toContain(bad);
    expect(t.message).toContain(good);
    expect(t.hint).toContain("twinbench images pin mariadb-10.11");
    expect(
      await docker
        .getImage(`127.0.0.1:${port}/library/mariadb@${bad}`)
        .inspect()
        .then(
          () => true,
          () => false,
        ),
    ).toBe(false);
  });
});
