/**
 * Every error twinbench raises on purpose carries a stable `code`, a message that names the offending value,
 * and a `hint` that says what to do next. `UserError`s are things the user can fix (exit 1, or 2 for bad input);
 * anything else that escapes is a bug.
 */
export type ExitCode = 0 | 1 | 2 | 130;

/**
 * Every error code twinbench raises: stable strings that scripts and tests may match on. Add a code here when you
 * add an error; recognise errors by their code (never by their message text).
 */
export type ErrorCode =
  | "ADAPTIVE_HOSTS"
  | "APT_FAILED"
  | "BASE_DEBOOTSTRAP_FAILED"
  | "BASE_IMPORT_FAILED"
  | "BASE_NO_DEBOOTSTRAP"
  | "BENCH_AA"
  | "BENCH_ARGS"
  | "BENCH_HOST_SYSBENCH"
  | "BENCH_MANUAL"
  | "BENCH_RUN_PARTIAL"
  | "BENCH_SERVER"
  | "BENCH_SOCKET"
  | "BENCH_SYSBENCH_FAILED"
  | "CALIBRATION_FAILED"
  | "CALIBRATION_FILE_CORRUPT"
  | "CALIBRATION_OPTION_INVALID"
  | "CALIBRATION_NONE"
  | "CANCELLED"
  | "CELL_FAILED"
  | "CLEAN_EMPTY_ID"
  | "CLI_OPTION_INVALID"
  | "COMMAND_FAILED"
  | "COMPARE_EMPTY"
  | "COMPARE_HOST"
  | "COMPARE_MISMATCH"
  | "COMPARE_NO_COMMON_SERVER"
  | "COMPARE_SERVER"
  | "CONFIG_BAD_LINE"
  | "CONFIG_BAD_VALUE"
  | "CONFIG_BAD_VERSION"
  | "CONFIG_BASE_MISSING"
  | "CONFIG_INCLUDE_UNSUPPORTED"
  | "CONFIG_MISMATCH"
  | "CONFIG_NO_SECTION"
  | "CONFIG_UNKNOWN_SERVER"
  | "DEVICE_HAS_DATA"
  | "DEVICE_IN_USE"
  | "DISK_FULL"
  | "DOCTOR_CANNOT_FIX"
  | "ENGINE"
  | "ENGINE_API_TOO_OLD"
  | "ENGINE_START_FAILED"
  | "ENGINE_START_TIMEOUT"
  | "ENGINE_STREAM"
  | "ENGINE_UNREACHABLE"
  | "FILE_EXISTS"
  | "HOSTS_DIFFER"
  | "HOSTS_FILE_CORRUPT"
  | "HISTORY_NOT_FOUND"
  | "HOSTS_NONE"
  | "HOSTS_RESUME"
  | "HOSTS_TOO_FEW"
  | "HOST_DUPLICATE"
  | "HOST_FLAG_INVALID"
  | "HOST_INSECURE"
  | "HOST_KEY_REJECTED"
  | "HOST_LOST"
  | "HOST_TLS_MISSING"
  | "HOST_TOOL_FAILED"
  | "HOST_UNKNOWN"
  | "HOST_UNREACHABLE"
  | "HOST_URL_INVALID"
  | "IMAGE_BUILD_FAILED"
  | "IMAGE_CONTEXT_MISSING"
  | "IMAGE_DIGEST_INVALID"
  | "IMAGE_DIGEST_MISMATCH"
  | "IMAGE_DIGEST_PLACEHOLDER"
  | "IMAGE_DISK_FULL"
  | "IMAGE_FAMILY_MISMATCH"
  | "IMAGE_IN_USE"
  | "IMAGE_MODE_INVALID"
  | "IMAGE_NO_BASE"
  | "IMAGE_PACKAGE_NOT_FOUND"
  | "IMAGE_PARITY"
  | "IMAGE_PULL_FAILED"
  | "IMAGE_REGISTRY"
  | "IMAGE_SEND_FAILED"
  | "IMAGE_TEMPLATE"
  | "IMAGE_TRANSFER_INVALID"
  | "IMAGE_UNKNOWN"
  | "IMPORT_CMD_INVALID"
  | "IMPORT_CMD_SHELL_OPERATOR"
  | "LOAD_CONNECT_FAILED"
  | "LOCK_INVALID"
  | "LOCK_NOT_FOUND"
  | "LOCK_NO_IMAGE"
  | "MIRROR_NONE"
  | "NO_SNAPSHOT"
  | "NO_SUCH_SERVER"
  | "PARSE_FILE_UNREADABLE"
  | "PARSE_THREADS"
  | "PLAN_CPU_MISSING"
  | "PLAN_MEMORY_EXCEEDED"
  | "PREPARE_FAILED"
  | "RAID_BACKING_EXISTS"
  | "RAID_CHUNK_BTRFS"
  | "RAID_CHUNK_INVALID"
  | "RAID_DEVICE_DUPLICATE"
  | "RAID_FS_NEEDS_MD"
  | "RAID_LOSETUP_FAILED"
  | "RAID_MDADM_FAILED"
  | "RAID_MEMBER_TOO_SMALL"
  | "RAID_MKFS_FAILED"
  | "RAID_MOUNTPOINT_BUSY"
  | "RAID_MOUNT_FAILED"
  | "RAID_WIPE_FAILED"
  | "RATIO_ABOVE_BOUND"
  | "RATIO_BELOW_BOUND"
  | "RATIO_CELL_MISSING"
  | "RATIO_NO_INTERVAL"
  | "RATIO_NO_TABLE"
  | "REGRESSION"
  | "REPORT_FORMAT"
  | "REPORT_METRIC"
  | "REPORT_NUMBER"
  | "REPORT_SERVER"
  | "RESULTS_CORRUPT"
  | "RESULTS_EXISTS"
  | "RESULTS_INVALID"
  | "RESULTS_LOCKED"
  | "RESULTS_NOT_FOUND"
  | "RESULTS_UNREADABLE"
  | "RESUME_MISMATCH"
  | "RESUME_OPTIONS"
  | "DEADLINE_EXCEEDED"
  | "DESIGN_OPTIONS"
  | "RETRIES_INVALID"
  | "RUN_ID_INVALID"
  | "SCENARIO_INVALID"
  | "SCRIPT_LOAD_FAILED"
  | "SCENARIO_NOT_FOUND"
  | "SERVER_DATA_DIR_FULL"
  | "SERVER_EXITED"
  | "SERVER_HUNG"
  | "SERVER_NOT_FOUND"
  | "SERVER_NOT_READY"
  | "SERVER_NO_IP"
  | "SERVER_START_FAILED"
  | "SNAPSHOT_FAILED"
  | "SQL_FAILED"
  | "STORAGE_BAD_SIZE"
  | "STORAGE_BIND_EXISTS"
  | "STORAGE_BIND_MISSING"
  | "STORAGE_BIND_RELATIVE"
  | "STORAGE_CLEAN_FAILED"
  | "STORAGE_LOOP_DIR_RELATIVE"
  | "STORAGE_PREREQUISITES"
  | "STORAGE_PROBE_FAILED"
  | "STORAGE_RAID_MEMBERS"
  | "STORAGE_STATE_CORRUPT"
  | "STORAGE_STATE_OWNED"
  | "STORAGE_TEARDOWN_FAILED"
  | "STORAGE_TMPFS_TOO_SMALL"
  | "STORAGE_VOLUME_EXISTS"
  | "SYSBENCH_PARSE"
  | "SYSBENCH_UNSUPPORTED"
  | "TESTCONTAINERS_NODE_TOO_OLD"
  | "TWINS_NEED_TWO";

/** The parts of a {@link TwinbenchError} besides its message. */
export interface ErrorDetails {
  code: ErrorCode;
  hint?: string;
  /** Extra lines shown under the message (e.g. a server's log tail). */
  details?: string[];
  cause?: unknown;
}

/** An error twinbench raises on purpose: a stable `code`, a message naming the value, a `hint`, optional `details` lines, and the CLI's `exitCode` for it. */
export class TwinbenchError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly details: string[];
  /** Exit code the CLI uses for this error. */
  readonly exitCode: ExitCode = 1;

  constructor(message: string, opts: ErrorDetails) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = opts.code;
    this.hint = opts.hint;
    this.details = opts.details ?? [];
  }
}

/** Invalid input or usage: a scenario that fails validation, an unknown flag value. Exit code 2. */
export class InputError extends TwinbenchError {
  override readonly exitCode: ExitCode = 2;
  /** One line per problem, already prefixed with file and dot path. */
  readonly problems: string[];
  constructor(message: string, opts: ErrorDetails & { problems?: string[] }) {
    super(message, opts);
    this.problems = opts.problems ?? [];
  }
}

/** The run was cancelled by the user (Ctrl-C, q, SIGTERM). Exit code 130. */
export class CancelledError extends TwinbenchError {
  override readonly exitCode: ExitCode = 130;
  constructor(message = "cancelled by the user") {
    super(message, { code: "CANCELLED" });
  }
}

/** Whether `e` is a {@link TwinbenchError} (or a subclass). */
export function isTwinbenchError(e: unknown): e is TwinbenchError {
  return e instanceof TwinbenchError;
}

/** Format an error for a terminal: message, details, hint. */
export function formatError(e: unknown): string {
  if (e instanceof InputError) {
    const lines = [
      `error [${e.code}]: ${e.message}`,
      ...e.problems.map((p) => `  ${p}`),
      ...e.details.map((d) => `  ${d}`),
    ];
    if (e.hint) lines.push(`hint: ${e.hint}`);
    return lines.join("\n");
  }
  if (e instanceof TwinbenchError) {
    const lines = [`error [${e.code}]: ${e.message}`, ...e.details.map((d) => `  ${d}`)];
    if (e.hint) lines.push(`hint: ${e.hint}`);
    return lines.join("\n");
  }
  const err = e instanceof Error ? e : new Error(String(e));
  return `internal error (a twinbench bug, please report it): ${err.stack ?? err.message}`;
}
