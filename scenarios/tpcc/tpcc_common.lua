-- TPC-C-like workload for sysbench 1.0 (twinbench): the shared parts. Written from the TPC-C specification 5.11;
-- not an audited TPC-C implementation and its figures are not TPC-C results (docs/workloads.md).
local M = {}

M.DISTRICTS = 10 -- clause 1.2.1: ten districts per warehouse

-- Scale and its reductions (docs/workloads.md: the spec's sizes are the defaults).
sysbench.cmdline.options = {
  warehouses = { "number of warehouses (the scale)", 1 },
  items = { "rows of ITEM and, per warehouse, of STOCK (spec: 100000)", 100000 },
  customers = { "customers per district, and initial orders per district (spec: 3000)", 3000 },
}

-- Clause 2.1.6: NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x, C fixed per run.
M.C_LAST, M.C_ID, M.OL_I_ID = 123, 259, 7911

local function bor(a, b)
  return bit.bor(a, b)
end

function M.nurand(rand, A, x, y, C)
  return ((bor(rand(0, A), rand(x, y)) + C) % (y - x + 1)) + x
end

-- Clause 4.3.2.3: a last name from three syllables of the number's digits.
local SYLLABLES = { "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING" }
function M.last_name(n)
  return SYLLABLES[math.floor(n / 100) % 10 + 1] .. SYLLABLES[math.floor(n / 10) % 10 + 1] .. SYLLABLES[n % 10 + 1]
end

-- The customer number whose last name a transaction looks for: among the customers that exist (scaled).
function M.random_last_name(rand, customers)
  local top = math.min(999, customers - 1)
  return M.last_name(M.nurand(rand, 255, 0, top, M.C_LAST) % (top + 1))
end

-- Clause 5.2.3: the mix, as a deck of 100 cards per thread (45 New-Order, 43 Payment, 4 each of the others),
-- shuffled, dealt in order and shuffled again when empty: every 100 transactions hold exactly that mix.
M.MIX = { { "new_order", 45 }, { "payment", 43 }, { "order_status", 4 }, { "delivery", 4 }, { "stock_level", 4 } }

function M.new_deck()
  local d = {}
  for _, e in ipairs(M.MIX) do
    for _ = 1, e[2] do
      d[#d + 1] = e[1]
    end
  end
  return { cards = d, next = #d + 1 }
end

function M.deal(deck, rand)
  local c = deck.cards
  if deck.next > #c then
    for i = #c, 2, -1 do
      local j = rand(1, i)
      c[i], c[j] = c[j], c[i]
    end
    deck.next = 1
  end
  local card = c[deck.next]
  deck.next = deck.next + 1
  return card
end

-- Random strings (clause 4.3.2.2), from a fixed alphabet.
local ALPHA = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
function M.astring(rand, lo, hi)
  local n = rand(lo, hi)
  local t = {}
  for i = 1, n do
    local k = rand(1, #ALPHA)
    t[i] = ALPHA:sub(k, k)
  end
  return table.concat(t)
end

function M.nstring(rand, lo, hi)
  local n = rand(lo, hi)
  local t = {}
  for i = 1, n do
    t[i] = tostring(rand(0, 9))
  end
  return table.concat(t)
end

-- Clause 4.3.3.1: 10% of I_DATA and S_DATA hold "ORIGINAL" somewhere.
function M.data_string(rand, lo, hi)
  local s = M.astring(rand, lo, hi)
  if rand(1, 10) == 1 then
    local at = rand(1, #s - 8 + 1)
    s = s:sub(1, at - 1) .. "ORIGINAL" .. s:sub(at + 8)
  end
  return s
end

return M
