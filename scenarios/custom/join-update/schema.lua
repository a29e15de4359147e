-- The example's two tables: customers and their orders (helper of main.lua).
local M = {}

M.ORDERS_PER_CUSTOMER = 4

function M.drop(con)
  con:query("DROP TABLE IF EXISTS tb_order")
  con:query("DROP TABLE IF EXISTS tb_customer")
end

function M.create(con, customers)
  M.drop(con)
  con:query([[CREATE TABLE tb_customer (
    id INT NOT NULL PRIMARY KEY,
    name VARCHAR(40) NOT NULL
  )]])
  con:query([[CREATE TABLE tb_order (
    id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    customer_id INT NOT NULL,
    slot INT NOT NULL,
    amount DECIMAL(12,2) NOT NULL,
    UNIQUE KEY customer_slot (customer_id, slot),
    FOREIGN KEY (customer_id) REFERENCES tb_customer (id)
  )]])
  local batch = 500
  for first = 1, customers, batch do
    local last = math.min(customers, first + batch - 1)
    local cs, os = {}, {}
    for c = first, last do
      cs[#cs + 1] = string.format("(%d, 'customer-%d')", c, c)
      for s = 1, M.ORDERS_PER_CUSTOMER do
        os[#os + 1] = string.format("(%d, %d, %d.00)", c, s, (c * 7 + s * 13) % 1000)
      end
    end
    con:query("INSERT INTO tb_customer (id, name) VALUES " .. table.concat(cs, ","))
    con:query("INSERT INTO tb_order (customer_id, slot, amount) VALUES " .. table.concat(os, ","))
  end
end

return M
