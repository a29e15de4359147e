import { importCmd } from "./src/core/scenario/import-cmd.ts";
const r = importCmd(`/usr/local/site/sysbench/bin/sysbench --max-requests=20000
--num-threads=300 --test=oltp --db-ps-mode=disable
--mysql-table-type=myisam --oltp-read-only=on --oltp-test-mode=complex
--oltp-simple-ranges=0 --oltp-sum-ranges=0 --oltp-order-ranges=0
--oltp-distinct-ranges=0 --oltp-point-selects=50 run`);
console.log(r.yaml); console.log(r.warnings);
const r2 = importCmd(`sysbench --oltp-table-size=2000000 \\
--max-time=300 \\
--max-requests=0 \\
--mysql-table-engine=InnoDB \\
--mysql-user=root \\
--mysql-engine-trx=yes --num-threads=4 --test=tests/db/oltp_simple.lua run`);
console.log(r2.yaml); console.log(r2.warnings);
