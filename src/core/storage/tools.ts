/**
 * The one table of host tools storage uses and the Debian package that ships each. The storage plan (which tools a
 * plan needs), the preflight, the tool report and `twinbench doctor` (what `--fix` installs) all read it.
 */
export const TOOL_PACKAGES = {
  mount: "mount",
  umount: "mount",
  losetup: "mount",
  findmnt: "util-linux",
  lsblk: "util-linux",
  wipefs: "util-linux",
  mdadm: "mdadm",
  "mkfs.btrfs": "btrfs-progs",
  btrfs: "btrfs-progs",
  "mkfs.xfs": "xfsprogs",
  "mkfs.ext4": "e2fsprogs",
} as const;

export type StorageTool = keyof typeof TOOL_PACKAGES;

export interface ToolPackage {
  tool: StorageTool;
  pkg: (typeof TOOL_PACKAGES)[StorageTool];
}

/** `{ tool, pkg }` for each tool, in the order given. */
export function withPackages(tools: readonly StorageTool[]): ToolPackage[] {
  return tools.map((tool) => ({ tool, pkg: TOOL_PACKAGES[tool] }));
}
