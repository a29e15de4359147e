import { validateScenario } from "./src/core/scenario/validate.ts";
const ctx = { lockImages: ["mariadb-11.8", "mariadb-10.11", "mysql-9.7", "sysbench-1.0"], hostCpus: 2 };
const base = () => ({ name: "x", servers: [{ id: "mariadb", image: "mariadb-11.8" }, { id: "mysql", image: "mysql-9.7" }],
  workload: { tests: ["oltp_read_only"], threads: [1, 2], duration: "10s" } });
const cases: any[] = [
  { workload: { tests: ["oltp_read_only"], threads: [1, 2, "8x"], duration: "10s", tabels: 3 }, ordr: "grouped" },
  { order: "grouped2", storage: { kind: "tmpfz" }, workload: { tests: ["oltp_red_only", "oltp_simple"], threads: [0, 1.5], duration: "10q", fresh: "per_test" } },
  { compare: "host", servers: [{ id: "a", image: "mysql-9.8", imgae: 1 }] },
  { workload: { threads: [1] } },
  { resources: { server: { cpuset: "1-3", memory: "1g" }, load: { cpuset: "1" } }, storage: { kind: "tmpfs", size: "2g" } },
  { storage: { kind: "raid0" }, config: { set: { max_connections: 5 } }, workload: { tests: ["oltp_read_only"], threads: [1], events: 100, duration: "5s", sysbench: { "oltp-table-size": 100, oltp_point_selects: 5, "mysql-engine-trx": "yes", "rand-typ": "x", "db-ps-mode": "off", "warmup-time": 3, "threads": 4, "oltp-test-mode": "complex" } } },
];
for (const c of cases) { const r = validateScenario({ ...base(), ...c }, "scenarios/x.yaml", ctx); console.log(JSON.stringify(r, null, 1)); }
