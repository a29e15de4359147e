#!/usr/bin/env sysbench
-- A TPC-C-like workload for sysbench 1.0, shipped with twinbench (scenarios/tpcc.yaml runs it). Written from the
-- TPC-C specification 5.11: the nine tables, their initial population, and the five transactions in the standard
-- mix (45% New-Order, 43% Payment, 4% each Order-Status, Delivery, Stock-Level) with no keying or think time. It is
-- not TPC-C: no audit, no terminals, no response-time limits. docs/workloads.md maps the spec to this code and
-- says what is simplified.
--
--   prepare   creates and loads the tables for --warehouses (reduced sizes with --items, --customers)
--   run       one event = one transaction, dealt from a 100-card deck per thread (exactly the mix per 100)
--   cleanup   drops the tables
--
-- Each thread prints its transaction counts when it ends (a line starting "twinbench.tpcc.mix"), so the mix can be
-- read from the raw output. twinbench reads new-orders per minute from the districts' order counters and checks the
-- spec's consistency conditions 1-4 on the data after each run.

local common = require("tpcc_common")
local load = require("tpcc_load")
local tx = require("tpcc_tx")

local function scale()
  return {
    warehouses = sysbench.opt.warehouses,
    items = sysbench.opt.items,
    customers = sysbench.opt.customers,
  }
end

-- sysbench.rand.uniform is sysbench's own generator (seeded by --rand-seed).
local rand = function(lo, hi)
  return sysbench.rand.uniform(lo, hi)
end

function prepare()
  local con = sysbench.sql.driver():connect()
  load.create(con, rand, scale())
  con:disconnect()
end

function cleanup()
  local con = sysbench.sql.driver():connect()
  load.drop(con)
  con:disconnect()
end

local counts

function thread_init(thread_id)
  drv = sysbench.sql.driver()
  con = drv:connect()
  deck = common.new_deck()
  -- Each thread has a home warehouse (clause 5.5.1.2's terminals are bound to one), spread over the warehouses.
  home = thread_id % sysbench.opt.warehouses + 1
  counts = { new_order = 0, payment = 0, order_status = 0, delivery = 0, stock_level = 0, rollback = 0 }
  o = scale()
end

function thread_done(thread_id)
  print(string.format(
    "twinbench.tpcc.mix thread=%d new_order=%d payment=%d order_status=%d delivery=%d stock_level=%d rollback=%d",
    thread_id, counts.new_order, counts.payment, counts.order_status, counts.delivery, counts.stock_level,
    counts.rollback))
  con:disconnect()
end

-- A deadlock or lock wait (errors sysbench ignores by default) restarts the event: roll back what the statement
-- left open first, so no part of a transaction is ever committed by the next BEGIN.
function sysbench.hooks.before_restart_event(err)
  con:query("ROLLBACK")
end

function event()
  local card = common.deal(deck, rand)
  local outcome = tx[card](con, rand, o, home)
  if outcome == "rollback" then
    -- A rolled-back New-Order still counts as a New-Order in the mix (clause 2.4.2.3 counts it as completed).
    counts.new_order = counts.new_order + 1
    counts.rollback = counts.rollback + 1
  else
    counts[outcome] = counts[outcome] + 1
  end
end
