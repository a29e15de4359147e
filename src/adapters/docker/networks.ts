/** Networks on a Docker engine (dockerode): the networks part of the engine port (core/model/engine/networks.ts). */
import type Docker from "dockerode";
import type { NetworkListing, NetworkPort } from "../../core/model/engine/networks.ts";
import { labelQuery } from "./containers.ts";
import { tolerate } from "./engine-errors.ts";

export class DockerNetworks implements NetworkPort {
  constructor(private readonly docker: Docker) {}

  /**
   * Serialised across every engine of this process: two engines on one machine (a second engine for tests, or
   * rootless + rootful) pick bridge subnets independently and skip only subnets that already have a host route,
   * so two creations at the same moment can get the same subnet and probes would reach the wrong server.
   */
  private static creation: Promise<void> = Promise.resolve();

  async create(name: string, labels: Record<string, string>): Promise<string> {
    const create = DockerNetworks.creation.then(() =>
      this.docker.createNetwork({ Name: name, Driver: "bridge", Labels: labels, CheckDuplicate: true }),
    );
    DockerNetworks.creation = create.then(
      () => undefined,
      () => undefined, // the queue only orders creations: this caller gets the failure from `create` below
    );
    return (await create).id;
  }
  async remove(id: string): Promise<void> {
    await tolerate(this.docker.getNetwork(id).remove());
  }
  async connect(networkId: string, containerId: string): Promise<void> {
    await this.docker.getNetwork(networkId).connect({ Container: containerId });
  }
  async disconnect(networkId: string, containerId: string): Promise<void> {
    await tolerate(this.docker.getNetwork(networkId).disconnect({ Container: containerId, Force: true }));
  }
  async list(labelFilters: string[]): Promise<NetworkListing[]> {
    const ns = await this.docker.listNetworks({ filters: labelQuery(labelFilters) });
    return ns.map((n) => ({ id: n.Id, name: n.Name, labels: n.Labels ?? {} }));
  }
}
