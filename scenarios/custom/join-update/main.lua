#!/usr/bin/env sysbench
-- twinbench example: your own workload as a sysbench 1.0 Lua script.
--
-- Each event is one transaction over two tables of its own: a customer's orders read through a join, then one of
-- those orders updated. The tables and their rows come from this script's prepare (after twinbench's stock
-- prepare); cleanup drops them. The helper module schema.lua sits in the same folder: twinbench copies the whole
-- folder into the load container and puts it first on LUA_PATH, so require("schema") finds it.
--
-- Options of its own go under workload.sysbench in the scenario (here: customers).

local schema = require("schema")

sysbench.cmdline.options = {
  customers = { "number of customers (each has " .. schema.ORDERS_PER_CUSTOMER .. " orders)", 1000 },
}

function prepare()
  local con = sysbench.sql.driver():connect()
  schema.create(con, sysbench.opt.customers)
  con:disconnect()
end

function cleanup()
  local con = sysbench.sql.driver():connect()
  schema.drop(con)
  con:disconnect()
end

function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
end

function thread_done()
  con:disconnect()
end

function event()
  local c = sysbench.rand.default(1, sysbench.opt.customers)
  con:query("BEGIN")
  con:query(string.format(
    "SELECT c.name, COUNT(*), SUM(o.amount) FROM tb_customer c JOIN tb_order o ON o.customer_id = c.id " ..
    "WHERE c.id = %d GROUP BY c.id, c.name", c))
  con:query(string.format(
    "UPDATE tb_order SET amount = amount + 1 WHERE customer_id = %d AND slot = %d",
    c, sysbench.rand.uniform(1, schema.ORDERS_PER_CUSTOMER)))
  con:query("COMMIT")
end
