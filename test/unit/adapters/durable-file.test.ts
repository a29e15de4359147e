import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendDurable, diskFullError, setAsideTornTail, writeFileAtomic } from "../../../src/adapters/durable-file.ts";
import { ResultsStore } from "../../../src/adapters/results/store.ts";
import { readKnownHosts, rememberHosts } from "../../../src/adapters/docker/connect.ts";
import { isEngineConnectionError } from "../../../src/adapters/docker/engine-errors.ts";
import { TwinbenchError } from "../../../src/core/base/errors.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tb-durable-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const rec = (key: string) =>
  JSON.stringify({ key, server: "a", test: "t", threads: 1, repeat: 1, phase: "measure", status: "ok", metrics: null });

describe("writeFileAtomic", () => {
  it("creates the folder, replaces the content and leaves no temp file", async () => {
    const f = join(dir, "sub", "state.json");
    await writeFileAtomic(f, "old");
    await writeFileAtomic(f, "new");
    expect(readFileSync(f, "utf8")).toBe("new");
    expect(readdirSync(join(dir, "sub"))).toEqual(["state.json"]);
  });

  it("a failed write leaves the old file and no temp file", async () => {
    const f = join(dir, "state.json");
    await writeFileAtomic(f, "old");
    await expect(writeFileAtomic(f, 42 as unknown as string)).rejects.toThrow();
    expect(readFileSync(f, "utf8")).toBe("old");
    expect(readdirSync(dir)).toEqual(["state.json"]);
  });
});

describe("setAsideTornTail", () => {
  const cases: Array<[string, string, string | undefined, string]> = [
    ["a whole file", `${rec("a")}\n${rec("b")}\n`, undefined, `${rec("a")}\n${rec("b")}\n`],
    ["a torn last line (cut mid-record)", `${rec("a")}\n{"key":"to`, `{"key":"to`, `${rec("a")}\n`],
    ["a last line without its newline", `${rec("a")}\n${rec("b")}`, rec("b"), `${rec("a")}\n`],
    ["an invalid last line with a newline", `${rec("a")}\ngarbage\n`, "garbage", `${rec("a")}\n`],
    ["only a torn line", `{"ke`, `{"ke`, ""],
    ["an empty file", "", undefined, ""],
  ];
  it.each(cases)("%s", async (_name, text, moved, left) => {
    const f = join(dir, "cells.jsonl");
    writeFileSync(f, text);
    const r = await setAsideTornTail(f, join(dir, "cells.jsonl.torn"));
    expect(r?.text).toBe(moved);
    expect(readFileSync(f, "utf8")).toBe(left);
    if (moved !== undefined) {
      expect(r?.movedTo).toBe(join(dir, "cells.jsonl.torn"));
      expect(readFileSync(join(dir, "cells.jsonl.torn"), "utf8")).toBe(moved + "\n");
    }
  });

  it("appends to an existing .torn file, and the next append starts on a line of its own", async () => {
    const f = join(dir, "cells.jsonl");
    const aside = join(dir, "cells.jsonl.torn");
    writeFileSync(aside, "first-tear\n");
    writeFileSync(f, `${rec("a")}\n{"key":"b`);
    await setAsideTornTail(f, aside);
    await appendDurable(f, rec("b") + "\n");
    expect(readFileSync(aside, "utf8")).toBe(`first-tear\n{"key":"b\n`);
    expect(
      readFileSync(f, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).key),
    ).toEqual(["a", "b"]);
  });

  it("a missing file is nothing torn", async () => {
    expect(await setAsideTornTail(join(dir, "nope"), join(dir, "nope.torn"))).toBeUndefined();
  });

  it("ResultsStore.setAsideTornLine then readCells: every record, none lost", async () => {
    const store = await ResultsStore.create(join(dir, "run"));
    await store.appendCell(JSON.parse(rec("a")));
    writeFileSync(join(dir, "run", "cells.jsonl"), `${rec("a")}\n{"key":"torn`);
    expect((await store.setAsideTornLine())?.movedTo).toBe(join(dir, "run", "cells.jsonl.torn"));
    await store.appendCell(JSON.parse(rec("b")));
    expect((await store.readCells()).map((c) => c.key)).toEqual(["a", "b"]);
  });
});

describe("a full filesystem", () => {
  it("becomes a DISK_FULL error naming the folder; other errors pass through", () => {
    const enospc = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    const e = diskFullError(enospc, "results folder /r", "cells.jsonl", "free space") as TwinbenchError;
    expect(e).toBeInstanceOf(TwinbenchError);
    expect(e.code).toBe("DISK_FULL");
    expect(e.message).toBe("results folder /r: the filesystem is full (ENOSPC) while writing cells.jsonl");
    const edquot = Object.assign(new Error("quota"), { code: "EDQUOT" });
    expect((diskFullError(edquot, "x", "y", "z") as TwinbenchError).code).toBe("DISK_FULL");
    const other = Object.assign(new Error("nope"), { code: "EACCES" });
    expect(diskFullError(other, "x", "y", "z")).toBe(other);
  });
});

describe("known-hosts file", () => {
  const spec = { id: "b", engine: "tcp://10.0.0.2:2375" };
  it("missing: empty; remembered hosts are merged", async () => {
    const f = join(dir, "hosts.json");
    expect(await readKnownHosts(f)).toEqual({});
    await rememberHosts([{ id: "a", engine: "unix:///var/run/docker.sock" } as never], f);
    await rememberHosts([spec as never], f);
    expect(Object.keys(await readKnownHosts(f))).toEqual(["a", "b"]);
  });

  it.each([
    ["not JSON", '{"a": {"engine": "tcp://x'],
    ["empty", ""],
    ["not an object of hosts", "[1,2]"],
    ["a host without engine", '{"a": {"id": "a"}}'],
  ])("damaged (%s): a loud error naming the file, never read as empty nor overwritten", async (_n, text) => {
    const f = join(dir, "hosts.json");
    writeFileSync(f, text);
    await expect(readKnownHosts(f)).rejects.toMatchObject({
      code: "HOSTS_FILE_CORRUPT",
      message: expect.stringContaining(f),
    });
    await expect(rememberHosts([spec as never], f)).rejects.toMatchObject({ code: "HOSTS_FILE_CORRUPT" });
    expect(readFileSync(f, "utf8")).toBe(text);
  });
});

describe("isEngineConnectionError", () => {
  const err = (code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(code), { code, ...extra });
  it.each([
    [err("ENOENT", { syscall: "connect", address: "/var/run/docker.sock" }), true],
    [err("ECONNREFUSED"), true],
    [err("ECONNRESET"), true],
    [err("ENOENT", { syscall: "open" }), false], // a missing file, not the engine
    [err("ECONNRESET", { statusCode: 500 }), false], // an engine answer: classified by its status instead
    [new Error("boom"), false],
  ])("%s → %s", (e, want) => {
    expect(isEngineConnectionError(e)).toBe(want);
  });
});
