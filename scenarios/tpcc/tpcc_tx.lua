-- TPC-C-like workload (twinbench): the five transactions of clause 2, without keying or think times (as HammerDB's
-- TPROC-C and sysbench-tpcc run them). Each takes the connection, sysbench's random generator and the scale.
local common = require("tpcc_common")
local M = {}

local function row(con, sql, ...)
  return con:query_row(string.format(sql, ...))
end

local function exec(con, sql, ...)
  con:query(string.format(sql, ...))
end

-- Clause 2.5.2.2 / 2.6.2.2: a customer by last name is the one in the middle of those with that name, by c_first.
local function customer_by_name(con, w, d, last)
  local rs = con:query(string.format(
    "SELECT c_id FROM customer WHERE c_w_id=%d AND c_d_id=%d AND c_last='%s' ORDER BY c_first", w, d, last))
  local n = rs.nrows
  if n == 0 then
    return nil
  end
  local pick = math.ceil(n / 2)
  local id
  for i = 1, pick do
    id = rs:fetch_row()[1]
  end
  return tonumber(id)
end

local function pick_customer(con, rand, o, w, d)
  if rand(1, 100) <= 60 then
    local id = customer_by_name(con, w, d, common.random_last_name(rand, o.customers))
    if id then
      return id
    end
  end
  return common.nurand(rand, 1023, 1, o.customers, common.C_ID)
end

-- Clause 2.4: New-Order. 1% of them name an unused item on their last line and roll back (clause 2.4.1.4).
function M.new_order(con, rand, o, w)
  local d = rand(1, common.DISTRICTS)
  local c = common.nurand(rand, 1023, 1, o.customers, common.C_ID)
  local ol_cnt = rand(5, 15)
  local rollback = rand(1, 100) == 1
  local lines = {}
  local all_local = 1
  for n = 1, ol_cnt do
    local i_id = common.nurand(rand, 8191, 1, o.items, common.OL_I_ID)
    if rollback and n == ol_cnt then
      i_id = o.items + 1 -- unused: no such item
    end
    local supply = w
    if o.warehouses > 1 and rand(1, 100) == 1 then
      repeat
        supply = rand(1, o.warehouses)
      until supply ~= w
      all_local = 0
    end
    lines[n] = { i_id = i_id, supply = supply, qty = rand(1, 10) }
  end
  con:query("BEGIN")
  row(con, "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id=%d AND c_w_id=w_id AND c_d_id=%d AND c_id=%d", w, d, c)
  local next_o_id = row(con, "SELECT d_next_o_id, d_tax FROM district WHERE d_w_id=%d AND d_id=%d FOR UPDATE", w, d)
  next_o_id = tonumber(next_o_id)
  exec(con, "UPDATE district SET d_next_o_id=%d WHERE d_w_id=%d AND d_id=%d", next_o_id + 1, w, d)
  exec(con, "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES (%d,%d,%d,%d,NOW(),%d,%d)",
    next_o_id, d, w, c, ol_cnt, all_local)
  exec(con, "INSERT INTO new_orders (no_o_id, no_d_id, no_w_id) VALUES (%d,%d,%d)", next_o_id, d, w)
  for n, l in ipairs(lines) do
    local price = row(con, "SELECT i_price, i_name, i_data FROM item WHERE i_id=%d", l.i_id)
    if price == nil then
      con:query("ROLLBACK")
      return "rollback"
    end
    local qty = tonumber((row(con, string.format(
      "SELECT s_quantity, s_data, s_dist_%02d FROM stock WHERE s_i_id=%%d AND s_w_id=%%d FOR UPDATE", d), l.i_id, l.supply)))
    local new_qty = qty - l.qty >= 10 and qty - l.qty or qty - l.qty + 91
    exec(con, "UPDATE stock SET s_quantity=%d, s_ytd=s_ytd+%d, s_order_cnt=s_order_cnt+1, s_remote_cnt=s_remote_cnt+%d WHERE s_i_id=%d AND s_w_id=%d",
      new_qty, l.qty, l.supply == w and 0 or 1, l.i_id, l.supply)
    exec(con, "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) " ..
      "VALUES (%d,%d,%d,%d,%d,%d,%d,%.2f,'%s')", next_o_id, d, w, n, l.i_id, l.supply, l.qty, l.qty * tonumber(price),
      common.astring(rand, 24, 24))
  end
  con:query("COMMIT")
  return "new_order"
end

-- Clause 2.5: Payment. 85% pay at their home district, 15% at another warehouse (clause 2.5.1.2).
function M.payment(con, rand, o, w)
  local d = rand(1, common.DISTRICTS)
  local c_w, c_d = w, d
  if o.warehouses > 1 and rand(1, 100) > 85 then
    repeat
      c_w = rand(1, o.warehouses)
    until c_w ~= w
    c_d = rand(1, common.DISTRICTS)
  end
  local amount = rand(100, 500000) / 100
  con:query("BEGIN")
  exec(con, "UPDATE warehouse SET w_ytd=w_ytd+%.2f WHERE w_id=%d", amount, w)
  row(con, "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse WHERE w_id=%d", w)
  exec(con, "UPDATE district SET d_ytd=d_ytd+%.2f WHERE d_w_id=%d AND d_id=%d", amount, w, d)
  row(con, "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district WHERE d_w_id=%d AND d_id=%d", w, d)
  local c = pick_customer(con, rand, o, c_w, c_d)
  local credit = select(3, row(con, "SELECT c_first, c_middle, c_credit, c_balance FROM customer WHERE c_w_id=%d AND c_d_id=%d AND c_id=%d FOR UPDATE", c_w, c_d, c))
  if credit == "BC" then
    exec(con, "UPDATE customer SET c_balance=c_balance-%.2f, c_ytd_payment=c_ytd_payment+%.2f, c_payment_cnt=c_payment_cnt+1, " ..
      "c_data=LEFT(CONCAT('%d %d %d %d %d %.2f ', c_data), 500) WHERE c_w_id=%d AND c_d_id=%d AND c_id=%d",
      amount, amount, c, c_d, c_w, d, w, amount, c_w, c_d, c)
  else
    exec(con, "UPDATE customer SET c_balance=c_balance-%.2f, c_ytd_payment=c_ytd_payment+%.2f, c_payment_cnt=c_payment_cnt+1 " ..
      "WHERE c_w_id=%d AND c_d_id=%d AND c_id=%d", amount, amount, c_w, c_d, c)
  end
  exec(con, "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (%d,%d,%d,%d,%d,NOW(),%.2f,'%s')",
    c, c_d, c_w, d, w, amount, common.astring(rand, 12, 24))
  con:query("COMMIT")
  return "payment"
end

-- Clause 2.6: Order-Status (read only).
function M.order_status(con, rand, o, w)
  local d = rand(1, common.DISTRICTS)
  con:query("BEGIN")
  local c = pick_customer(con, rand, o, w, d)
  row(con, "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id=%d AND c_d_id=%d AND c_id=%d", w, d, c)
  local o_id = row(con, "SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id=%d AND o_d_id=%d AND o_c_id=%d ORDER BY o_id DESC LIMIT 1", w, d, c)
  if o_id then
    con:query(string.format("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id=%d AND ol_d_id=%d AND ol_o_id=%d", w, d, tonumber(o_id)))
  end
  con:query("COMMIT")
  return "order_status"
end

-- Clause 2.7: Delivery, run in one database transaction for the ten districts (deferred execution not modelled).
function M.delivery(con, rand, o, w)
  local carrier = rand(1, 10)
  con:query("BEGIN")
  for d = 1, common.DISTRICTS do
    local no = row(con, "SELECT no_o_id FROM new_orders WHERE no_w_id=%d AND no_d_id=%d ORDER BY no_o_id LIMIT 1 FOR UPDATE", w, d)
    if no then
      no = tonumber(no)
      exec(con, "DELETE FROM new_orders WHERE no_w_id=%d AND no_d_id=%d AND no_o_id=%d", w, d, no)
      -- Locking reads: a plain SELECT would read the snapshot of this transaction's first read (REPEATABLE READ),
      -- which may predate the order that the locking read of new_orders just found.
      local c = tonumber((row(con, "SELECT o_c_id FROM orders WHERE o_w_id=%d AND o_d_id=%d AND o_id=%d FOR UPDATE", w, d, no)))
      exec(con, "UPDATE orders SET o_carrier_id=%d WHERE o_w_id=%d AND o_d_id=%d AND o_id=%d", carrier, w, d, no)
      exec(con, "UPDATE order_line SET ol_delivery_d=NOW() WHERE ol_w_id=%d AND ol_d_id=%d AND ol_o_id=%d", w, d, no)
      local total = row(con, "SELECT COALESCE(SUM(ol_amount), 0) FROM order_line WHERE ol_w_id=%d AND ol_d_id=%d AND ol_o_id=%d FOR UPDATE", w, d, no)
      exec(con, "UPDATE customer SET c_balance=c_balance+%s, c_delivery_cnt=c_delivery_cnt+1 WHERE c_w_id=%d AND c_d_id=%d AND c_id=%d",
        total, w, d, c)
    end
  end
  con:query("COMMIT")
  return "delivery"
end

-- Clause 2.8: Stock-Level (read only): distinct items of the district's last 20 orders below the threshold.
function M.stock_level(con, rand, o, w)
  local d = rand(1, common.DISTRICTS)
  local threshold = rand(10, 20)
  con:query("BEGIN")
  local next_o_id = tonumber((row(con, "SELECT d_next_o_id FROM district WHERE d_w_id=%d AND d_id=%d", w, d)))
  row(con, "SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id=%d AND ol_d_id=%d AND ol_o_id<%d AND ol_o_id>=%d " ..
    "AND s_w_id=%d AND s_i_id=ol_i_id AND s_quantity<%d", w, d, next_o_id, next_o_id - 20, w, threshold)
  con:query("COMMIT")
  return "stock_level"
end

return M
