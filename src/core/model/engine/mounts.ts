/**
 * Storage mounts as the lab describes them: where a container sees a volume, a host directory or a memory file
 * system. Part of the engine port (./engine.ts); each engine adapter translates them into its own shape.
 */

/** A named volume of the engine at `target`. */
export interface VolumeMount {
  kind: "volume";
  /** The volume's name. */
  source: string;
  target: string;
  /**
   * A new volume starts empty: the engine does not copy the image's files at `target` into it. The server's data
   * volumes say so, so that every storage kind starts with an empty data directory.
   */
  startEmpty?: boolean;
}

/** A directory of the engine's host at `target`. */
export interface BindMount {
  kind: "bind";
  /** An absolute path on the engine's host. */
  source: string;
  target: string;
}

/** A memory file system private to the container at `target`. */
export interface TmpfsMount {
  kind: "tmpfs";
  target: string;
  /** Its size limit; none: the engine's default. */
  sizeBytes?: number;
  /** The permission bits of its root, e.g. 0o750. */
  mode?: number;
}

export type StorageMount = VolumeMount | BindMount | TmpfsMount;
