/**
 * Image parity across hosts (pure): every pinned image must be the same on every host before two hosts' numbers
 * are compared or merged. Same tag (the content hash of its build context), same content-hash and
 * package-version labels, and the same installed package versions (`dpkg-query -W` in the image). Image ids may
 * differ when each host built its own copy (build time is a label); that is reported, not refused.
 */
import { InputError } from "../base/errors.ts";
import { LABEL } from "../images/context.ts";

export interface HostImageFacts {
  host: string;
  /** Lock name, e.g. "mariadb-11.8". */
  name: string;
  /** twinbench/<name>:<hash12> */
  tag: string;
  id: string;
  labels: Record<string, string>;
  /** package → version from dpkg-query in the image; undefined when the image has no dpkg. */
  packages?: Record<string, string>;
}

export interface ParityProblem {
  image: string;
  field: string;
  /** host → value */
  values: Record<string, string | null>;
}

/** `dpkg-query -W -f '${Package}=${Version}\n'` output → package → version. */
export function parseDpkgList(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = /^([a-z0-9][a-z0-9+.:-]*)=(\S+)\s*$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

export function dpkgQueryCommand(): string[] {
  return ["dpkg-query", "-W", "-f=${Package}=${Version}\\n"];
}

/** The differences that forbid comparing, per image; empty when every host has the same images. */
export function imageParity(list: readonly HostImageFacts[]): ParityProblem[] {
  const out: ParityProblem[] = [];
  const names = [...new Set(list.map((i) => i.name))];
  const hosts = [...new Set(list.map((i) => i.host))];
  for (const name of names) {
    const per = new Map(list.filter((i) => i.name === name).map((i) => [i.host, i]));
    const missing = hosts.filter((h) => !per.has(h));
    if (missing.length) {
      out.push({
        image: name,
        field: "present",
        values: Object.fromEntries(hosts.map((h) => [h, per.has(h) ? "yes" : "no"])),
      });
      continue;
    }
    const check = (field: string, get: (i: HostImageFacts) => string | undefined) => {
      const values = Object.fromEntries(hosts.map((h) => [h, get(per.get(h)!) ?? null]));
      if (new Set(Object.values(values)).size > 1) out.push({ image: name, field, values });
    };
    check("tag (content hash)", (i) => i.tag);
    check("content-hash label", (i) => i.labels[LABEL.contentHash]);
    check("package-version label", (i) => i.labels[LABEL.packageVersion]);
    // Installed packages: compare each package any host lists.
    const withPkgs = hosts.filter((h) => per.get(h)!.packages !== undefined);
    if (withPkgs.length > 0 && withPkgs.length < hosts.length) {
      out.push({
        image: name,
        field: "package list",
        values: Object.fromEntries(hosts.map((h) => [h, per.get(h)!.packages ? "read" : "unreadable"])),
      });
    } else if (withPkgs.length > 1) {
      const pkgNames = [...new Set(withPkgs.flatMap((h) => Object.keys(per.get(h)!.packages!)))].sort();
      for (const p of pkgNames) {
        const values = Object.fromEntries(withPkgs.map((h) => [h, per.get(h)!.packages![p] ?? null]));
        if (new Set(Object.values(values)).size > 1) out.push({ image: name, field: `package ${p}`, values });
      }
    }
  }
  return out;
}

/** Image ids that differ across hosts (informational: each host built its own copy). */
export function imageIdNotes(list: readonly HostImageFacts[]): string[] {
  const out: string[] = [];
  for (const name of [...new Set(list.map((i) => i.name))]) {
    const ids = list.filter((i) => i.name === name);
    if (new Set(ids.map((i) => i.id)).size > 1)
      out.push(
        `${name}: built separately on each host (ids ${ids.map((i) => `${i.host}=${i.id.slice(7, 19)}`).join(", ")})`,
      );
  }
  return out;
}

export function formatParityProblem(p: ParityProblem): string {
  return `${p.image} ${p.field}: ${Object.entries(p.values)
    .map(([h, v]) => `${h}=${v ?? "(none)"}`)
    .join(", ")}`;
}

export function parityError(problems: readonly ParityProblem[]): InputError {
  return new InputError(
    `the pinned images differ between hosts (${[...new Set(problems.map((p) => p.image))].join(", ")}): refusing to compare`,
    {
      code: "IMAGE_PARITY",
      problems: problems.map(formatParityProblem),
      hint: "send one build to every host (--image-transfer send), or make every host build from the same lock and mirror",
    },
  );
}
