import { mkdtemp, mkdir, writeFile, chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { ResultsStore } from "../../src/adapters/results/store.ts";
import { isAbsence } from "../../src/app/run/sidecar.ts";
import { readingFailureNotes } from "../../src/core/report/model.ts";
import type { CellRecord, ServerManifest } from "../../src/core/results.ts";

const storeModule = fileURLToPath(new URL("../../src/adapters/results/store.ts", import.meta.url));

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
    let got: { code?: string; message?: string };
    if (process.getuid?.() !== 0) got = (await ResultsStore.open(dir).catch((e: unknown) => e)) as typeof got;
    else {
      // Root reads a mode-000 file: open it from a child running as nobody, where the kernel refuses with EACCES.
      const script = `import(${JSON.stringify(storeModule)}).then((m) => m.ResultsStore.open(${JSON.stringify(dir)})).then(() => console.log("{}"), (e) => console.log(JSON.stringify({ code: e.code, message: e.message })))`;
      const r = await execa(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { uid: 65534, gid: 65534, cwd: dirname(storeModule), reject: false });
      expect(r.exitCode, r.stderr).toBe(0);
      got = JSON.parse(r.stdout) as typeof got;
    }
    expect(got).toMatchObject({ code: "RESULTS_UNREADABLE" });
    expect(got.message).toContain(file);
    expect(got.message).toMatch(/EACCES|permission/i);
  });

  it("readingFailureNotes: a sampler failure and a failed storage re-measure become notes", () => {
    const cell = { key: "a/oltp_read_only/1/1", interferenceError: "CPU sampler failed: EACCES" } as CellRecord;
    const ok = { key: "b/oltp_read_only/1/1" } as CellRecord;
    const servers = [{ id: "a", storage: { kind: "volume", freeBytesBefore: 1, afterError: "df failed" } }] as ServerManifest[];
    const notes = readingFailureNotes({ servers }, [cell, ok]);
    expect(notes).toHaveLength(2);
    expect(notes[0]).toContain("1 measured cell");
    expect(notes[0]).toContain("EACCES");
    expect(notes[1]).toContain("server a");
    expect(notes[1]).toContain("df failed");
    expect(readingFailureNotes({ servers: [] }, [ok])).toEqual([]);
  });
});
