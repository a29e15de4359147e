/**
 * Which Node.js twinbench runs on, and whether an installed package's `engines.node` accepts it. Pure: the Node
 * version, today's date and the packages' package.json fields are passed in.
 *   - nodeLineCheck: doctor's line for the running Node (supported, past its end of life, or untested);
 *   - satisfiesNodeRange: a small reading of npm's `engines.node` ranges (null when the range is not understood);
 *   - testcontainersNodeProblem: the first installed testcontainers package whose engines exclude this Node, which
 *     `twinbench/testcontainers` turns into a clear error before testcontainers is ever loaded.
 */
import { TwinbenchError } from "../base/errors.ts";

/** A Node.js release line twinbench knows: the oldest release it accepts and the line's end of life. */
export interface NodeLine {
  major: number;
  /** The oldest release of the line twinbench accepts (as package.json `engines` says). */
  minimum: string;
  /** The line's end of life (ISO date), from the Node.js release schedule. */
  endOfLife: string;
  /** Whether CI runs the suite on it. */
  tested: boolean;
}

/** The lines package.json `engines` names, oldest first. */
export const NODE_LINES: readonly NodeLine[] = [
  { major: 20, minimum: "20.19.0", endOfLife: "2026-04-30", tested: true },
  { major: 22, minimum: "22.12.0", endOfLife: "2027-04-30", tested: true },
  { major: 24, minimum: "24.0.0", endOfLife: "2028-04-30", tested: true },
  { major: 26, minimum: "26.0.0", endOfLife: "2029-04-30", tested: true },
];

/** The oldest Node that runs every testcontainers release twinbench accepts (12.1 and later declare it). */
export const NEWEST_TESTCONTAINERS_NODE = "22.22.0";
/**
 * The testcontainers line for a Node older than that: 11 (11.14 or newer). Every 12.x from 12.0.2 loads undici 8
 * (node >= 22.19), and the MariaDB and MySQL modules have no release older than that in 12.x.
 */
export const TESTCONTAINERS_FOR_OLD_NODE = "^11.14.0";

type Triple = [number, number, number];

/** "v20.20.2", "20.20.2", "22.22" → [20, 20, 2] / [22, 22, 0]; null when it is not a version. */
export function parseNodeVersion(v: string): Triple | null {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?$/.exec(v.trim());
  if (!m) return null;
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
}

function cmp(a: Triple, b: Triple): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

const shortVersion = (t: Triple): string => t.join(".");

export type NodeLineStatus = "ok" | "warn" | "fail";

export interface NodeLineCheck {
  status: NodeLineStatus;
  detail: string;
  hint?: string;
}

/** "22, 24 or 26". */
const orList = (xs: readonly (string | number)[]): string =>
  xs.length <= 1 ? xs.join("") : `${xs.slice(0, -1).join(", ")} or ${xs[xs.length - 1]}`;

/** doctor's line for the Node that runs twinbench, on `today` (YYYY-MM-DD). */
export function nodeLineCheck(version: string, today: string): NodeLineCheck {
  const v = parseNodeVersion(version);
  if (!v)
    return { status: "warn", detail: `cannot read the Node version "${version}"`, hint: "run twinbench with node" };
  const line = NODE_LINES.find((l) => l.major === v[0]);
  const current = NODE_LINES.filter((l) => l.endOfLife > today).map((l) => l.major);
  const upgrade = `install Node ${orList(current.length ? current : NODE_LINES.map((l) => l.major))} (the npm registry's \`node\` package, or your distribution's)`;
  if (!line) {
    const oldest = NODE_LINES[0]!;
    if (v[0] < oldest.major)
      return {
        status: "fail",
        detail: `Node ${shortVersion(v)} is older than any line twinbench supports (${NODE_LINES.map((l) => l.major).join(", ")})`,
        hint: upgrade,
      };
    return {
      status: "warn",
      detail: `Node ${shortVersion(v)}: not a line twinbench is tested on (${NODE_LINES.map((l) => l.major).join(", ")})`,
      hint: `it may work; the tested lines are ${NODE_LINES.map((l) => l.major).join(", ")}`,
    };
  }
  const min = parseNodeVersion(line.minimum)!;
  if (cmp(v, min) < 0)
    return {
      status: "fail",
      detail: `Node ${shortVersion(v)} is older than ${line.minimum}, the oldest Node ${line.major} twinbench accepts`,
      hint: `update Node ${line.major} to ${line.minimum} or newer, or ${upgrade}`,
    };
  if (line.endOfLife <= today)
    return {
      status: "warn",
      detail: `Node ${shortVersion(v)}: Node ${line.major} reached its end of life on ${line.endOfLife} (no more security fixes); twinbench still runs on it, deprecated`,
      hint:
        `${upgrade}` +
        (line.major < 22
          ? `; on Node ${line.major}, twinbench/testcontainers needs testcontainers 11 (${TESTCONTAINERS_FOR_OLD_NODE})`
          : ""),
    };
  return { status: "ok", detail: `Node ${shortVersion(v)} (supported until ${line.endOfLife})` };
}

/**
 * Whether `version` satisfies an npm `engines` range such as ">= 22.22", ">=20.18.1", "^20.19.0 || >=22.12.0",
 * "18.x" or "*". Returns null for a range this reading does not understand (hyphen ranges, tags): the caller then
 * does not decide on it.
 */
export function satisfiesNodeRange(range: string, version: string): boolean | null {
  const v = parseNodeVersion(version);
  if (!v) return null;
  const alternatives = range.split("||").map((s) => s.trim());
  let understood = true;
  for (const alt of alternatives) {
    const r = satisfiesAll(alt, v);
    if (r === true) return true;
    if (r === null) understood = false;
  }
  return understood ? false : null;
}

/** One space-separated set of comparators (all must hold). */
function satisfiesAll(set: string, v: Triple): boolean | null {
  if (set === "" || set === "*" || set.toLowerCase() === "x") return true;
  if (/\s-\s/.test(set)) return null; // hyphen ranges: not read here
  const tokens = set.replace(/(>=|<=|[<>=^~])\s+/g, "$1").split(/\s+/);
  let ok = true;
  for (const t of tokens) {
    const r = comparator(t, v);
    if (r === null) return null;
    ok &&= r;
  }
  return ok;
}

function comparator(token: string, v: Triple): boolean | null {
  const m = /^(>=|<=|>|<|=|\^|~)?v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?$/.exec(token);
  if (!m) return null;
  const op = m[1] ?? "";
  const parts = [m[2], m[3], m[4]].map((p) => (p === undefined || /^[xX*]$/.test(p) ? null : Number(p)));
  // How many leading components were given (a wildcard ends them).
  let given = 0;
  while (given < 3 && parts[given] !== null) given++;
  const floor: Triple = [parts[0] ?? 0, given > 1 ? parts[1]! : 0, given > 2 ? parts[2]! : 0];
  // The first version past a partial one: 22 → 23.0.0, 22.22 → 22.23.0.
  const next = (n: number): Triple =>
    n <= 0
      ? [Infinity, 0, 0]
      : n === 1
        ? [floor[0] + 1, 0, 0]
        : n === 2
          ? [floor[0], floor[1] + 1, 0]
          : [floor[0], floor[1], floor[2] + 1];
  switch (op) {
    case ">=":
      return cmp(v, floor) >= 0;
    case ">":
      return given === 3 ? cmp(v, floor) > 0 : cmp(v, next(given)) >= 0;
    case "<":
      return cmp(v, floor) < 0;
    case "<=":
      return given === 3 ? cmp(v, floor) <= 0 : cmp(v, next(given)) < 0;
    case "^": {
      // ^20.19.0 → >=20.19.0 <21.0.0; ^0.x keeps the first non-zero component.
      const upper: Triple = floor[0] > 0 || given < 2 ? next(1) : floor[1] > 0 || given < 3 ? next(2) : next(3);
      return cmp(v, floor) >= 0 && cmp(v, upper) < 0;
    }
    case "~":
      return cmp(v, floor) >= 0 && cmp(v, given >= 2 ? next(2) : next(1)) < 0;
    default:
      // "20.19.1" exactly; "20" or "20.x" any 20.
      return given === 3 ? cmp(v, floor) === 0 : cmp(v, floor) >= 0 && cmp(v, next(given)) < 0;
  }
}

/** One installed package, as its package.json says. */
export interface InstalledPackage {
  name: string;
  version: string;
  /** `engines.node`, when the package declares one. */
  nodeRange?: string;
  /** Which package pulled it in ("testcontainers 12.0.4" for its undici), for the message. */
  via?: string;
}

export interface NodeMismatch {
  pkg: InstalledPackage;
  node: string;
}

/**
 * The first of the packages (testcontainers, its modules and the undici it loads) whose `engines.node` excludes
 * this Node, or null when each accepts it (or declares nothing, or a range not understood here: loading it then
 * decides).
 */
export function testcontainersNodeProblem(node: string, packages: readonly InstalledPackage[]): NodeMismatch | null {
  for (const pkg of packages) {
    if (!pkg.nodeRange) continue;
    if (satisfiesNodeRange(pkg.nodeRange, node) === false) return { pkg, node };
  }
  return null;
}

/** The error `twinbench/testcontainers` raises instead of loading a testcontainers this Node cannot run. */
export function testcontainersNodeError(m: NodeMismatch, testcontainersVersion: string | null): TwinbenchError {
  const node = m.node.replace(/^v/, "");
  const what = m.pkg.via
    ? `${m.pkg.name} ${m.pkg.version} (which ${m.pkg.via} loads)`
    : `${m.pkg.name} ${m.pkg.version}`;
  const tc = testcontainersVersion ? `testcontainers ${testcontainersVersion}` : "the installed testcontainers";
  const pin = TESTCONTAINERS_FOR_OLD_NODE;
  const fixes =
    `either install testcontainers 11 (\`npm install testcontainers@${pin} @testcontainers/mariadb@${pin} ` +
    `@testcontainers/mysql@${pin}\`), or run on Node ${NEWEST_TESTCONTAINERS_NODE.replace(/\.0$/, "")} or newer`;
  return new TwinbenchError(
    `${tc} cannot run on Node ${node}: ${what} declares node ${m.pkg.nodeRange}, so loading it would fail; ${fixes}`,
    { code: "TESTCONTAINERS_NODE_TOO_OLD", hint: fixes },
  );
}
