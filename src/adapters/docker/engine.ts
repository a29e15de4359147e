/**
 * The engine port (core/model/engine/engine.ts) on a Docker API (dockerode): the host part (location, ping, facts)
 * here, each resource in a file of its own (containers.ts, images.ts, networks.ts, volumes.ts, exec.ts).
 */
import Docker from "dockerode";
import { TwinbenchError } from "../../core/base/errors.ts";
import type { Engine, EngineLocation } from "../../core/model/engine/engine.ts";
import type { HostFacts } from "../../core/model/results.ts";
import { DockerContainers } from "./containers.ts";
import { isEngineConnectionError } from "./engine-errors.ts";
import { DockerExec } from "./exec.ts";
import { DockerImages } from "./images.ts";
import { DockerNetworks } from "./networks.ts";
import { DockerVolumes } from "./volumes.ts";
import { parseEngineUrl } from "../../core/hosts/url.ts";
import { sshConnectOptions, sshDockerOptions } from "./ssh-dial.ts";

/**
 * The options of the engine DOCKER_HOST names: docker-modem's own for every scheme but ssh://, which goes through
 * ssh-dial.ts (docker-modem's ssh requests fail on Node 26), its host key checked against known_hosts.
 */
export function envOptions(
  hostId: string,
  env: NodeJS.ProcessEnv,
  opts: { knownHostsFile?: string } = {},
): Docker.DockerOptions | undefined {
  const url = env.DOCKER_HOST?.trim();
  if (!url?.startsWith("ssh://")) return undefined;
  const u = parseEngineUrl(url);
  if (u.kind !== "ssh") return undefined;
  return sshDockerOptions(u, sshConnectOptions({ id: hostId }, u, env, opts));
}

/** The Engine on a Docker API (dockerode): `new DockerEngine("local")` is the local engine (DOCKER_HOST respected). */
export class DockerEngine implements Engine {
  private readonly docker: Docker;
  readonly containers: DockerContainers;
  readonly images: DockerImages;
  readonly networks: DockerNetworks;
  readonly volumes: DockerVolumes;
  readonly exec: DockerExec;
  constructor(
    readonly hostId: string = "local",
    opts?: Docker.DockerOptions,
  ) {
    this.docker = new Docker(opts ?? envOptions(hostId, process.env));
    this.containers = new DockerContainers(this.docker);
    this.images = new DockerImages(this.docker);
    this.networks = new DockerNetworks(this.docker);
    this.volumes = new DockerVolumes(this.docker);
    this.exec = new DockerExec(this.docker);
  }

  location(): EngineLocation {
    const modem = this.docker.modem as unknown as { socketPath?: string; host?: string } | undefined;
    return !!modem?.socketPath || !modem?.host ? { local: true } : { local: false, host: modem.host };
  }

  async ping(): Promise<void> {
    try {
      await this.docker.ping();
    } catch (e) {
      throw new TwinbenchError(`no Docker engine answers for host "${this.hostId}": ${(e as Error).message}`, {
        code: "ENGINE_UNREACHABLE",
        hint: "run `twinbench doctor --fix` to install and start the engine, or set DOCKER_HOST",
        cause: e,
      });
    }
  }

  async facts(): Promise<HostFacts> {
    let info: Awaited<ReturnType<Docker["info"]>>;
    let version: Awaited<ReturnType<Docker["version"]>>;
    try {
      [info, version] = await Promise.all([this.docker.info(), this.docker.version()]);
    } catch (e) {
      // No engine (`calibrate --show` or `plan` before `doctor --fix`): a typed error, not an internal one.
      if (!isEngineConnectionError(e)) throw e;
      throw new TwinbenchError(`no Docker engine answers for host "${this.hostId}": ${(e as Error).message}`, {
        code: "ENGINE_UNREACHABLE",
        hint: "run `twinbench doctor --fix` to install and start the engine, or set DOCKER_HOST",
        cause: e,
      });
    }
    return {
      id: this.hostId,
      kernel: info.KernelVersion,
      os: info.OperatingSystem,
      cpuModel: undefined,
      cpus: info.NCPU,
      memoryBytes: info.MemTotal,
      dockerVersion: version.Version,
      apiVersion: version.ApiVersion,
      storageDriver: info.Driver,
      cgroupVersion: (info as { CgroupVersion?: string }).CgroupVersion,
    };
  }
}
