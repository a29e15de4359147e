/** The default time costs of a run's steps, which the planner's time model starts from until runs measure them. */
/**
 * Per-phase costs (seconds) the estimate uses; measured values replace the defaults. The costs that move data (the
 * prewarm reads the tables, a snapshot and a restore copy the data dir) grow with the rows each server holds
 * (tables × tableSize): a fixed part plus a part per million rows.
 */
export interface SetupCosts {
  /** Per image (each server image plus the sysbench image): look up, verify the pin. */
  imageCheckSeconds: number;
  /** Per server: create, start, readiness, user and database. */
  serverStartSeconds: number;
  /** sysbench prepare speed: rows × tables / this, per server. */
  prepareRowsPerSecond: number;
  /** Per server whose storage is raid0: create the members, assemble, mkfs, mount. */
  raidSetupSeconds: number;
  /** Per server, when workload.prewarm; plus {@link prewarmSecondsPerMillionRows}. */
  prewarmSeconds: number;
  prewarmSecondsPerMillionRows: number;
  /** Per server, after prepare, when fresh: per-test and a test writes; plus {@link snapshotSecondsPerMillionRows}. */
  snapshotSeconds: number;
  snapshotSecondsPerMillionRows: number;
  /** Per restore of a server's data dir (restore and start); plus {@link restoreSecondsPerMillionRows}. */
  restoreSeconds: number;
  restoreSecondsPerMillionRows: number;
  /**
   * Per server and new server instance: restore from the post-prepare snapshot, restart, readiness, prewarm
   * (measured: 10.2 and 10.7 s per instance of 2 servers in two adaptive runs of quick.yaml); plus
   * {@link instanceRestartSecondsPerMillionRows}.
   */
  instanceRestartSeconds: number;
  instanceRestartSecondsPerMillionRows: number;
  /** Per server. */
  teardownSeconds: number;
  /** Per sysbench invocation (measured cell or warm-up): container start, thread init, final report. */
  cellOverheadSeconds: number;
  /** Rough rate used for cells bounded by `events` (the estimate is then approximate). */
  eventsPerSecond: number;
}

/**
 * The per-million-rows parts and the prepare speed were measured on this project's VM (AMD EPYC 2 vCPU, btrfs RAID 0
 * over 2 loop devices, one 2 M-row table per server, MariaDB 11.8 and MySQL 9.7; docs/bench.md): prepare 14.0 and
 * 15.6 s (128–143 k rows/s, where 20 k had been assumed); prewarm after prepare 7.7 and 22.3 s; snapshot 5.8 and
 * 9.6 s; a new instance 11.3 and 22.2 s per server (33.5 s and 32.2 s for both), where the model had 6 s each. The
 * design had forecast 29m 35s for a run that took about 33 minutes.
 */
export const DEFAULT_SETUP_COSTS: Readonly<SetupCosts> = {
  imageCheckSeconds: 2,
  serverStartSeconds: 15,
  prepareRowsPerSecond: 130000,
  raidSetupSeconds: 10,
  prewarmSeconds: 2,
  prewarmSecondsPerMillionRows: 6.5,
  snapshotSeconds: 5,
  snapshotSecondsPerMillionRows: 1.4,
  restoreSeconds: 5,
  restoreSecondsPerMillionRows: 1,
  instanceRestartSeconds: 6,
  instanceRestartSecondsPerMillionRows: 5.25,
  teardownSeconds: 5,
  cellOverheadSeconds: 1,
  eventsPerSecond: 500,
};
