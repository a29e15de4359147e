/**
 * Pinning the official images: image references (split into repository and tag), and writing resolved digests into
 * the lock's text. Pure: the adapter resolves the digests through the engine and reads and writes the file.
 *
 * The edit splices each `official.digest` scalar in place (located with the `yaml` Document API), so comments,
 * quoting, flow sequences and every other byte of the file stay as they were.
 */
import { isScalar, parseDocument } from "yaml";
import { TwinbenchError } from "../base/errors.ts";
import { parseLock } from "./lock.ts";

/** An image reference split at its tag: `127.0.0.1:5000/library/mariadb:11.8` → repo `127.0.0.1:5000/library/mariadb`, tag `11.8`. */
export interface ImageRefParts {
  repo: string;
  tag: string;
}

/** Split `[host[:port]/]path:tag`; the tag is after the last ':' that follows the last '/'. */
export function splitImageRef(ref: string): ImageRefParts {
  const slash = ref.lastIndexOf("/");
  const colon = ref.lastIndexOf(":");
  if (colon <= slash || colon === ref.length - 1 || ref.includes("@")) {
    throw new TwinbenchError(`image reference "${ref}" has no tag`, {
      code: "LOCK_INVALID",
      hint: 'official.ref must name a tag, e.g. "mariadb:11.8" or "127.0.0.1:5000/library/mariadb:11.8"',
    });
  }
  return { repo: ref.slice(0, colon), tag: ref.slice(colon + 1) };
}

/** The by-digest reference an official image is pulled as: `<repo>@sha256:…` (the tag dropped). */
export function digestRef(ref: string, digest: string): string {
  return `${splitImageRef(ref).repo}@${digest}`;
}

/** One `official.digest` the pin changed. */
export interface DigestEdit {
  name: string;
  ref: string;
  /** 1-based line of the digest in the lock file. */
  line: number;
  before: string;
  after: string;
  /** The whole line before and after the edit. */
  lineBefore: string;
  lineAfter: string;
}

export interface PinEdit {
  /** The lock's new text: the old one with only the changed digests replaced. */
  text: string;
  edits: DigestEdit[];
  /** Images whose digest already was the resolved one. */
  unchanged: string[];
}

/**
 * Write `digests` (lock image name → "sha256:…") into the lock text `raw`. Every other byte stays. The result is
 * parsed again as a lock, so an edit can never leave an invalid file.
 */
export function setOfficialDigests(raw: string, file: string, digests: Readonly<Record<string, string>>): PinEdit {
  const lock = parseLock(raw, file);
  const doc = parseDocument(raw);
  const splices: { start: number; end: number; edit: DigestEdit }[] = [];
  const unchanged: string[] = [];
  for (const [name, digest] of Object.entries(digests)) {
    const entry = lock.images[name];
    if (!entry)
      throw new TwinbenchError(`unknown image "${name}"`, {
        code: "IMAGE_UNKNOWN",
        hint: `known images in ${file}: ${Object.keys(lock.images).join(", ")}`,
      });
    if (!/^sha256:[0-9a-f]{64}$/.test(digest)) {
      throw new TwinbenchError(`image "${name}": "${digest}" is not a sha256 digest`, {
        code: "IMAGE_DIGEST_INVALID",
        hint: "the registry answered something unexpected; check it answers for the ref",
      });
    }
    if (entry.official.digest === digest) {
      unchanged.push(name);
      continue;
    }
    const node = doc.getIn(["images", name, "official", "digest"], true);
    if (!isScalar(node) || !node.range) {
      throw new TwinbenchError(`${file}: images.${name}.official.digest is not a plain value`, {
        code: "LOCK_INVALID",
        hint: `write it as \`digest: PLACEHOLDER\` in ${file}`,
      });
    }
    const [start, end] = node.range;
    const lineStart = raw.lastIndexOf("\n", start - 1) + 1;
    const nl = raw.indexOf("\n", end);
    const lineEnd = nl < 0 ? raw.length : nl;
    const lineBefore = raw.slice(lineStart, lineEnd);
    const lineAfter = raw.slice(lineStart, start) + digest + raw.slice(end, lineEnd);
    const line = raw.slice(0, start).split("\n").length;
    splices.push({
      start,
      end,
      edit: {
        name,
        ref: entry.official.ref,
        line,
        before: entry.official.digest,
        after: digest,
        lineBefore,
        lineAfter,
      },
    });
  }
  let text = raw;
  for (const s of [...splices].sort((a, b) => b.start - a.start))
    text = text.slice(0, s.start) + s.edit.after + text.slice(s.end);
  const check = parseLock(text, file);
  for (const s of splices) {
    if (check.images[s.edit.name]?.official.digest !== s.edit.after) {
      throw new TwinbenchError(`${file}: writing the digest of ${s.edit.name} did not take`, {
        code: "LOCK_INVALID",
        hint: `edit images.${s.edit.name}.official.digest by hand`,
      });
    }
  }
  return { text, edits: splices.map((s) => s.edit).sort((a, b) => a.line - b.line), unchanged };
}

/**
 * The edits as a unified diff. Written here rather than with a diff library: every edit replaces one known line in
 * place, so the hunks are known exactly and need no diff algorithm.
 */
export function formatPinDiff(file: string, edits: readonly DigestEdit[]): string[] {
  if (edits.length === 0) return [];
  const out = [`--- ${file}`, `+++ ${file}`];
  for (const e of edits)
    out.push(`@@ -${e.line} +${e.line} @@ ${e.name} (${e.ref})`, `-${e.lineBefore}`, `+${e.lineAfter}`);
  return out;
}
