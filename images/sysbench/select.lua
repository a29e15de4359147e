#!/usr/bin/env sysbench
-- twinbench: the legacy sysbench 0.5 `select` test, for sysbench 1.0.20.
--
-- 0.5's select.lua ran, per event, the text query
--   SELECT pad FROM sbtestN WHERE id=<sb_rand(1, oltp_table_size)>
-- on a table picked uniformly from 1..oltp_tables_count, with no transaction around it. This does the same with
-- 1.0's API: tables come from oltp_common (prepare / prewarm / cleanup and --tables, --table-size), the table
-- number from sysbench.rand.uniform, the id from sysbench.rand.default (--rand-type), sent as a text query.

require("oltp_common")

-- oltp_common's thread_init calls this; the test uses no prepared statements.
function prepare_statements()
end

function event()
  local table_num = sysbench.rand.uniform(1, sysbench.opt.tables)
  local id = sysbench.rand.default(1, sysbench.opt.table_size)
  con:query(string.format("SELECT pad FROM sbtest%d WHERE id=%d", table_num, id))
end
