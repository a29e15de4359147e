/**
 * The `twinbench.session` label for resources that library helpers (twinbench/testcontainers, twinbench/testing)
 * create: `$TWINBENCH_SESSION` when set (so a test suite can name its own and check it left nothing), else one id
 * per process.
 */
import { randomBytes } from "node:crypto";

const processSession = `lib-${process.pid}-${randomBytes(3).toString("hex")}`;

/** `$TWINBENCH_SESSION`, else this process's own session id. */
export function defaultSession(): string {
  return process.env.TWINBENCH_SESSION || processSession;
}
