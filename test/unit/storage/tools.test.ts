/** The host tools storage uses and their Debian packages (src/core/storage/tools.ts). */
import { describe, expect, it } from "vitest";
import { TOOL_PACKAGES, withPackages } from "../../../src/core/storage/tools.ts";

describe("withPackages", () => {
  it("pairs each tool with its package, in the order given", () => {
    expect(withPackages(["mdadm", "losetup", "mkfs.btrfs", "wipefs"])).toEqual([
      { tool: "mdadm", pkg: "mdadm" },
      { tool: "losetup", pkg: "mount" },
      { tool: "mkfs.btrfs", pkg: "btrfs-progs" },
      { tool: "wipefs", pkg: "util-linux" },
    ]);
    expect(withPackages([])).toEqual([]);
  });

  it("the table names a Debian package for every tool the storage kinds call", () => {
    for (const tool of ["mount", "umount", "losetup", "findmnt", "lsblk", "wipefs", "mdadm", "mkfs.xfs", "mkfs.ext4"])
      expect(TOOL_PACKAGES).toHaveProperty([tool]);
    expect(new Set(Object.values(TOOL_PACKAGES))).toEqual(
      new Set(["mount", "util-linux", "mdadm", "btrfs-progs", "xfsprogs", "e2fsprogs"]),
    );
  });
});
