import { describe, expect, it } from "vitest";
import { compareVersions } from "../../../src/core/config/version.ts";
import { missingPackages } from "../../../src/core/hosts/doctor-fix.ts";
import { osFamily, type OsFacts } from "../../../src/core/hosts/doctor.ts";
import { DEBIAN, UBUNTU, FEDORA, noEngine, host } from "../../support/doctor-host.ts";

describe("helpers", () => {
  it.each([
    ["1.41", "1.41", 0],
    ["1.40", "1.41", -1],
    ["1.9", "1.41", -1],
    ["1.50", "1.41", 1],
    ["2.0", "1.41", 1],
  ] as const)("compareVersions(%s, %s) = %d", (a, b, r) => expect(compareVersions(a, b)).toBe(r));

  it.each<[OsFacts, string]>([
    [DEBIAN, "debian"],
    [UBUNTU, "ubuntu"],
    [{ id: "linuxmint", idLike: ["ubuntu", "debian"], prettyName: "" }, "ubuntu"],
    [{ id: "raspbian", idLike: ["debian"], prettyName: "" }, "debian"],
    [FEDORA, "other"],
  ])("osFamily(%o) = %s", (os, fam) => expect(osFamily(os)).toBe(fam));

  it("missingPackages never lists docker.io next to a running engine", () => {
    expect(missingPackages(host({}, { dockerd: false }))).toEqual([]);
    expect(missingPackages(host({ engine: noEngine }, { dockerd: false }))).toEqual(["docker.io"]);
  });
});
