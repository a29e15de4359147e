/** The doctor's engine probe: /_ping, /version and /info of the engine DOCKER_HOST names, each under a short timeout. */
import Docker from "dockerode";
import { DEFAULT_ENDPOINT, type EngineFacts } from "../../core/hosts/doctor.ts";
import { envOptions } from "./engine.ts";

/** Answers whether a Docker engine is there, and what it is. */
export interface EngineProbe {
  probe(): Promise<EngineFacts>;
}

export function engineEndpoint(env: Record<string, string | undefined>): string {
  return env.DOCKER_HOST && env.DOCKER_HOST.length > 0 ? env.DOCKER_HOST : DEFAULT_ENDPOINT;
}

/** dockerode-backed probe: /_ping, /version and /info, each under a short timeout. */
export function createEngineProbe(
  env: Record<string, string | undefined> = process.env,
  timeoutMs = 5000,
  /** For /version and /info once /_ping answered: Podman's /version asks conmon and the OCI runtime (3 s here). */
  factsTimeoutMs = 30_000,
): EngineProbe {
  return {
    async probe() {
      const endpoint = engineEndpoint(env);
      let docker: Docker;
      let slow: Docker;
      try {
        // ssh:// in DOCKER_HOST through ssh-dial.ts (docker-modem's own ssh fails on Node 26); else docker-modem's.
        const base = envOptions("local", env);
        docker = new Docker({ ...base, timeout: timeoutMs });
        slow = new Docker({ ...base, timeout: factsTimeoutMs });
      } catch (e) {
        return { answers: false, endpoint, error: (e as Error).message };
      }
      try {
        await docker.ping();
        const [version, info] = await Promise.all([slow.version(), slow.info()]);
        const components = ((version as { Components?: Array<{ Name?: string; Version?: string }> }).Components ??
          []) as Array<{ Name?: string; Version?: string }>;
        const podman = components.find((c) => /podman/i.test(c.Name ?? ""));
        const i = info as {
          Driver?: string;
          CgroupVersion?: string;
          CgroupDriver?: string;
          DockerRootDir?: string;
          Warnings?: string[] | null;
        };
        return {
          answers: true,
          endpoint,
          serverVersion: version.Version,
          product: podman ? "podman" : "docker",
          apiVersion: version.ApiVersion,
          storageDriver: i.Driver ?? "",
          cgroupVersion: i.CgroupVersion ?? "",
          cgroupDriver: i.CgroupDriver ?? "",
          dockerRootDir: i.DockerRootDir ?? "/var/lib/docker",
          warnings: i.Warnings ?? [],
        };
      } catch (e) {
        const err = e as { code?: string; message?: string };
        return {
          answers: false,
          endpoint,
          error: err.code ? `${err.code} ${err.message ?? ""}`.trim() : (err.message ?? String(e)),
        };
      }
    },
  };
}
