/**
 * The engine port: everything the lab needs from a container engine, in the lab's words, one interface per
 * resource (containers, images, networks, volumes, exec) composed into the `Engine` the app receives.
 *
 * It lives in core/model (types, plus one function that only composes port calls) rather than in app/, because
 * both sides of the port import it: app/ depends on it, and the adapters implement it (adapters/docker/engine.ts
 * is the Docker implementation) and use it (storage, image transfer, probes); adapters may not import app/, and
 * core imports nothing outside core. No engine's own API types appear here: a Kubernetes backend would implement
 * the same interfaces.
 */
import type { HostFacts } from "../results.ts";
import type { ContainerListing, ContainerPort } from "./containers.ts";
import type { ExecPort } from "./exec.ts";
import type { ImagePort } from "./images.ts";
import type { NetworkListing, NetworkPort } from "./networks.ts";
import type { VolumeListing, VolumePort } from "./volumes.ts";

/** Where the engine runs: on this machine (a local socket: its host paths are ours) or elsewhere. */
export interface EngineLocation {
  local: boolean;
  /** The remote host, when not local. */
  host?: string;
}

/** One engine (one host): the host it runs on, and its resources. */
export interface Engine {
  /** The host's id in the scenario ("local" for the local engine); it goes into every resource's labels. */
  readonly hostId: string;
  /** Whether the engine's host is this machine. */
  location(): EngineLocation;
  /** Resolves when the engine answers. */
  ping(): Promise<void>;
  /** What the engine tells about its host. */
  facts(): Promise<HostFacts>;
  readonly containers: ContainerPort;
  readonly images: ImagePort;
  readonly networks: NetworkPort;
  readonly volumes: VolumePort;
  readonly exec: ExecPort;
}

/** What {@link listLabelled} found: the labelled containers, networks and volumes. */
export interface LabelledResources {
  containers: ContainerListing[];
  networks: NetworkListing[];
  volumes: VolumeListing[];
}

/** The containers, networks and volumes whose labels match every filter (`key` or `key=value`), listed at once. */
export async function listLabelled(engine: Engine, labelFilters: string[]): Promise<LabelledResources> {
  const [containers, networks, volumes] = await Promise.all([
    engine.containers.list(labelFilters),
    engine.networks.list(labelFilters),
    engine.volumes.list(labelFilters),
  ]);
  return { containers, networks, volumes };
}
