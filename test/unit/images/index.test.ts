/** The images entry only re-exports its modules: each name it exposes is the defining module's own. */
import { describe, expect, it } from "vitest";
import * as index from "../../../src/core/images/index.ts";
import * as base from "../../../src/core/images/base.ts";
import * as context from "../../../src/core/images/context.ts";
import * as lock from "../../../src/core/images/lock.ts";
import * as pin from "../../../src/core/images/pin.ts";
import * as stream from "../../../src/core/images/stream.ts";

const modules = { base, context, lock, pin, stream };

describe("images index", () => {
  it.each(Object.entries(modules))("exposes every export of %s as the same value", (_, mod) => {
    for (const [name, value] of Object.entries(mod)) expect(index[name as keyof typeof index], name).toBe(value);
  });

  it("exposes nothing beyond its modules", () => {
    const all = new Set(Object.values(modules).flatMap((m) => Object.keys(m)));
    expect(Object.keys(index).filter((k) => !all.has(k))).toEqual([]);
  });
});
