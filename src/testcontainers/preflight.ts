/**
 * Checked while `twinbench/testcontainers` is imported, before testcontainers itself is loaded: whether the installed
 * testcontainers (and the undici it loads) accepts this Node. testcontainers 12 needs Node 22.22 or newer; loaded on
 * Node 20 it fails deep inside undici with a TypeError that names neither package nor Node. This names both versions
 * and the two ways out instead.
 */
import { installedTestcontainers } from "../adapters/installed-packages.ts";
import { testcontainersNodeError, testcontainersNodeProblem } from "../core/hosts/node-support.ts";

const found = installedTestcontainers();
const problem = testcontainersNodeProblem(process.versions.node, found.packages);
if (problem) throw testcontainersNodeError(problem, found.testcontainers?.version ?? null);
