/** mkdirDurable (src/adapters/durable-file.ts): new folders one by one, each parent fsynced. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mkdirDurable } from "../../../src/adapters/durable-file.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tb-durable-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("mkdirDurable", () => {
  it("makes every missing folder one by one and says which was the first", async () => {
    expect(await mkdirDurable(join(dir, "a", "b", "c"))).toBe(join(dir, "a"));
    expect(await mkdirDurable(join(dir, "a", "b", "c"))).toBeUndefined();
  });
});
