/** The networks part of the engine port: private networks for a run's containers. Types only. */

export interface NetworkListing {
  id: string;
  name: string;
  labels: Record<string, string>;
}

/** Private networks. Removing and disconnecting are idempotent: what is gone is no error. */
export interface NetworkPort {
  /** Create a private network; resolves to its id. */
  create(name: string, labels: Record<string, string>): Promise<string>;
  remove(id: string): Promise<void>;
  /** Attach a container to a network (compose: twinbench joins each private network to probe its servers). */
  connect(networkId: string, containerId: string): Promise<void>;
  disconnect(networkId: string, containerId: string): Promise<void>;
  /** Networks whose labels match every filter (`key` or `key=value`). */
  list(labelFilters: string[]): Promise<NetworkListing[]>;
}
