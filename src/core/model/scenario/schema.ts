/**
 * The scenario file format (YAML, validated with zod). Keys named in the issues are fixed; add keys, never rename.
 * This module only declares shapes and parses the small value languages (durations, sizes). Cross-field rules and
 * error formatting live in validate.ts.
 */
import { z } from "zod";
import { CustomScriptSchema } from "./custom.ts";

/** "10s", "5m", "1h", "300" (seconds) or a number of seconds → seconds. */
export function parseDuration(v: string | number): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) && v >= 0 ? v : undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(v);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = (m[2] ?? "s").toLowerCase();
  return unit === "ms" ? n / 1000 : unit === "s" ? n : unit === "m" ? n * 60 : n * 3600;
}

/** "2g", "512M", "4GiB", "1024" (bytes) → bytes. Binary units, as MySQL and Docker read them. */
export function parseSize(v: string | number): number | undefined {
  if (typeof v === "number") return Number.isInteger(v) && v >= 0 ? v : undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt])?(?:i?b)?\s*$/i.exec(v);
  if (!m) return undefined;
  const mult = { k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 }[(m[2] ?? "").toLowerCase() as "k"] ?? 1;
  return Math.round(Number(m[1]) * mult);
}

/** "3%", "3" or 3 → 3 (percent). */
export function parsePercent(v: string | number): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*%?\s*$/.exec(v);
  return m ? Number(m[1]) : undefined;
}

const percent = z
  .union([z.string(), z.number()])
  .refine((v) => parsePercent(v) !== undefined, { message: 'expected a percentage like "3%" or a number' });

const duration = z.union([z.string(), z.number()]).refine((v) => parseDuration(v) !== undefined, {
  message: 'expected a duration like "10s", "5m" or a number of seconds',
});
const size = z
  .union([z.string(), z.number()])
  .refine((v) => parseSize(v) !== undefined, { message: 'expected a size like "2g", "512m" or a number of bytes' });
const id = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,30}$/, { message: "expected an id of lowercase letters, digits, - or _ (max 31)" });
const optionValue = z.union([z.string(), z.number(), z.boolean()]);
const cpuset = z.string().regex(/^\d+(-\d+)?(,\d+(-\d+)?)*$/, { message: 'expected a cpuset like "1" or "0-1,3"' });

export const StorageSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("tmpfs"), size: size.default("2g") }),
  z.strictObject({ kind: z.literal("volume"), keep: z.boolean().default(false) }),
  z.strictObject({ kind: z.literal("bind"), path: z.string().min(1) }),
  z.strictObject({
    kind: z.literal("raid0"),
    devices: z.array(z.string().startsWith("/dev/")).min(2).optional(),
    loop: z
      .strictObject({ members: z.number().int().min(2).max(8), size: size, dir: z.string().optional() })
      .optional(),
    fs: z.enum(["xfs", "ext4", "btrfs"]).optional(),
    chunk: size.optional(),
  }),
]);

export const ServerSchema = z.strictObject({
  id,
  image: z.string().min(1),
  /** Per-server overrides: flagged in every report as deliberate asymmetries. */
  config: z.strictObject({ set: z.record(z.string(), optionValue).default({}) }).optional(),
  storage: StorageSchema.optional(),
});

export const HostSchema = z.strictObject({
  id,
  engine: z.string().regex(/^(unix|tcp|ssh|npipe):\/\//, { message: "expected unix://, tcp:// or ssh:// engine URL" }),
  tls: z.strictObject({ ca: z.string(), cert: z.string(), key: z.string() }).optional(),
  /** ssh:// only: the host key's fingerprint (`SHA256:...`, as `ssh-keygen -lf` prints it), checked instead of
   *  ~/.ssh/known_hosts. */
  fingerprint: z
    .string()
    .regex(/^SHA256:[A-Za-z0-9+/]{43}=?$/, {
      message: 'expected a fingerprint like "SHA256:" and 43 base64 characters',
    })
    .optional(),
  /** tcp:// without TLS to a machine other than this one: plain HTTP carries the root password in clear, so it must
   *  be asked for; every report then says so. */
  insecure: z.boolean().optional(),
});

/**
 * Upper bounds of the workload's numbers: past these a run cannot work (sysbench's id column is a signed INT, a
 * timer longer than 2^31 ms fires at once) or is almost surely a typo (thousands of tables or threads).
 */
export const WORKLOAD_LIMITS = {
  tables: 1024,
  /** sysbench's id column is INT: at most 2^31 - 1 rows per table. */
  tableSize: 2 ** 31 - 1,
  threads: 4096,
  events: 1e12,
} as const;

export const WorkloadSchema = z.strictObject({
  engine: z.enum(["innodb", "myisam"]).default("innodb"),
  tables: z.number().int().positive().max(WORKLOAD_LIMITS.tables).default(4),
  tableSize: z.number().int().positive().max(WORKLOAD_LIMITS.tableSize).default(10000),
  tests: z.array(z.string().min(1)).min(1),
  /** The user's own Lua scripts, by test name (custom.ts): a test entry `{ script, writes }` is lifted here.
   *  Optional without a default so that older runs keep their fingerprint. */
  scripts: z.record(z.string(), CustomScriptSchema).optional(),
  threads: z.array(z.number().int().positive().max(WORKLOAD_LIMITS.threads)).min(1),
  duration: duration.optional(),
  events: z.number().int().positive().max(WORKLOAD_LIMITS.events).optional(),
  warmup: duration.default("0s"),
  /** A fixed count, or adaptive: at least min, at most max, until the interval is within ± precision. */
  repeats: z
    .union([
      z.number().int().positive(),
      z.strictObject({ min: z.number().int().positive(), max: z.number().int().positive(), precision: percent }),
    ])
    .default(1),
  /** Fresh server instances per run (restarts from the post-prepare snapshot), spread over the rounds. */
  instances: z.number().int().positive().optional(),
  /** Wall-time budget of an adaptive run. */
  budget: duration.optional(),
  fresh: z.enum(["per-server", "per-test"]).default("per-server"),
  prewarm: z.boolean().default(true),
  /** Run a pair (both servers' cells of one test, threads and repeat) once more when outside work disturbed either cell. */
  rerunDisturbed: z.boolean().default(true),
  /** Before such a re-run, wait at most this long for the machine to go quiet (absent: {@link DEFAULT_QUIET_WAIT_SECONDS};
   *  0s: run again at once). Optional without a default so that older runs keep their fingerprint. */
  quietWait: duration.optional(),
  percentile: z.number().int().min(1).max(100).default(95),
  /** Extra sysbench options, checked against sysbench 1.0.20's. */
  sysbench: z.record(z.string(), optionValue).default({}),
  /** Wait for InnoDB purge and dirty pages to settle after prepare and before each write-test cell (noise lever;
   *  absent: false). Optional without a default so that older runs keep their fingerprint. */
  quiesce: z.boolean().optional(),
  /** Run each measured cell this much longer and leave its first seconds out of the figures (noise lever; absent: 0s). */
  trim: duration.optional(),
});

export const ScenarioSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().default(""),
  servers: z.array(ServerSchema).min(1),
  compare: z
    .union([
      z.strictObject({ numerator: z.string(), denominator: z.string() }),
      /** A version ladder: every other server (in `servers` order) against this one, in one run (pairs.ts). */
      z.strictObject({ base: z.string() }),
      z.literal("hosts"),
      z.literal("runs"),
    ])
    .optional(),
  config: z
    .strictObject({
      base: z.string().default("lab/my.cnf"),
      profile: z.enum(["neutral", "durable"]).default("neutral"),
      set: z.record(z.string(), optionValue).default({}),
    })
    .prefault({}),
  storage: StorageSchema.prefault({ kind: "tmpfs" }),
  load: z.strictObject({ transport: z.enum(["socket", "loopback", "bridge"]).default("socket") }).prefault({}),
  resources: z
    .strictObject({
      server: z.strictObject({ cpuset: cpuset.optional(), memory: size.optional() }).prefault({}),
      load: z
        .strictObject({
          cpuset: cpuset.optional(),
          memory: size.optional(),
          /**
           * A CPU quota for the load container, in cores (docker --cpus, e.g. 0.5): the load gets at most this much
           * CPU time. Its bottleneck share is measured against min(cpuset cores, cpus).
           */
          cpus: z.number().min(0.01).max(1024).optional(),
        })
        .prefault({}),
      /** Freeze (docker pause) the idle server while another one is measured (noise lever; absent: true). */
      pauseIdle: z.boolean().optional(),
      /** Move dockerd, containerd, its shims and twinbench to the load CPUs while cells run (noise lever; local
       *  engine; absent: false). */
      confineDaemons: z.boolean().optional(),
    })
    .prefault({}),
  workload: WorkloadSchema,
  order: z.enum(["interleaved", "grouped", "randomized"]).default("interleaved"),
  /** Seed of `order: randomized` (default: derived from the scenario name). */
  orderSeed: z.number().int().min(0).max(4294967295).optional(),
  report: z.strictObject({ margin: percent.optional() }).optional(),
  hosts: z.array(HostSchema).min(1).optional(),
  shard: z.boolean().default(false),
  imageMode: z.enum(["auto", "debian", "official"]).default("auto"),
});

/** A data-dir storage spec: tmpfs, volume, bind or raid0. */
export type Storage = z.infer<typeof StorageSchema>;
/** One server of a scenario: id, lock image and per-server overrides. */
export type ServerSpec = z.infer<typeof ServerSchema>;
export type HostSpec = z.infer<typeof HostSchema>;
/** A scenario's sysbench workload: tests, threads, duration, repeats, data set. */
export type Workload = z.infer<typeof WorkloadSchema>;
export type AdaptiveRepeats = Exclude<Workload["repeats"], number>;

/** The run's equivalence margin in percent: the scenario's `report.margin`, else the default (5%). */
export function reportMarginPct(s: { report?: { margin?: string | number } }): number {
  const m = s.report?.margin === undefined ? undefined : parsePercent(s.report.margin);
  return m !== undefined && m > 0 && m < 100 ? m : DEFAULT_MARGIN_PCT;
}

/** The adaptive repeats object, or undefined for a fixed count. */
export function adaptiveRepeats(w: Pick<Workload, "repeats">): AdaptiveRepeats | undefined {
  return typeof w.repeats === "number" ? undefined : w.repeats;
}

/** The number of repeats a plan lays out: the fixed count, or an adaptive run's minimum. */
export function plannedRepeats(w: Pick<Workload, "repeats">): number {
  return typeof w.repeats === "number" ? w.repeats : w.repeats.min;
}

/**
 * Server instances per run: workload.instances, else 1 for a fixed count. An adaptive run defaults to its minimum:
 * a fresh instance every round, so that every pair is its own replication unit (the stages of estimateRun need
 * units to stop on).
 */
export function plannedInstances(w: Pick<Workload, "repeats" | "instances">): number {
  return w.instances ?? (typeof w.repeats === "number" ? 1 : w.repeats.min);
}
/** Seconds left out at the start of each measured cell (workload.trim; 0 when absent). */
/** How long a re-run of a disturbed pair waits, at most, for the machine to go quiet (workload.quietWait). */
export const DEFAULT_QUIET_WAIT_SECONDS = 30;
/** The longest quietWait a scenario may set: a wait is for a burst of outside work to end, not for a day. */
export const MAX_QUIET_WAIT_SECONDS = 600;

/** workload.quietWait in seconds (absent: {@link DEFAULT_QUIET_WAIT_SECONDS}). */
export function quietWaitSeconds(w: Pick<Workload, "quietWait">): number {
  return w.quietWait === undefined ? DEFAULT_QUIET_WAIT_SECONDS : (parseDuration(w.quietWait) ?? 0);
}

export function trimSeconds(w: Pick<Workload, "trim">): number {
  return w.trim === undefined ? 0 : (parseDuration(w.trim) ?? 0);
}

/** A validated scenario (defaults filled in): servers, config, storage, load, resources, workload. */
export type Scenario = z.infer<typeof ScenarioSchema>;
/** How the load sidecar reaches a server: socket, loopback or bridge. */
export type Transport = Scenario["load"]["transport"];

export const DEFAULT_MARGIN_PCT = 5;
