/**
 * Merging per-host results folders into one (pure): a sharded run writes `hosts/<folder>/` per host and pass, and
 * the merged `run.json` + `cells.jsonl` + `raw/` at the top. Cell lines keep their plan key and say which host
 * actually ran them (`host`); raw paths move under `raw/<folder>/`.
 */
import type { Cell, CellRecord, HostFacts, RunManifest, ServerManifest } from "../model/results.ts";
import { missingCells } from "./shard.ts";

export interface ResultPart {
  /** The host that ran these cells. */
  host: string;
  /** Its folder under hosts/: the host id for the first pass, "<id>.retry" for a second pass. */
  folder: string;
  manifest: RunManifest;
  cells: CellRecord[];
}

export interface MergeInput {
  runId: string;
  parts: readonly ResultPart[];
  /** The whole plan (every host's cells). */
  plannedCells: readonly Cell[];
  hostFacts: readonly HostFacts[];
  /** Differing facts when sharding was forced over unlike hosts. */
  mixed?: readonly string[];
  failures?: ReadonlyArray<{ host: string; message: string }>;
  cancelled?: boolean;
}

export interface MergedRun {
  manifest: RunManifest;
  cells: CellRecord[];
  /** Folder copies to make, relative to the merged folder. */
  rawCopies: Array<{ from: string; to: string }>;
}

function rawPath(folder: string, raw: string): string {
  return raw.startsWith("raw/") ? `raw/${folder}/${raw.slice(4)}` : `raw/${folder}/${raw}`;
}

export function mergeStatus(
  planned: readonly Cell[],
  cells: readonly CellRecord[],
  cancelled: boolean,
): RunManifest["status"] {
  if (cancelled) return "cancelled";
  const missing = missingCells(planned, cells).length;
  if (missing === 0) return "ok";
  return missing === planned.length ? "failed" : "partial";
}

export function mergeShard(input: MergeInput): MergedRun {
  const parts = input.parts;
  if (parts.length === 0) throw new Error("mergeShard: no parts");
  const base = parts[0]!.manifest;
  const cells = parts.flatMap((p) =>
    p.cells.map((c) => ({ ...c, host: p.host, raw: c.raw ? rawPath(p.folder, c.raw) : c.raw })),
  );
  const servers: ServerManifest[] = [];
  const seen = new Set<string>();
  for (const p of parts)
    for (const s of p.manifest.servers) {
      const k = `${p.host}/${s.id}`;
      if (seen.has(k)) continue;
      seen.add(k);
      servers.push({ ...s, host: p.host });
    }
  const times = (f: (m: RunManifest) => string | undefined) =>
    parts
      .map((p) => f(p.manifest))
      .filter((t): t is string => !!t)
      .sort();
  const started = times((m) => m.startedAt);
  const ended = times((m) => m.endedAt);
  const actions: NonNullable<RunManifest["actions"]> = [];
  for (const p of parts)
    for (const a of p.manifest.actions ?? [])
      actions.push({ ...a, detail: `[${p.folder}] ${a.detail ?? ""}`.trimEnd() });
  const at = ended[ended.length - 1] ?? started[0] ?? base.startedAt;
  for (const f of input.failures ?? [])
    actions.push({ at, action: "host-lost", detail: `host ${f.host}: ${f.message}` });
  if (input.mixed?.length)
    actions.push({
      at: started[0] ?? base.startedAt,
      action: "hosts-mixed",
      detail: `sharded over unlike hosts (--force): ${input.mixed.join("; ")}`,
    });
  const timings: Record<string, number> = {};
  for (const p of parts) for (const [k, v] of Object.entries(p.manifest.timings ?? {})) timings[`${p.folder}.${k}`] = v;
  const manifest: RunManifest = {
    ...base,
    runId: input.runId,
    cells: [...input.plannedCells],
    hosts: [...input.hostFacts],
    servers,
    startedAt: started[0] ?? base.startedAt,
    endedAt: ended[ended.length - 1],
    status: mergeStatus(
      input.plannedCells,
      cells,
      input.cancelled === true || parts.some((p) => p.manifest.status === "cancelled"),
    ),
    actions,
    timings,
    ...(input.mixed?.length ? { hostsMixed: [...input.mixed] } : {}),
    ...(input.failures?.length ? { hostFailures: [...input.failures] } : {}),
  };
  delete manifest.fingerprint;
  return { manifest, cells, rawCopies: parts.map((p) => ({ from: `hosts/${p.folder}/raw`, to: `raw/${p.folder}` })) };
}
