import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseCnf } from "../../../src/core/config/cnf.ts";
import type { Family } from "../../../src/core/config/dialect-types.ts";
import { renderConfig, type RenderInput } from "../../../src/core/config/render.ts";
import { InputError } from "../../../src/core/base/errors.ts";
import { ScenarioSchema } from "../../../src/core/model/scenario/schema.ts";
import { SERVERS_BY_FAMILY, scenario, type ScenarioOverrides } from "../../support/scenario.ts";

const LAB = readFileSync("lab/my.cnf", "utf8");

const scenarioOf = (extra: ScenarioOverrides = {}, threads = [1, 4]) =>
  scenario([{ servers: SERVERS_BY_FAMILY, workload: { tests: ["oltp_read_only"], threads } }, extra], {
    check: "schema",
  });

function render(over: Partial<RenderInput> & { family?: Family } = {}) {
  const family = over.family ?? "mariadb";
  return renderConfig({
    neutral: LAB,
    family,
    version: family === "mariadb" ? "11.8.9" : "9.7.4",
    storageKind: "tmpfs",
    scenario: scenarioOf(),
    serverId: family,
    ...over,
  });
}

const opt = (out: ReturnType<typeof render>, name: string) =>
  out.options.filter((o) => o.name === name).map((o) => o.value);

describe("renderConfig: flush method and storage", () => {
  it.each([
    [
      "mariadb",
      "11.8.9",
      { innodb_data_file_buffering: "OFF", innodb_log_file_buffering: "ON", innodb_flush_method: undefined },
    ],
    [
      "mariadb",
      "10.11.19",
      { innodb_flush_method: "O_DIRECT", innodb_log_file_buffering: "ON", innodb_data_file_buffering: undefined },
    ],
    ["mysql", "9.7.4", { innodb_flush_method: "O_DIRECT", innodb_log_file_buffering: undefined }],
  ] as const)("%s %s on tmpfs: data files direct, redo log buffered", (family, version, expected) => {
    const out = render({ family, version, storageKind: "tmpfs" });
    for (const [name, value] of Object.entries(expected))
      expect(opt(out, name), name).toEqual(value === undefined ? [] : [value]);
    expect(out.asymmetries).toEqual([]);
    const entry = out.translation.find((t) => t.option === "innodb_flush_method")!;
    expect(entry.reason).toMatch(/tmpfs/);
  });

  it.each(["mariadb", "mysql"] as const)("%s: the same I/O settings on every storage kind", (family) => {
    const body = (kind: RenderInput["storageKind"]) => render({ family, storageKind: kind }).options;
    for (const kind of ["volume", "bind", "raid0"] as const) expect(body(kind)).toEqual(body("tmpfs"));
  });

  it("O_DIRECT_NO_FSYNC has no MariaDB 11 equivalent: rendered as O_DIRECT and reported", () => {
    const out = render({ scenario: scenarioOf({ config: { set: { innodb_flush_method: "O_DIRECT_NO_FSYNC" } } }) });
    expect(opt(out, "innodb_data_file_buffering")).toEqual(["OFF"]);
    expect(out.asymmetries.join("\n")).toMatch(/O_DIRECT_NO_FSYNC: MariaDB 11 has no equivalent/);
  });

  it("fsync on MariaDB 11 buffers data files too", () => {
    const out = render({ scenario: scenarioOf({ config: { set: { innodb_flush_method: "fsync" } } }) });
    expect(opt(out, "innodb_data_file_buffering")).toEqual(["ON"]);
    expect(opt(out, "innodb_log_file_buffering")).toEqual(["ON"]);
  });

  it("an explicit innodb_log_file_buffering wins over the translated one, without a duplicate line", () => {
    const out = render({ scenario: scenarioOf({ config: { set: { innodb_log_file_buffering: "OFF" } } }) });
    expect(opt(out, "innodb_log_file_buffering")).toEqual(["OFF"]);
    expect(out.cnf.match(/^innodb_log_file_buffering/gm)).toHaveLength(1);
    expect(out.translation.find((t) => t.option === "innodb_flush_method")!.reason).toMatch(/set explicitly elsewhere/);
  });
});

describe("renderConfig: layers", () => {
  it("applies base → profile → config.set → servers[].config.set, and flags per-server keys", () => {
    const scenario = scenarioOf({
      config: { set: { innodb_io_capacity: 3000, innodb_buffer_pool_size: "512M" } },
      servers: [
        { id: "mariadb", image: "mariadb-11.8", config: { set: { innodb_io_capacity: 5000 } } },
        { id: "mysql", image: "mysql-9.7" },
      ],
    });
    const maria = render({ scenario });
    const mysql = render({ family: "mysql", scenario });
    expect(opt(maria, "innodb_io_capacity")).toEqual(["5000"]);
    expect(opt(mysql, "innodb_io_capacity")).toEqual(["3000"]);
    expect(opt(maria, "innodb_buffer_pool_size")).toEqual(["512M"]);
    expect(maria.asymmetries).toEqual([
      "mariadb: innodb_io_capacity=5000 set for this server only (servers[].config.set)",
    ]);
    expect(mysql.asymmetries).toEqual([]);
    expect(maria.translation.find((t) => t.option === "innodb_io_capacity")).toMatchObject({
      source: "servers.mariadb.config.set",
      value: "5000",
    });
    expect(mysql.translation.find((t) => t.option === "innodb_io_capacity")).toMatchObject({
      source: "config.set",
      value: "3000",
    });
  });

  it.each(["mariadb", "mysql"] as const)(
    "profile durable on %s: binlog, ROW and sync_binlog=1 replace skip_log_bin",
    (family) => {
      const out = render({ family, scenario: scenarioOf({ config: { profile: "durable" } }) });
      expect(opt(out, "skip_log_bin")).toEqual([]);
      expect(opt(out, "log_bin")).toEqual(["binlog"]);
      expect(opt(out, "sync_binlog")).toEqual(["1"]);
      // MySQL ≥8.0.34: ROW is the default and binlog_format is deprecated, so it is left out
      expect(opt(out, "binlog_format")).toEqual(family === "mariadb" ? ["ROW"] : []);
      expect(out.translation.find((t) => t.option === "skip_log_bin")).toMatchObject({
        fate: "drop",
        reason: expect.stringMatching(/replaced by log_bin=binlog from profile durable/),
      });
    },
  );

  it("config.set skip_*: false removes the flag; true writes it bare", () => {
    const out = render({
      scenario: scenarioOf({ config: { set: { skip_name_resolve: false, "skip-external-locking": true } } }),
    });
    expect(opt(out, "skip_name_resolve")).toEqual([]);
    expect(opt(out, "skip_external_locking")).toEqual([null]);
    expect(out.cnf).toMatch(/^skip_external_locking$/m);
  });

  it("booleans become ON/OFF", () => {
    const out = render({ scenario: scenarioOf({ config: { set: { innodb_adaptive_hash_index: true } } }) });
    expect(opt(out, "innodb_adaptive_hash_index")).toEqual(["ON"]);
  });

  it("a later innodb_log_file_size replaces the base's innodb_redo_log_capacity", () => {
    const out = render({ family: "mysql", scenario: scenarioOf({ config: { set: { innodb_log_file_size: "1G" } } }) });
    expect(opt(out, "innodb_redo_log_capacity")).toEqual(["2G"]);
    expect(out.translation.find((t) => t.option === "innodb_redo_log_capacity")!.fate).toBe("drop");
  });
});

describe("renderConfig: max_connections and thread cache", () => {
  it.each([
    [[1, 4], "151", "151"],
    [[1, 64, 128], "151", "151"],
    [[1, 200], "210", "210"],
    [[1000], "1010", "512"],
  ])("threads %j → max_connections %s, thread_cache_size %s", (threads, max, cache) => {
    for (const family of ["mariadb", "mysql"] as const) {
      const out = render({ family, scenario: scenarioOf({}, threads) });
      expect(opt(out, "max_connections")).toEqual([max]);
      expect(opt(out, "thread_cache_size")).toEqual([cache]);
    }
  });

  it("adds max_connections when the base has none", () => {
    const out = render({ neutral: "[mysqld]\ndatadir = /var/lib/mysql\n", scenario: scenarioOf({}, [300]) });
    expect(opt(out, "max_connections")).toEqual(["310"]);
    expect(out.translation.find((t) => t.option === "max_connections")).toMatchObject({
      fate: "add",
      source: "renderer",
    });
  });

  it("warns when an explicit max_connections is below the matrix", () => {
    const out = render({ scenario: scenarioOf({ config: { set: { max_connections: 100 } } }, [128]) });
    expect(out.warnings.join("\n")).toMatch(/max_connections=100 is below max threads 128 \+ 10/);
  });
});

describe("renderConfig: report", () => {
  it("passes unknown options through, flagged", () => {
    const out = render({ scenario: scenarioOf({ config: { set: { innodb_frobnicate: 3 } } }) });
    expect(opt(out, "innodb_frobnicate")).toEqual(["3"]);
    expect(out.translation.find((t) => t.option === "innodb_frobnicate")).toMatchObject({
      fate: "keep",
      reason: expect.stringMatching(/unknown to the dialect table/),
    });
    expect(out.warnings.join("\n")).toMatch(/innodb_frobnicate \(config.set\): unknown to the dialect table/);
  });

  it("keeps the loose_ prefix", () => {
    const out = render({ scenario: scenarioOf({ config: { set: { "loose-innodb_frobnicate": 1 } } }) });
    expect(opt(out, "loose_innodb_frobnicate")).toEqual(["1"]);
  });

  it("reports an asymmetry for a MariaDB-impossible innodb_thread_concurrency", () => {
    const out = render({ scenario: scenarioOf({ config: { set: { innodb_thread_concurrency: 8 } } }) });
    expect(out.asymmetries.join("\n")).toMatch(/MariaDB ≥10.6 cannot throttle/);
  });

  it("lists every option of lab/my.cnf once, with its source line", () => {
    const out = render();
    const base = parseCnf(LAB).sections.find((s) => s.name === "mysqld")!.entries;
    for (const e of base) {
      const entries = out.translation.filter((t) => t.option === e.key);
      expect(entries, e.key).toHaveLength(1);
      expect(entries[0].source).toBe(`lab/my.cnf:${e.line}`);
    }
  });

  it("the cnf text parses back to the rendered options, with dropped options as comments", () => {
    const out = render();
    const back = parseCnf(out.cnf).sections[0].entries.map((e) => ({ name: e.key, value: e.value }));
    expect(back).toEqual(out.options);
    expect(out.cnf).toMatch(
      /^# dropped innodb_additional_mem_pool_size = 32M \(lab\/my\.cnf:\d+\): removed in MariaDB 10\.2\.2/m,
    );
    expect(out.cnf).toMatch(/^# Rendered by twinbench from lab\/my\.cnf for server "mariadb" \(MariaDB 11\.8\.9\)/);
  });

  it.each([
    [{ serverId: "nope" }, "CONFIG_UNKNOWN_SERVER", /server "nope" is not in scenario "t"/],
    [
      { scenario: scenarioOf({ config: { set: { innodb_redo_log_capacity: "lots" } } }) },
      "CONFIG_BAD_VALUE",
      /config\.set: innodb_redo_log_capacity=lots/,
    ],
    [{ version: "unknown" }, "CONFIG_BAD_VERSION", /"unknown"/],
  ] as const)("errors name the offending value (%#)", (over, code, message) => {
    let err: unknown;
    try {
      render(over as Partial<RenderInput>);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).code).toBe(code);
    expect((err as InputError).message).toMatch(message);
    expect((err as InputError).hint).toBeTruthy();
  });
});

describe("renderConfig: the configs the fixtures were recorded with", () => {
  // The scenario of test/fixtures/variables/*.tsv (scenarios/quick.yaml at recording time). If this fails, the
  // renderer or lab/my.cnf changed: re-run the real servers and re-record (see test/fixtures/variables/README.md).
  const quick = ScenarioSchema.parse({
    name: "quick",
    servers: [
      { id: "mariadb", image: "mariadb-11.8" },
      { id: "mysql", image: "mysql-9.7" },
    ],
    config: { base: "lab/my.cnf", set: { innodb_buffer_pool_size: "512M" } },
    storage: { kind: "tmpfs", size: "2g" },
    workload: { tests: ["oltp_read_only"], threads: [1, 4] },
  });
  const cases: Array<[string, Family, string, string, "neutral" | "durable"]> = [];
  for (const storage of ["tmpfs", "volume"])
    for (const profile of ["neutral", "durable"] as const)
      for (const [family, version] of [
        ["mariadb", "11.8.9"],
        ["mysql", "9.7.4"],
        ["mariadb", "10.11.19"],
      ] as const)
        cases.push([
          `${family}-${version}-${storage}${profile === "durable" ? "-durable" : ""}`,
          family,
          version,
          storage,
          profile,
        ]);

  it.each(cases)("%s", (name, family, version, storage, profile) => {
    const recorded = readFileSync(`test/fixtures/variables/${name}.cnf`, "utf8");
    const scenario = { ...quick, config: { ...quick.config, profile } };
    const out = renderConfig({
      neutral: LAB,
      family,
      version,
      storageKind: storage as "tmpfs",
      scenario,
      serverId: family,
    });
    const options = (t: string) =>
      parseCnf(t)
        .sections.find((s) => s.name === "mysqld")!
        .entries.map((e) => [e.key, e.value]);
    expect(options(out.cnf)).toEqual(options(recorded));
  });
});
