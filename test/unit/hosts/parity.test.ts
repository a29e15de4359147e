/** Image parity across hosts (src/core/hosts/parity.ts). */
import { describe, expect, it } from "vitest";
import {
  imageIdNotes,
  imageParity,
  parityError,
  parseDpkgList,
  type HostImageFacts,
} from "../../../src/core/hosts/parity.ts";

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
