/** The volumes part of the engine port: named volumes that outlive containers. Types only. */

export interface VolumeInfo {
  name: string;
  /** Where the engine keeps the volume on its host (visible here only when the engine is local). */
  mountpoint?: string;
  labels: Record<string, string>;
}

export interface VolumeListing {
  name: string;
  labels: Record<string, string>;
}

/** Named volumes. Removing is idempotent: a volume that is gone is no error. */
export interface VolumePort {
  /**
   * Create a volume of the engine's local driver; resolves to its name. `driverOptions` are that driver's options
   * (e.g. type=tmpfs, device=tmpfs, o=size=…: a volume in memory); none: a directory on the engine's disk.
   */
  create(name: string, labels: Record<string, string>, driverOptions?: Record<string, string>): Promise<string>;
  /** Remove it, even when a stopped container still refers to it. */
  remove(name: string): Promise<void>;
  /** The volume, or undefined when the engine has none such. */
  inspect(name: string): Promise<VolumeInfo | undefined>;
  /** Volumes whose labels match every filter (`key` or `key=value`). */
  list(labelFilters: string[]): Promise<VolumeListing[]>;
}
