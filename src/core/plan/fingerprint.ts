/**
 * A fingerprint of everything that must be identical for a run and its resume to be the same experiment: the
 * resolved scenario, the neutral config text and the image pins. Same canonical JSON + sha256 as the lock hashes.
 */
import { canonicalJson, sha256 } from "../images/lock.ts";
import type { Scenario } from "../model/scenario/schema.ts";

export function scenarioFingerprint(scenario: Scenario, neutralCnf: string, pins: unknown = null): string {
  return sha256(canonicalJson({ scenario, neutralCnf, pins })).slice(0, 16);
}
