/**
 * Parsers for the host command output the storage adapter reads: /proc/mounts, /proc/swaps, /proc/mdstat,
 * `losetup -J -l`, `lsblk -J -b`, `wipefs -n -J`, `findmnt -J -b`, `df -P -B1`. Pure; tolerant of empty output.
 */

export interface MountEntry {
  source: string;
  target: string;
  fsType: string;
  options: string;
}

/** /proc/mounts decodes \040 (space), \011 (tab), \012 (newline), \134 (backslash). */
function unescapeMount(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

export function parseProcMounts(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length < 4) continue;
    out.push({ source: unescapeMount(f[0]), target: unescapeMount(f[1]), fsType: f[2], options: f[3] });
  }
  return out;
}

/** Device paths from /proc/swaps (header line skipped). */
export function parseProcSwaps(text: string): string[] {
  return text
    .split("\n")
    .slice(1)
    .map((l) => l.trim().split(/\s+/)[0])
    .filter((s): s is string => !!s && s.startsWith("/"));
}

export interface MdArray {
  name: string;
  level?: string;
  state: string;
  /** Member kernel names, e.g. "loop0", "sdb1". */
  members: string[];
}

/** /proc/mdstat: `md127 : active raid0 loop1[1] loop0[0]`. */
export function parseMdstat(text: string): MdArray[] {
  const out: MdArray[] = [];
  for (const line of text.split("\n")) {
    const m = /^(md\S*)\s*:\s*(\S+)\s+(.*)$/.exec(line.trim());
    if (!m) continue;
    const words = m[3].split(/\s+/);
    let level: string | undefined;
    if (words[0] && !/\[\d+\]/.test(words[0]) && !words[0].startsWith("(")) level = words.shift();
    const members = words.map((w) => /^([^[\s]+)\[\d+\]/.exec(w)?.[1]).filter((w): w is string => !!w);
    out.push({ name: m[1], state: m[2], ...(level ? { level } : {}), members });
  }
  return out;
}

export interface LoopEntry {
  device: string;
  backingFile: string;
  dio?: boolean;
}

function parseJson(text: string): unknown {
  const t = text.trim();
  if (!t) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined; // not JSON (an old tool, or an error text): the callers treat it as "no answer"
  }
}

/** `losetup -J -l`: back-file may carry a " (deleted)" suffix once the file is gone. */
export function parseLosetupJson(text: string): LoopEntry[] {
  const j = parseJson(text) as { loopdevices?: Array<Record<string, unknown>> } | undefined;
  return (j?.loopdevices ?? []).map((d) => ({
    device: String(d.name ?? ""),
    backingFile: String(d["back-file"] ?? "").replace(/ \(deleted\)$/, ""),
    ...(typeof d.dio === "boolean" ? { dio: d.dio } : d.dio === "1" || d.dio === 1 ? { dio: true } : {}),
  }));
}

export interface LsblkNode {
  name: string;
  path?: string;
  type: string;
  sizeBytes?: number;
  fsType?: string | null;
  mountpoint?: string | null;
  children: LsblkNode[];
}

function toNum(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "string" && /^\d+$/.test(v)) return Number(v);
  return undefined;
}

/** `lsblk -J -b -o NAME,PATH,TYPE,SIZE,FSTYPE,MOUNTPOINT <dev>`: the first node (with holders/partitions as children). */
export function parseLsblkJson(text: string): LsblkNode | undefined {
  const j = parseJson(text) as { blockdevices?: Array<Record<string, unknown>> } | undefined;
  const conv = (d: Record<string, unknown>): LsblkNode => ({
    name: String(d.name ?? ""),
    ...(typeof d.path === "string" ? { path: d.path } : {}),
    type: String(d.type ?? ""),
    ...(toNum(d.size) !== undefined ? { sizeBytes: toNum(d.size) } : {}),
    fsType: (d.fstype as string | null | undefined) ?? null,
    mountpoint:
      (d.mountpoint as string | null | undefined) ??
      (Array.isArray(d.mountpoints) ? ((d.mountpoints as Array<string | null>).find((x) => !!x) ?? null) : null),
    children: Array.isArray(d.children) ? (d.children as Array<Record<string, unknown>>).map(conv) : [],
  });
  const first = j?.blockdevices?.[0];
  return first ? conv(first) : undefined;
}

export interface Signature {
  offset: string;
  type: string;
  label?: string | null;
}

/** `wipefs -n -J <dev>` prints nothing at all when there are no signatures. */
export function parseWipefsJson(text: string): Signature[] {
  const j = parseJson(text) as { signatures?: Array<Record<string, unknown>> } | undefined;
  return (j?.signatures ?? []).map((s) => ({
    offset: String(s.offset ?? ""),
    type: String(s.type ?? ""),
    ...(s.label !== undefined ? { label: s.label as string | null } : {}),
  }));
}

export interface FindmntEntry {
  target: string;
  source: string;
  fsType: string;
  options: string;
  sizeBytes?: number;
  availBytes?: number;
}

/** `findmnt -J -b -o TARGET,SOURCE,FSTYPE,OPTIONS,SIZE,AVAIL ...`: the last (top-most) entry. */
export function parseFindmntJson(text: string): FindmntEntry | undefined {
  const j = parseJson(text) as { filesystems?: Array<Record<string, unknown>> } | undefined;
  const flat: Array<Record<string, unknown>> = [];
  const walk = (xs: Array<Record<string, unknown>>) => {
    for (const x of xs) {
      flat.push(x);
      if (Array.isArray(x.children)) walk(x.children as Array<Record<string, unknown>>);
    }
  };
  walk(j?.filesystems ?? []);
  const f = flat[flat.length - 1];
  if (!f) return undefined;
  return {
    target: String(f.target ?? ""),
    source: String(f.source ?? ""),
    fsType: String(f.fstype ?? ""),
    options: String(f.options ?? ""),
    ...(toNum(f.size) !== undefined ? { sizeBytes: toNum(f.size) } : {}),
    ...(toNum(f.avail) !== undefined ? { availBytes: toNum(f.avail) } : {}),
  };
}

/** The data line of `df -P -B1 <path>`: Filesystem 1-blocks Used Available Capacity Mounted-on. */
export function parseDfLine(text: string): { sizeBytes: number; usedBytes: number; availBytes: number } | undefined {
  for (const line of text.split("\n").map((l) => l.trim())) {
    const f = line.split(/\s+/);
    if (f.length >= 6 && /^\d+$/.test(f[1]) && /^\d+$/.test(f[3])) {
      return { sizeBytes: Number(f[1]), usedBytes: Number(f[2]), availBytes: Number(f[3]) };
    }
  }
  return undefined;
}
