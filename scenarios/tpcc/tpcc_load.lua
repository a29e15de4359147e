-- TPC-C-like workload (twinbench): the nine tables (clause 1.3) and their initial population (clause 4.3.3.1), at
-- the scale of --warehouses (with --items and --customers as reductions of the spec's sizes).
local common = require("tpcc_common")
local M = {}

local TABLES = { "order_line", "new_orders", "orders", "history", "stock", "customer", "district", "warehouse", "item" }

function M.drop(con)
  for _, t in ipairs(TABLES) do
    con:query("DROP TABLE IF EXISTS " .. t)
  end
end

-- Clause 1.3: the tables with their primary keys, and the foreign keys of clause 1.3's relationships.
local DDL = {
  [[CREATE TABLE warehouse (
    w_id SMALLINT NOT NULL, w_name VARCHAR(10), w_street_1 VARCHAR(20), w_street_2 VARCHAR(20), w_city VARCHAR(20),
    w_state CHAR(2), w_zip CHAR(9), w_tax DECIMAL(4,4), w_ytd DECIMAL(12,2), PRIMARY KEY (w_id))]],
  [[CREATE TABLE district (
    d_id TINYINT NOT NULL, d_w_id SMALLINT NOT NULL, d_name VARCHAR(10), d_street_1 VARCHAR(20), d_street_2 VARCHAR(20),
    d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9), d_tax DECIMAL(4,4), d_ytd DECIMAL(12,2), d_next_o_id INT,
    PRIMARY KEY (d_w_id, d_id), FOREIGN KEY (d_w_id) REFERENCES warehouse (w_id))]],
  [[CREATE TABLE customer (
    c_id INT NOT NULL, c_d_id TINYINT NOT NULL, c_w_id SMALLINT NOT NULL, c_first VARCHAR(16), c_middle CHAR(2),
    c_last VARCHAR(16), c_street_1 VARCHAR(20), c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state CHAR(2),
    c_zip CHAR(9), c_phone CHAR(16), c_since DATETIME, c_credit CHAR(2), c_credit_lim DECIMAL(12,2),
    c_discount DECIMAL(4,4), c_balance DECIMAL(12,2), c_ytd_payment DECIMAL(12,2), c_payment_cnt SMALLINT,
    c_delivery_cnt SMALLINT, c_data VARCHAR(500), PRIMARY KEY (c_w_id, c_d_id, c_id),
    KEY idx_customer_name (c_w_id, c_d_id, c_last, c_first),
    FOREIGN KEY (c_w_id, c_d_id) REFERENCES district (d_w_id, d_id))]],
  [[CREATE TABLE history (
    h_id BIGINT NOT NULL AUTO_INCREMENT, h_c_id INT, h_c_d_id TINYINT, h_c_w_id SMALLINT, h_d_id TINYINT,
    h_w_id SMALLINT, h_date DATETIME, h_amount DECIMAL(6,2), h_data VARCHAR(24), PRIMARY KEY (h_id),
    FOREIGN KEY (h_c_w_id, h_c_d_id, h_c_id) REFERENCES customer (c_w_id, c_d_id, c_id),
    FOREIGN KEY (h_w_id, h_d_id) REFERENCES district (d_w_id, d_id))]],
  [[CREATE TABLE orders (
    o_id INT NOT NULL, o_d_id TINYINT NOT NULL, o_w_id SMALLINT NOT NULL, o_c_id INT, o_entry_d DATETIME,
    o_carrier_id TINYINT, o_ol_cnt TINYINT, o_all_local TINYINT, PRIMARY KEY (o_w_id, o_d_id, o_id),
    KEY idx_orders_customer (o_w_id, o_d_id, o_c_id, o_id),
    FOREIGN KEY (o_w_id, o_d_id, o_c_id) REFERENCES customer (c_w_id, c_d_id, c_id))]],
  [[CREATE TABLE new_orders (
    no_o_id INT NOT NULL, no_d_id TINYINT NOT NULL, no_w_id SMALLINT NOT NULL, PRIMARY KEY (no_w_id, no_d_id, no_o_id),
    FOREIGN KEY (no_w_id, no_d_id, no_o_id) REFERENCES orders (o_w_id, o_d_id, o_id))]],
  [[CREATE TABLE item (
    i_id INT NOT NULL, i_im_id INT, i_name VARCHAR(24), i_price DECIMAL(5,2), i_data VARCHAR(50), PRIMARY KEY (i_id))]],
  [[CREATE TABLE stock (
    s_i_id INT NOT NULL, s_w_id SMALLINT NOT NULL, s_quantity SMALLINT, s_dist_01 CHAR(24), s_dist_02 CHAR(24),
    s_dist_03 CHAR(24), s_dist_04 CHAR(24), s_dist_05 CHAR(24), s_dist_06 CHAR(24), s_dist_07 CHAR(24),
    s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd DECIMAL(8,0), s_order_cnt SMALLINT,
    s_remote_cnt SMALLINT, s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id),
    FOREIGN KEY (s_w_id) REFERENCES warehouse (w_id), FOREIGN KEY (s_i_id) REFERENCES item (i_id))]],
  [[CREATE TABLE order_line (
    ol_o_id INT NOT NULL, ol_d_id TINYINT NOT NULL, ol_w_id SMALLINT NOT NULL, ol_number TINYINT NOT NULL,
    ol_i_id INT, ol_supply_w_id SMALLINT, ol_delivery_d DATETIME, ol_quantity TINYINT, ol_amount DECIMAL(6,2),
    ol_dist_info CHAR(24), PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number),
    FOREIGN KEY (ol_w_id, ol_d_id, ol_o_id) REFERENCES orders (o_w_id, o_d_id, o_id),
    FOREIGN KEY (ol_supply_w_id, ol_i_id) REFERENCES stock (s_w_id, s_i_id))]],
}

-- Rows go in batches of multi-row INSERTs; `parent` (a batcher) is flushed first, so a child row never comes
-- before the row its foreign key names.
local function batcher(con, head, parent)
  local rows = {}
  local b = {}
  function b.add(r)
    rows[#rows + 1] = r
    if #rows >= 200 then
      b.flush()
    end
  end
  function b.flush()
    if parent then
      parent.flush()
    end
    if #rows > 0 then
      con:query(head .. table.concat(rows, ","))
      rows = {}
    end
  end
  return b
end

local function q(s)
  return "'" .. s .. "'"
end

local function load_items(con, rand, items)
  local b = batcher(con, "INSERT INTO item (i_id, i_im_id, i_name, i_price, i_data) VALUES ")
  for i = 1, items do
    b.add(string.format("(%d,%d,%s,%d.%02d,%s)", i, rand(1, 10000), q(common.astring(rand, 14, 24)),
      rand(1, 99), rand(0, 99), q(common.data_string(rand, 26, 50))))
  end
  b.flush()
end

local function load_warehouse(con, rand, w, items, customers)
  local function addr()
    return string.format("%s,%s,%s,%s,%s", q(common.astring(rand, 10, 20)), q(common.astring(rand, 10, 20)),
      q(common.astring(rand, 10, 20)), q(common.astring(rand, 2, 2)), q(common.nstring(rand, 4, 4) .. "11111"))
  end
  con:query(string.format("INSERT INTO warehouse VALUES (%d,%s,%s,0.%04d,300000.00)", w,
    q(common.astring(rand, 6, 10)), addr(), rand(0, 2000)))
  local st = batcher(con, "INSERT INTO stock VALUES ")
  for i = 1, items do
    local dists = {}
    for d = 1, 10 do
      dists[d] = q(common.astring(rand, 24, 24))
    end
    st.add(string.format("(%d,%d,%d,%s,0,0,0,%s)", i, w, rand(10, 100), table.concat(dists, ","),
      q(common.data_string(rand, 26, 50))))
  end
  st.flush()
  local undelivered_from = math.floor(customers * 0.7) + 1 -- spec: orders 2101..3000 of 3000 are undelivered
  for d = 1, common.DISTRICTS do
    con:query(string.format("INSERT INTO district VALUES (%d,%d,%s,%s,0.%04d,30000.00,%d)", d, w,
      q(common.astring(rand, 6, 10)), addr(), rand(0, 2000), customers + 1))
    local cb = batcher(con, "INSERT INTO customer VALUES ")
    local hb = batcher(con, "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES ", cb)
    for c = 1, customers do
      local last = c <= 1000 and common.last_name((c - 1) % 1000) or common.random_last_name(rand, customers)
      cb.add(string.format("(%d,%d,%d,%s,'OE',%s,%s,%s,NOW(),%s,50000.00,0.%04d,-10.00,10.00,1,0,%s)", c, d, w,
        q(common.astring(rand, 8, 16)), q(last), addr(), q(common.nstring(rand, 16, 16)),
        rand(1, 10) == 1 and "'BC'" or "'GC'", rand(0, 5000), q(common.astring(rand, 300, 500))))
      hb.add(string.format("(%d,%d,%d,%d,%d,NOW(),10.00,%s)", c, d, w, d, w, q(common.astring(rand, 12, 24))))
    end
    cb.flush()
    hb.flush()
    -- Orders 1..customers, one per customer in a random permutation (clause 4.3.3.1).
    local perm = {}
    for c = 1, customers do
      perm[c] = c
    end
    for i = customers, 2, -1 do
      local j = rand(1, i)
      perm[i], perm[j] = perm[j], perm[i]
    end
    local ob = batcher(con, "INSERT INTO orders VALUES ")
    local nb = batcher(con, "INSERT INTO new_orders VALUES ", ob)
    local lb = batcher(con, "INSERT INTO order_line VALUES ", ob)
    for o = 1, customers do
      local delivered = o < undelivered_from
      local cnt = rand(5, 15)
      ob.add(string.format("(%d,%d,%d,%d,NOW(),%s,%d,1)", o, d, w, perm[o], delivered and tostring(rand(1, 10)) or "NULL", cnt))
      if not delivered then
        nb.add(string.format("(%d,%d,%d)", o, d, w))
      end
      for n = 1, cnt do
        lb.add(string.format("(%d,%d,%d,%d,%d,%d,%s,5,%s,%s)", o, d, w, n, rand(1, items), w,
          delivered and "NOW()" or "NULL", delivered and "0.00" or string.format("%d.%02d", rand(0, 9999), rand(1, 99)),
          q(common.astring(rand, 24, 24))))
      end
    end
    ob.flush()
    nb.flush()
    lb.flush()
  end
end

function M.create(con, rand, o)
  M.drop(con)
  for _, ddl in ipairs(DDL) do
    con:query(ddl .. " ENGINE=" .. (sysbench.opt.mysql_storage_engine or "innodb"))
  end
  con:query("BEGIN")
  load_items(con, rand, o.items)
  con:query("COMMIT")
  for w = 1, o.warehouses do
    con:query("BEGIN")
    load_warehouse(con, rand, w, o.items, o.customers)
    con:query("COMMIT")
  end
end

return M
