import { describe, expect, it } from "vitest";
import { extract } from "tar-stream";
import { scenarioPathOf, scriptContainerParts } from "../../../src/app/scripts.ts";
import { tarOf } from "../../../src/adapters/docker/containers.ts";
import type { LoadedScript } from "../../../src/core/model/scenario/custom.ts";

const folder: LoadedScript = {
  test: "mix",
  path: "mixes/",
  writes: false,
  main: "main.lua",
  files: [
    { rel: "main.lua", content: 'require("h")' },
    { rel: "lib/h.lua", content: "return {}" },
  ],
  sha256: "x",
};
const file: LoadedScript = {
  ...folder,
  test: "one",
  path: "sub/one.lua",
  main: "one.lua",
  files: [{ rel: "one.lua", content: "" }],
};

describe("custom scripts in the sidecar", () => {
  it("turns the sidecar's paths back into the scenario's", () => {
    expect(scenarioPathOf(folder, "/usr/share/sysbench/twinbench/mix/lib/h.lua")).toBe("mixes/lib/h.lua");
    expect(scenarioPathOf(file, "/usr/share/sysbench/twinbench/one/one.lua")).toBe("sub/one.lua");
    expect(scenarioPathOf(file, "/elsewhere.lua")).toBe("/elsewhere.lua");
  });

  it("gives a custom test's container its files and LUA_PATH, a stock script's nothing", () => {
    const parts = scriptContainerParts([folder, file], "/usr/share/sysbench/twinbench/mix/main.lua");
    expect(parts.files!.map((f) => f.path)).toEqual([
      "/usr/share/sysbench/twinbench/mix/main.lua",
      "/usr/share/sysbench/twinbench/mix/lib/h.lua",
    ]);
    expect(parts.env).toEqual({
      LUA_PATH: "/usr/share/sysbench/twinbench/mix/?.lua;/usr/share/sysbench/twinbench/mix/?/init.lua;;",
    });
    expect(scriptContainerParts([folder, file], "oltp_read_only")).toEqual({});
  });

  it("packs the files as one archive at their paths from the root", async () => {
    const tar = await tarOf([
      { path: "/usr/share/sysbench/twinbench/mix/main.lua", content: "a" },
      { path: "/usr/share/sysbench/twinbench/mix/lib/h.lua", content: "bc", mode: 0o600 },
    ]);
    const seen: Array<[string, number | undefined, string]> = [];
    const x = extract();
    const done = new Promise<void>((resolve) => x.on("finish", resolve));
    x.on("entry", (h, stream, next) => {
      let body = "";
      stream.on("data", (d: unknown) => (body += String(d)));
      stream.on("end", () => {
        seen.push([h.name, h.mode, body]);
        next();
      });
    });
    x.end(tar);
    await done;
    expect(seen).toEqual([
      ["usr/share/sysbench/twinbench/mix/main.lua", 0o644, "a"],
      ["usr/share/sysbench/twinbench/mix/lib/h.lua", 0o600, "bc"],
    ]);
  });
});
