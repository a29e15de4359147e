/**
 * Which runs `twinbench compare` pairs: the one run of each folder, or the hosts of two host comparisons paired by
 * id (or the one host given with --host), and the single runs --also-base/--also-new add.
 */
import { InputError } from "../../core/base/errors.ts";
import type { RunData } from "../../core/stats/compare.ts";
import type { AnyResultsFolder } from "../../adapters/results-folders.ts";

/** The runs a folder holds: one (single or sharded run), or one per host that has results (host comparison). */
function runsOf(f: AnyResultsFolder, host: string | undefined): Array<{ host?: string; data: RunData }> {
  if (f.kind !== "hosts") return [{ data: f.folder }];
  const runs = f.runs
    .filter((r) => r.manifest && r.cells)
    .map((r) => ({ host: r.id, data: { manifest: r.manifest!, cells: r.cells! } }));
  if (host === undefined) return runs;
  const one = runs.filter((r) => r.host === host);
  if (one.length === 0)
    throw new InputError(`--host ${host}: ${f.dir} has no results for host "${host}"`, {
      code: "COMPARE_HOST",
      hint: `hosts with results there: ${runs.map((r) => r.host).join(", ") || "none"}`,
    });
  return one;
}

/** The one run of a folder given with --also-base/--also-new (a single or sharded run). */
export function singleRun(f: AnyResultsFolder): RunData {
  if (f.kind === "hosts")
    throw new InputError(`${f.dir} is a host comparison; --also-base/--also-new take single runs`, {
      code: "COMPARE_HOST",
      hint: `give one host's folder (${f.dir}/hosts/<id>)`,
    });
  return f.folder;
}

/** BASE and NEW runs to compare: the one run of each, or the hosts of two host comparisons paired by id. */
export function pairRuns(
  fa: AnyResultsFolder,
  fb: AnyResultsFolder,
  host: string | undefined,
): Array<{ host?: string; a: RunData; b: RunData }> {
  const ra = runsOf(fa, host);
  const rb = runsOf(fb, host);
  if (ra.length === 1 && rb.length === 1) return [{ host: ra[0]!.host ?? rb[0]!.host, a: ra[0]!.data, b: rb[0]!.data }];
  if (ra.length === 0 || rb.length === 0)
    throw new InputError(`nothing to compare: ${ra.length === 0 ? fa.dir : fb.dir} holds no host run with results`, {
      code: "COMPARE_EMPTY",
      hint: "compare folders whose runs produced results",
    });
  if (ra.length > 1 && rb.length > 1) {
    const pairs = ra.flatMap((x) =>
      rb.filter((y) => y.host === x.host).map((y) => ({ host: x.host, a: x.data, b: y.data })),
    );
    if (pairs.length) return pairs;
    throw new InputError(`the host comparisons ${fa.dir} and ${fb.dir} share no host id`, {
      code: "COMPARE_HOST",
      hint: "pick one host of each with --host, or compare host folders (DIR/hosts/<id>)",
    });
  }
  const many = ra.length > 1 ? fa : fb;
  throw new InputError(
    `${many.dir} is a host comparison with ${(ra.length > 1 ? ra : rb).map((r) => r.host).join(", ")}; the other folder holds one run`,
    {
      code: "COMPARE_HOST",
      hint: "pick the host to compare with --host ID",
    },
  );
}
