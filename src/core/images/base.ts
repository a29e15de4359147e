/**
 * Debian-built mode's base images: one `debootstrap --variant=minbase` rootfs per suite, imported into Docker as
 * twinbench/base:<suite>-<hash12>. Pure: names, arguments and labels; the adapter runs debootstrap.
 */
import { canonicalJson, sha256 } from "./lock.ts";
import { LABEL } from "./context.ts";

export const BASE_REPO = "twinbench/base";
/** Bump when the way base images are made changes, to force new ones. */
const BASE_RECIPE = 1;

export interface BaseImageSpec {
  suite: string;
  /** twinbench/base:<suite>-<hash12> */
  tag: string;
  repo: string;
  tagSuffix: string;
  hash: string;
}

/** The base image of a suite. Its hash leaves the mirror out: any mirror's `suite` gives the same minbase system. */
export function baseImageSpec(suite: string): BaseImageSpec {
  const hash = sha256(canonicalJson({ recipe: BASE_RECIPE, variant: "minbase", suite }));
  const tagSuffix = `${suite}-${hash.slice(0, 12)}`;
  return { suite, hash, tagSuffix, repo: BASE_REPO, tag: `${BASE_REPO}:${tagSuffix}` };
}

/** Arguments for `debootstrap` (no shell involved), fetching from `mirror` (see mirror.ts: mirrorFor). */
export function debootstrapArgs(spec: BaseImageSpec, dir: string, mirror: string): string[] {
  return ["--variant=minbase", spec.suite, dir, mirror];
}

/** `changes` for the image import: labels and a default command. */
export function baseImageChanges(spec: BaseImageSpec, buildTime: string): string[] {
  const labels: Record<string, string> = {
    [LABEL.image]: "base",
    [LABEL.family]: "base",
    [LABEL.suite]: spec.suite,
    [LABEL.mode]: "debian",
    [LABEL.contentHash]: spec.hash,
    [LABEL.buildTime]: buildTime,
  };
  return [
    `LABEL ${Object.entries(labels)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(" ")}`,
    "ENV LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    'CMD ["bash"]',
  ];
}
