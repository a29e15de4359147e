/**
 * Which Node twinbench runs on: doctor's Node line (supported, past its end of life, too old), the reading of npm
 * `engines.node` ranges, and the check `twinbench/testcontainers` makes before loading testcontainers (on Node 20
 * with testcontainers 12 it must stop with a clear error naming both versions and both fixes), down to the
 * package.json files of a made-up install.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  NODE_LINES,
  nodeLineCheck,
  satisfiesNodeRange,
  testcontainersNodeError,
  testcontainersNodeProblem,
  type InstalledPackage,
} from "../../../src/core/hosts/node-support.ts";
import { installedTestcontainers } from "../../../src/adapters/installed-packages.ts";
import pkg from "../../../package.json" with { type: "json" };

describe("nodeLineCheck", () => {
  it("warns that Node 20 reached its end of life, with a hint naming the current lines and testcontainers 11", () => {
    const c = nodeLineCheck("v20.20.2", "2026-12-06");
    expect(c.status).toBe("warn");
    expect(c.detail).toContain("Node 20.20.2");
    expect(c.detail).toContain("end of life on 2026-04-30");
    expect(c.hint).toContain("install Node 22, 24 or 26");
    expect(c.hint).toContain("testcontainers 11");
  });
  it("says ok for 20 before its end of life, and for 22, 24 and 26", () => {
    expect(nodeLineCheck("20.19.0", "2026-04-29").status).toBe("ok");
    for (const v of ["22.22.0", "24.11.1", "26.10.0"]) {
      const c = nodeLineCheck(v, "2026-12-06");
      expect(c.status, v).toBe("ok");
      expect(c.hint, v).toBeUndefined();
    }
  });
  it("fails a release older than the line's minimum, and a line older than 20", () => {
    const old = nodeLineCheck("20.11.1", "2026-01-01");
    expect(old.status).toBe("fail");
    expect(old.detail).toContain("older than 20.19.0");
    expect(nodeLineCheck("18.20.0", "2026-01-01")).toMatchObject({ status: "fail" });
  });
  it("warns on a line it is not tested on (odd or newer)", () => {
    expect(nodeLineCheck("25.2.0", "2026-12-06")).toMatchObject({ status: "warn" });
    expect(nodeLineCheck("28.0.0", "2026-12-06").detail).toContain("not a line twinbench is tested on");
  });
  it("names exactly the lines package.json engines accepts", () => {
    const range = pkg.engines.node;
    for (const l of NODE_LINES) {
      expect(satisfiesNodeRange(range, l.minimum), `${range} vs ${l.minimum}`).toBe(true);
      const [a, b] = l.minimum.split(".").map(Number);
      if (b! > 0) expect(satisfiesNodeRange(range, `${a}.${b! - 1}.0`), `${range} below ${l.minimum}`).toBe(false);
    }
    expect(satisfiesNodeRange(range, "18.20.0")).toBe(false);
    expect(satisfiesNodeRange(range, "21.7.0")).toBe(false);
  });
});

describe("satisfiesNodeRange", () => {
  it.each([
    [">= 22.22", "22.22.0", true],
    [">= 22.22", "22.21.9", false],
    [">= 22.22", "20.20.2", false],
    [">=22.19.0", "24.0.0", true],
    [">=20.18.1", "20.20.2", true],
    [">18", "18.99.0", false],
    [">18", "19.0.0", true],
    ["<=20", "20.99.0", true],
    ["<=20", "21.0.0", false],
    ["^20.19.0 || ^22.12.0 || >=24", "26.10.0", true],
    ["^20.19.0 || ^22.12.0 || >=24", "21.0.0", false],
    ["^0.10.2", "0.11.0", false],
    ["~22.1", "22.1.9", true],
    ["~22.1", "22.2.0", false],
    ["20.x", "20.20.2", true],
    ["20.x", "22.0.0", false],
    ["22.22.0", "22.22.0", true],
    ["*", "20.0.0", true],
    [">=20 <22", "22.0.0", false],
    [">=20 <22", "21.5.0", true],
  ])("%s with %s → %s", (range, v, want) => {
    expect(satisfiesNodeRange(range, v)).toBe(want);
  });
  it("does not decide on a range it does not read", () => {
    expect(satisfiesNodeRange("20 - 22", "21.0.0")).toBeNull();
    expect(satisfiesNodeRange("lts", "22.0.0")).toBeNull();
    expect(satisfiesNodeRange(">=20", "not a version")).toBeNull();
  });
});

const tc12: InstalledPackage[] = [
  { name: "testcontainers", version: "12.2.0", nodeRange: ">= 22.22" },
  { name: "@testcontainers/mariadb", version: "12.1.0" },
  { name: "undici", version: "8.10.2", nodeRange: ">=22.19.0", via: "testcontainers 12.2.0" },
];

describe("testcontainersNodeProblem", () => {
  it("stops testcontainers 12.2 on Node 20, naming both versions and both fixes", () => {
    const m = testcontainersNodeProblem("20.20.2", tc12);
    expect(m?.pkg.name).toBe("testcontainers");
    const e = testcontainersNodeError(m!, "12.2.0");
    expect(e.code).toBe("TESTCONTAINERS_NODE_TOO_OLD");
    expect(e.message).toContain("testcontainers 12.2.0 cannot run on Node 20.20.2");
    expect(e.message).toContain("declares node >= 22.22");
    expect(e.message).toContain("npm install testcontainers@^11.14.0 @testcontainers/mariadb@^11.14.0");
    expect(e.message).toContain("Node 22.22 or newer");
    expect(e.hint).toContain("testcontainers 11");
  });
  it("names undici when testcontainers itself declares nothing (12.0.4 loads undici 8)", () => {
    const m = testcontainersNodeProblem("20.20.2", [
      { name: "testcontainers", version: "12.0.4" },
      { name: "undici", version: "8.5.0", nodeRange: ">=22.19.0", via: "testcontainers 12.0.4" },
    ]);
    expect(m?.pkg.name).toBe("undici");
    expect(testcontainersNodeError(m!, "12.0.4").message).toContain(
      "undici 8.5.0 (which testcontainers 12.0.4 loads) declares node >=22.19.0",
    );
  });
  it("lets testcontainers 12.2 load on Node 22.22, 24 and 26, and testcontainers 11 on Node 20", () => {
    for (const v of ["22.22.0", "24.11.1", "26.10.0"]) expect(testcontainersNodeProblem(v, tc12), v).toBeNull();
    expect(
      testcontainersNodeProblem("20.20.2", [
        { name: "testcontainers", version: "11.14.0" },
        { name: "undici", version: "7.30.2", nodeRange: ">=20.18.1" },
      ]),
    ).toBeNull();
  });
  it("stops 12.2 on Node 22.21 too (older than what it declares)", () => {
    expect(testcontainersNodeProblem("22.21.0", tc12)?.pkg.name).toBe("testcontainers");
  });
});

describe("installedTestcontainers", () => {
  const put = (dir: string, json: object) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify(json));
  };
  it("reads testcontainers, its modules and the undici each testcontainers copy loads, as Node would find them", () => {
    const root = mkdtempSync(join(tmpdir(), "tb-installed-"));
    const nm = join(root, "node_modules");
    put(join(nm, "testcontainers"), { name: "testcontainers", version: "12.2.0", engines: { node: ">= 22.22" } });
    put(join(nm, "undici"), { name: "undici", version: "8.10.2", engines: { node: ">=22.19.0" } });
    put(join(nm, "@testcontainers", "mariadb"), { name: "@testcontainers/mariadb", version: "12.1.0" });
    // A module that brought its own testcontainers and undici, nested under it.
    const mysql = join(nm, "@testcontainers", "mysql");
    put(mysql, { name: "@testcontainers/mysql", version: "11.14.0" });
    put(join(mysql, "node_modules", "testcontainers"), { name: "testcontainers", version: "11.14.0" });
    put(join(mysql, "node_modules", "testcontainers", "node_modules", "undici"), {
      name: "undici",
      version: "7.30.2",
      engines: { node: ">=20.18.1" },
    });
    const from = join(nm, "twinbench", "dist", "adapters");
    mkdirSync(from, { recursive: true });
    const found = installedTestcontainers(from);
    expect(found.testcontainers?.version).toBe("12.2.0");
    expect(found.packages.map((p) => `${p.name}@${p.version}${p.via ? ` via ${p.via}` : ""}`)).toEqual([
      "testcontainers@12.2.0",
      "@testcontainers/mariadb@12.1.0",
      "@testcontainers/mysql@11.14.0",
      "testcontainers@11.14.0 via @testcontainers/mysql 11.14.0",
      "undici@8.10.2 via testcontainers 12.2.0",
      "undici@7.30.2 via testcontainers 11.14.0",
    ]);
    expect(testcontainersNodeProblem("20.20.2", found.packages)?.pkg.version).toBe("12.2.0");
  });
  it("finds nothing where nothing is installed", () => {
    const root = mkdtempSync(join(tmpdir(), "tb-installed-"));
    expect(installedTestcontainers(root)).toEqual({ testcontainers: null, packages: [] });
  });
  it("accepts this repository's own install (testcontainers 11) on the Node running the tests", () => {
    const found = installedTestcontainers();
    expect(found.testcontainers?.version).toMatch(/^1[12]\./);
    expect(testcontainersNodeProblem(process.versions.node, found.packages)).toBeNull();
  });
});
