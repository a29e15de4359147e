/** The parsers of host tool output storage reads (src/core/storage/parse.ts): /proc files and the tools' JSON. */
import { describe, expect, it } from "vitest";
import {
  parseDfLine,
  parseFindmntJson,
  parseLosetupJson,
  parseMdstat,
  parseProcMounts,
} from "../../../src/core/storage/parse.ts";

describe("parsers", () => {
  it("/proc/mounts with escapes", () => {
    expect(parseProcMounts("/dev/loop0 /var/lib/a\\040b btrfs rw,relatime 0 0\n")).toEqual([
      { source: "/dev/loop0", target: "/var/lib/a b", fsType: "btrfs", options: "rw,relatime" },
    ]);
  });
  it("losetup -J -l, deleted backing file", () => {
    const j = JSON.stringify({ loopdevices: [{ name: "/dev/loop0", "back-file": "/x/a.img (deleted)", dio: true }] });
    expect(parseLosetupJson(j)).toEqual([{ device: "/dev/loop0", backingFile: "/x/a.img", dio: true }]);
    expect(parseLosetupJson("")).toEqual([]);
  });
  it("/proc/mdstat", () => {
    expect(
      parseMdstat(
        "Personalities : [raid0]\nmd127 : active raid0 sdc[1] sdb[0]\n      1 blocks\nmd1 : inactive sdd[0](S)\n",
      ),
    ).toEqual([
      { name: "md127", state: "active", level: "raid0", members: ["sdc", "sdb"] },
      { name: "md1", state: "inactive", members: ["sdd"] },
    ]);
  });
  it("findmnt -J -b", () => {
    const j =
      '{"filesystems":[{"target":"/m","source":"/dev/loop0","fstype":"btrfs","options":"rw,relatime","size":536870912,"avail":450887680}]}';
    expect(parseFindmntJson(j)).toEqual({
      target: "/m",
      source: "/dev/loop0",
      fsType: "btrfs",
      options: "rw,relatime",
      sizeBytes: 536870912,
      availBytes: 450887680,
    });
  });
  it("df -P -B1", () => {
    expect(
      parseDfLine(
        "Filesystem 1-blocks Used Available Capacity Mounted on\ntmpfs 67108864 4096 67104768 1% /tb-probe\n",
      ),
    ).toEqual({ sizeBytes: 67108864, usedBytes: 4096, availBytes: 67104768 });
  });
});
