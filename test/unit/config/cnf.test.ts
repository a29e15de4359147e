import { describe, expect, it } from "vitest";
import { formatCnfLine, normalizeOptionName, parseCnf, parseVariablesTsv } from "../../../src/core/config/cnf.ts";
import { InputError } from "../../../src/core/base/errors.ts";
import { compareVersions, parseVersion } from "../../../src/core/config/version.ts";

describe("parseCnf", () => {
  it("reads sections, values, bare flags, inline comments and quotes", () => {
    const cnf = parseCnf(
      [
        "# header",
        "[mysqld]",
        "innodb_buffer_pool_size = 1024M   # seed value",
        "skip-log-bin",
        "skip_name_resolve # flag with a comment",
        'init_connect = "SET a=1 # not a comment"',
        "character_set_collations = utf8mb4=utf8mb4_general_ci",
        "loose-innodb_snapshot_isolation = OFF",
        "--thread_cache=512",
        "; semicolon comment",
        "[client]",
        "socket = /run/mysqld/mysqld.sock",
      ].join("\n"),
    );
    expect(cnf.sections.map((s) => s.name)).toEqual(["mysqld", "client"]);
    const e = cnf.sections[0].entries;
    expect(e.map((x) => [x.key, x.value])).toEqual([
      ["innodb_buffer_pool_size", "1024M"],
      ["skip_log_bin", null],
      ["skip_name_resolve", null],
      ["init_connect", "SET a=1 # not a comment"],
      ["character_set_collations", "utf8mb4=utf8mb4_general_ci"],
      ["innodb_snapshot_isolation", "OFF"],
      ["thread_cache", "512"],
    ]);
    expect(e[0]).toMatchObject({ rawKey: "innodb_buffer_pool_size", line: 3, comment: "seed value", loose: false });
    expect(e[5].loose).toBe(true);
  });

  it.each([
    ["option before any section", "innodb_buffer_pool_size=1G", "CONFIG_NO_SECTION"],
    ["!include", "[mysqld]\n!includedir /etc/mysql/conf.d", "CONFIG_INCLUDE_UNSUPPORTED"],
    ["garbage", "[mysqld]\nthis is not an option", "CONFIG_BAD_LINE"],
  ])("refuses %s", (_what, text, code) => {
    let err: unknown;
    try {
      parseCnf(text, "lab/my.cnf");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).code).toBe(code);
    expect((err as InputError).message).toMatch(/^lab\/my\.cnf:\d+: /);
  });

  it.each([
    ["skip-log-bin", "skip_log_bin"],
    ["Innodb-Buffer-Pool-Size", "innodb_buffer_pool_size"],
    ["loose-innodb_snapshot_isolation", "innodb_snapshot_isolation"],
    ["--thread_cache", "thread_cache"],
  ])("normalizeOptionName(%s) = %s", (raw, norm) => {
    expect(normalizeOptionName(raw)).toBe(norm);
  });

  it.each([
    ["a", null, "a"],
    ["a", "1G", "a = 1G"],
    ["a", "x y", 'a = "x y"'],
    ["a", "", 'a = ""'],
    ["character_set_collations", "utf8mb4=utf8mb4_general_ci", "character_set_collations = utf8mb4=utf8mb4_general_ci"],
  ])("formatCnfLine(%s, %s)", (name, value, line) => {
    expect(formatCnfLine(name, value)).toBe(line);
    if (value !== null) expect(parseCnf(`[x]\n${line}`).sections[0].entries[0].value).toBe(value);
  });
});

describe("parseVariablesTsv", () => {
  it("reads mysql -N -B output with escapes and an optional header", () => {
    const v = parseVariablesTsv("Variable_name\tValue\nA\t1\nb\tx\\ty\\nz\\\\\nempty\t\n");
    expect(v).toEqual({ a: "1", b: "x\ty\nz\\", empty: "" });
  });
});

describe("versions", () => {
  it.each([
    ["11.8.9-MariaDB-4", { major: 11, minor: 8, patch: 9 }],
    ["9.7.4-2", { major: 9, minor: 7, patch: 4 }],
    ["8.0", { major: 8, minor: 0, patch: 0 }],
  ])("parseVersion(%s)", (text, v) => expect(parseVersion(text)).toEqual(v));

  it("orders versions numerically", () => {
    expect(compareVersions("10.11.19", "10.6.0")).toBeGreaterThan(0);
    expect(compareVersions("8.0.30", "8.0.30")).toBe(0);
    expect(compareVersions("8.0.3", "8.0.30")).toBeLessThan(0);
  });

  it("names a bad version", () => {
    expect(() => parseVersion("latest")).toThrow(/"latest"/);
  });
});
