import { mkdtemp, mkdir, writeFile, chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ResultsStore } from "../../../../src/adapters/results/store.ts";
import { isAbsence } from "../../../../src/app/run/sidecar.ts";
import { readingFailureNotes } from "../../../../src/core/report/model.ts";
import type { CellRecord, ServerManifest } from "../../../../src/core/model/results.ts";

describe("a failed reading is not an absent one", () => {
  it("isAbsence: only ENOENT/ENOTDIR mean absent", () => {
    expect(isAbsence(Object.assign(new Error("x"), { code: "ENOENT" }))).toBe(true);
    expect(isAbsence(Object.assign(new Error("x"), { code: "ENOTDIR" }))).toBe(true);
    expect(isAbsence(Object.assign(new Error("x"), { code: "EACCES" }))).toBe(false);
    expect(isAbsence(new TypeError("bug"))).toBe(false);
    expect(isAbsence(null)).toBe(false);
  });

  it("ResultsStore.open: a missing run.json is RESULTS_NOT_FOUND", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tb-fr-"));
    await expect(ResultsStore.open(dir)).rejects.toMatchObject({ code: "RESULTS_NOT_FOUND" });
  });

  it("ResultsStore.open: run.json as a directory is RESULTS_UNREADABLE naming the path, with a hint", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tb-fr-"));
    await mkdir(join(dir, "run.json"));
    const err = await ResultsStore.open(dir).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "RESULTS_UNREADABLE" });
    expect((err as Error).message).toContain(join(dir, "run.json"));
    expect((err as { hint?: string }).hint).toMatch(/directory/);
  });

  it("ResultsStore.open: an unreadable run.json (EACCES) is RESULTS_UNREADABLE", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tb-fr-"));
    await chmod(dir, 0o755);
    const file = join(dir, "run.json");
    await writeFile(file, "{}");
    await chmod(file, 0o000);
    // Root reads a mode-000 file: as root, read it with the effective uid of nobody (the real uid stays 0, so
    // seteuid(0) gives root back), where the kernel refuses with EACCES as for any user.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) process.seteuid!(65534);
    let got: { code?: string; message?: string };
    try {
      got = (await ResultsStore.open(dir).catch((e: unknown) => e)) as typeof got;
    } finally {
      if (asRoot) process.seteuid!(0);
    }
    expect(got).toMatchObject({ code: "RESULTS_UNREADABLE" });
    expect(got.message).toContain(file);
    expect(got.message).toMatch(/EACCES|permission/i);
  });

  it("readingFailureNotes: a sampler failure and a failed storage re-measure become notes", () => {
    const cell = { key: "a/oltp_read_only/1/1", interferenceError: "CPU sampler failed: EACCES" } as CellRecord;
    const ok = { key: "b/oltp_read_only/1/1" } as CellRecord;
    const servers = [
      { id: "a", storage: { kind: "volume", freeBytesBefore: 1, afterError: "df failed" } },
    ] as ServerManifest[];
    const notes = readingFailureNotes({ servers }, [cell, ok]);
    expect(notes).toHaveLength(2);
    expect(notes[0]).toContain("1 measured cell");
    expect(notes[0]).toContain("EACCES");
    expect(notes[1]).toContain("server a");
    expect(notes[1]).toContain("df failed");
    expect(readingFailureNotes({ servers: [] }, [ok])).toEqual([]);
  });
});
