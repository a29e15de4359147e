#!/usr/bin/env sysbench
-- twinbench: report what a sysbench connection really is. Uses the normal --mysql-* options, connects once and
-- prints
--   twinbench.ssl_cipher=<Ssl_cipher of the session, empty when not TLS>
--   twinbench.version=<@@version>
--   twinbench.user=<CURRENT_USER()>
-- Run: sysbench tb_conninfo.lua --mysql-host=... run   (or the `conninfo` command: sysbench tb_conninfo.lua conninfo)

local function report()
  local drv = sysbench.sql.driver()
  local con = drv:connect()
  local _, cipher = con:query_row("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
  local version = con:query_row("SELECT @@version")
  local user = con:query_row("SELECT CURRENT_USER()")
  print("twinbench.ssl_cipher=" .. tostring(cipher or ""))
  print("twinbench.version=" .. tostring(version))
  print("twinbench.user=" .. tostring(user))
  io.stdout:flush()
  con:disconnect()
end

sysbench.cmdline.commands = {
  conninfo = { report },
}

local reported = false

-- `run`: one thread reports once; the run is meant for --events=1 --threads=1.
function event()
  if not reported and sysbench.tid == 0 then
    reported = true
    report()
  end
end
