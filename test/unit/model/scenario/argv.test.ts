import { describe, expect, it } from "vitest";
import { sysbenchArgv, redactArgv, type SysbenchArgvInput } from "../../../../src/core/model/scenario/argv.ts";

const base = (over: Partial<SysbenchArgvInput> = {}): SysbenchArgvInput => ({
  script: "oltp_read_only",
  command: "run",
  workload: { engine: "innodb", tables: 4, tableSize: 10000, sysbench: {} },
  threads: 4,
  durationSeconds: 10,
  connection: { socket: "/run/mysqld/mysqld.sock", user: "sbtest", password: "s3cret", db: "sbtest" },
  percentile: 95,
  histogram: false,
  ...over,
});
const common = [
  "--db-driver=mysql",
  "--mysql-socket=/run/mysqld/mysqld.sock",
  "--mysql-user=sbtest",
  "--mysql-password=s3cret",
  "--mysql-db=sbtest",
  "--mysql-storage-engine=innodb",
  "--tables=4",
  "--table-size=10000",
  "--threads=4",
];

describe("sysbenchArgv", () => {
  const cases: Array<[string, Partial<SysbenchArgvInput>, string[]]> = [
    [
      "run by duration",
      {},
      ["oltp_read_only", ...common, "--time=10", "--events=0", "--report-interval=1", "--percentile=95", "run"],
    ],
    [
      "run by events: --time=0",
      { events: 20000, durationSeconds: undefined },
      ["oltp_read_only", ...common, "--time=0", "--events=20000", "--report-interval=1", "--percentile=95", "run"],
    ],
    [
      "events win over a duration",
      { events: 100 },
      ["oltp_read_only", ...common, "--time=0", "--events=100", "--report-interval=1", "--percentile=95", "run"],
    ],
    [
      "histogram",
      { histogram: true, percentile: 99 },
      [
        "oltp_read_only",
        ...common,
        "--time=10",
        "--events=0",
        "--report-interval=1",
        "--percentile=99",
        "--histogram=on",
        "run",
      ],
    ],
    ["prepare: no time, no report", { command: "prepare" }, ["oltp_read_only", ...common, "prepare"]],
    ["prewarm", { command: "prewarm" }, ["oltp_read_only", ...common, "prewarm"]],
    ["cleanup", { command: "cleanup" }, ["oltp_read_only", ...common, "cleanup"]],
    [
      "legacy select by path",
      { script: "select", command: "cleanup" },
      ["/usr/share/sysbench/select.lua", ...common, "cleanup"],
    ],
    [
      "extras: booleans on/off, names dashed",
      {
        command: "prepare",
        workload: {
          engine: "myisam",
          tables: 4,
          tableSize: 10000,
          sysbench: { "db-ps-mode": "disable", skip_trx: true, "auto-inc": false, "point-selects": 50 },
        },
      },
      [
        "oltp_read_only",
        ...common.map((a) => a.replace("=innodb", "=myisam")),
        "--db-ps-mode=disable",
        "--skip-trx=on",
        "--auto-inc=off",
        "--point-selects=50",
        "prepare",
      ],
    ],
    [
      "tcp connection",
      { command: "cleanup", connection: { host: "127.0.0.1", port: 3306, user: "u", password: "p", db: "d" } },
      [
        "oltp_read_only",
        "--db-driver=mysql",
        "--mysql-host=127.0.0.1",
        "--mysql-port=3306",
        "--mysql-user=u",
        "--mysql-password=p",
        "--mysql-db=d",
        "--mysql-storage-engine=innodb",
        "--tables=4",
        "--table-size=10000",
        "--threads=4",
        "cleanup",
      ],
    ],
    [
      "managed options in extras never override",
      {
        command: "cleanup",
        workload: { engine: "innodb", tables: 4, tableSize: 10000, sysbench: { threads: 99, "mysql-password": "x" } },
      },
      ["oltp_read_only", ...common, "cleanup"],
    ],
  ];
  it.each(cases)("%s", (_n, over, expected) => expect(sysbenchArgv(base(over))).toEqual(expected));

  it("redacts the password", () => {
    expect(redactArgv(sysbenchArgv(base()))).toContain("--mysql-password=***");
    expect(redactArgv(sysbenchArgv(base())).join(" ")).not.toContain("s3cret");
  });
});
