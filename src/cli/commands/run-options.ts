/** The flags of `twinbench run`, shared by the one-host and the several-hosts paths. */
export interface RunCliOptions {
  out?: string;
  resume?: string;
  set: string[];
  tui: boolean;
  jsonEvents?: boolean;
  failFast?: boolean;
  strict?: boolean;
  wipeDevices?: boolean;
  imageMode?: string;
  readyTimeout?: string;
  /** Several hosts (src/cli/commands/run-hosts.ts). */
  host?: string[];
  imageTransfer?: string;
  force?: boolean;
}
