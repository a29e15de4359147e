/** Facts of a run in words for the report's title line: the machine it measured on and how long it took. */
import type { RunManifest } from "../model/results.ts";

/** The first host's CPU model and count, in words; null when the run recorded none. */
export function hostWords(manifest: Pick<RunManifest, "hosts">): string | null {
  const h = manifest.hosts?.[0];
  if (!h) return null;
  const cpu = h.cpuModel ? h.cpuModel.replace(/\s+/g, " ").trim() : null;
  const n = h.cpus ? `${h.cpus} CPU${h.cpus === 1 ? "" : "s"}` : null;
  return [cpu, n].filter(Boolean).join(", ") || null;
}

/** Seconds between the run's start and end; null without an end (or with times that do not parse). */
export function wallSeconds(manifest: Pick<RunManifest, "startedAt" | "endedAt">): number | null {
  if (!manifest.endedAt) return null;
  const s = (Date.parse(manifest.endedAt) - Date.parse(manifest.startedAt)) / 1000;
  return Number.isFinite(s) && s >= 0 ? s : null;
}
