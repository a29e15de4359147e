/**
 * The Debian mirror image builds use comes from the host's apt sources: deb822 `.sources` files and one-line
 * `sources.list` / `*.list` files, read in apt's order, other archives skipped; the lock may override it. The host
 * here is made up (mirror.example.test): a build on a host whose sources name another mirror uses that mirror.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  chooseMirrors,
  describeMirrors,
  hostMirrors,
  parseDeb822Sources,
  parseOneLineSources,
} from "../../../src/core/images/mirror.ts";
import { mirrorBuildArgs } from "../../../src/core/images/context.ts";
import { debootstrapArgs, baseImageSpec } from "../../../src/core/images/base.ts";
import { readAptSources, readHostMirrors } from "../../../src/adapters/images/apt-sources.ts";
import { loadLock } from "../../../src/adapters/images/files.ts";

const DEB822 = `# the host's Debian archive
Types: deb deb-src
URIs: http://mirror.example.test/debian/
Suites: bookworm bookworm-updates
Components: main contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://security.example.test/debian-security
Suites: bookworm-security
Components: main
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 -----END PGP PUBLIC KEY BLOCK-----

Types: deb
Enabled: no
URIs: http://disabled.example.test/debian
Suites: trixie
Components: main
`;

const ONE_LINE = `# one-line format
deb-src http://src.example.test/debian bookworm main
deb [arch=amd64 signed-by=/usr/share/keyrings/vendor.gpg] https://vendor.example.test/apt nodistro main
deb [ trusted=yes ] http://mirror.example.test/debian bookworm main contrib   # a comment
deb http://mirror.example.test/debian-security bookworm-security main
deb file:/srv/offline bookworm main
`;

describe("parsing apt sources", () => {
  it("deb822: every deb stanza with its URIs, suites and the line it starts on; disabled and deb-src-only skipped", () => {
    expect(parseDeb822Sources(DEB822, "/etc/apt/sources.list.d/debian.sources")).toEqual([
      {
        uri: "http://mirror.example.test/debian/",
        suites: ["bookworm", "bookworm-updates"],
        components: ["main", "contrib"],
        from: "/etc/apt/sources.list.d/debian.sources:2",
      },
      {
        uri: "http://security.example.test/debian-security",
        suites: ["bookworm-security"],
        components: ["main"],
        from: "/etc/apt/sources.list.d/debian.sources:8",
      },
    ]);
  });

  it("one-line: deb lines with or without [options], comments and deb-src skipped", () => {
    const s = parseOneLineSources(ONE_LINE, "/etc/apt/sources.list");
    expect(s.map((x) => [x.uri, x.suites.join(","), x.from])).toEqual([
      ["https://vendor.example.test/apt", "nodistro", "/etc/apt/sources.list:3"],
      ["http://mirror.example.test/debian", "bookworm", "/etc/apt/sources.list:4"],
      ["http://mirror.example.test/debian-security", "bookworm-security", "/etc/apt/sources.list:5"],
      ["file:/srv/offline", "bookworm", "/etc/apt/sources.list:6"],
    ]);
    expect(s[1]!.components).toEqual(["main", "contrib"]);
  });
});

describe("hostMirrors", () => {
  it("takes the first Debian source and the first Debian security source (deb822)", () => {
    const m = hostMirrors(parseDeb822Sources(DEB822, "/etc/apt/sources.list.d/debian.sources"));
    expect(m).toEqual({
      debian: { uri: "http://mirror.example.test/debian", from: "/etc/apt/sources.list.d/debian.sources:2" },
      security: {
        uri: "http://security.example.test/debian-security",
        from: "/etc/apt/sources.list.d/debian.sources:8",
      },
    });
  });

  it("skips vendors' archives (suite nodistro) and file: URIs a container cannot reach (one-line)", () => {
    const m = hostMirrors(parseOneLineSources(ONE_LINE, "/etc/apt/sources.list"));
    expect(m.debian).toEqual({ uri: "http://mirror.example.test/debian", from: "/etc/apt/sources.list:4" });
    expect(m.security?.uri).toBe("http://mirror.example.test/debian-security");
  });

  it("skips Ubuntu's archive: its suites are not Debian's", () => {
    const m = hostMirrors(
      parseOneLineSources("deb http://archive.example.test/ubuntu noble main\n", "/etc/apt/sources.list"),
    );
    expect(m).toEqual({ debian: null, security: null });
  });

  it("reads the old security suite name (bullseye/updates style) as security", () => {
    const m = hostMirrors(
      parseOneLineSources("deb http://sec.example.test/debian-security buster/updates main\n", "f"),
    );
    expect(m.security?.uri).toBe("http://sec.example.test/debian-security");
    expect(m.debian).toBeNull();
  });
});

describe("chooseMirrors and what doctor and plan print", () => {
  const host = hostMirrors(parseDeb822Sources(DEB822, "/etc/apt/sources.list.d/debian.sources"));
  it("the lock's own mirror wins, each field on its own", () => {
    const m = chooseMirrors({ security: "http://snapshot.example.test/debian-security" }, "images/lock.yaml", host);
    expect(m.debian).toEqual(host.debian);
    expect(m.security).toEqual({
      uri: "http://snapshot.example.test/debian-security",
      from: "images/lock.yaml mirrors.security",
    });
    expect(describeMirrors(m)).toBe(
      "http://mirror.example.test/debian (from /etc/apt/sources.list.d/debian.sources:2); security: http://snapshot.example.test/debian-security (from images/lock.yaml mirrors.security)",
    );
  });
  it("says when nothing names a mirror", () => {
    expect(describeMirrors(chooseMirrors(undefined, "l", { debian: null, security: null }))).toBe(
      "no Debian mirror; security: no security mirror",
    );
  });
});

describe("a host's apt configuration folder, read from disk", () => {
  function aptDir(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), "tb-apt-"));
    mkdirSync(join(dir, "sources.list.d"));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  }

  it("reads sources.list first, then sources.list.d/ by name, only .list and .sources files", async () => {
    const dir = aptDir({
      "sources.list": "# nothing here\n",
      "sources.list.d/10-vendor.list": "deb https://vendor.example.test/apt nodistro main\n",
      "sources.list.d/debian.sources": DEB822,
      "sources.list.d/00-old.list.disabled": "deb http://old.example.test/debian bookworm main\n",
      "sources.list.d/zz.sources.bak": "Types: deb\nURIs: http://bak.example.test/debian\nSuites: sid\n",
    });
    const sources = await readAptSources(dir);
    expect(sources.map((s) => s.from.replace(dir, "APT"))).toEqual([
      "APT/sources.list.d/10-vendor.list:1",
      "APT/sources.list.d/debian.sources:2",
      "APT/sources.list.d/debian.sources:8",
    ]);
    const m = await readHostMirrors(dir);
    expect(m.debian?.uri).toBe("http://mirror.example.test/debian");
  });

  it("a folder with neither file names no mirror (and is not an error)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-apt-"));
    expect(await readHostMirrors(dir)).toEqual({ debian: null, security: null });
  });

  it("the image builds of a host whose sources name mirror.example.test fetch from it", async () => {
    const dir = aptDir({ "sources.list": ONE_LINE });
    const lock = await loadLock(undefined, dir);
    expect(lock.mirrors.debian).toEqual({
      uri: "http://mirror.example.test/debian",
      from: `${join(dir, "sources.list")}:4`,
    });
    // What the build passes to the engine, and what debootstrap is started with.
    expect(mirrorBuildArgs(lock.images["mariadb-10.11"]!, lock.mirrors, lock.file)).toEqual({
      TWINBENCH_DEBIAN_MIRROR: "http://mirror.example.test/debian",
      TWINBENCH_SECURITY_MIRROR: "http://mirror.example.test/debian-security",
    });
    expect(debootstrapArgs(baseImageSpec("sid"), "/tmp/r", lock.mirrors.debian!.uri)[3]).toBe(
      "http://mirror.example.test/debian",
    );
  });
});
