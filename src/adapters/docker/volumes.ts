/** Volumes on a Docker engine (dockerode): the volumes part of the engine port (core/model/engine/volumes.ts). */
import type Docker from "dockerode";
import type { VolumeInfo, VolumeListing, VolumePort } from "../../core/model/engine/volumes.ts";
import { labelQuery } from "./containers.ts";
import { statusCode, tolerate } from "./engine-errors.ts";

export class DockerVolumes implements VolumePort {
  constructor(private readonly docker: Docker) {}

  async create(name: string, labels: Record<string, string>, driverOptions?: Record<string, string>): Promise<string> {
    const v = await this.docker.createVolume({
      Name: name,
      Labels: labels,
      Driver: "local",
      DriverOpts: driverOptions ?? {},
    });
    return (v as unknown as { name?: string; Name?: string }).Name ?? name;
  }
  async remove(name: string): Promise<void> {
    await tolerate(this.docker.getVolume(name).remove({ force: true }));
  }
  async inspect(name: string): Promise<VolumeInfo | undefined> {
    try {
      const v = (await this.docker.getVolume(name).inspect()) as {
        Name?: string;
        Mountpoint?: string;
        Labels?: Record<string, string> | null;
      };
      return { name: v.Name ?? name, mountpoint: v.Mountpoint, labels: v.Labels ?? {} };
    } catch (e) {
      if (statusCode(e) === 404) return undefined;
      throw e;
    }
  }
  async list(labelFilters: string[]): Promise<VolumeListing[]> {
    const vs = await this.docker.listVolumes({ filters: labelQuery(labelFilters) });
    return (vs.Volumes ?? []).map((v) => ({ name: v.Name, labels: (v.Labels as Record<string, string>) ?? {} }));
  }
}
