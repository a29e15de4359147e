import { DockerEngine, LABEL, listLabelled } from "twinbench";

/** Names of the containers, networks and volumes twinbench labelled for this test process (should be none). */
export async function leftovers(): Promise<string[]> {
  const found = await listLabelled(new DockerEngine("local"), [`${LABEL.pid}=${process.pid}`]);
  return [...found.containers, ...found.networks, ...found.volumes].map((r) => r.name);
}
