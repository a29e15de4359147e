#!/usr/bin/env bash
# Re-record the real sysbench 1.0.20 logs in test/fixtures/sysbench/1.0/, the logs the parser's tests read.
#
#   scripts/record-fixtures.sh            # on the host: makes a throwaway container, records, copies, removes it
#   scripts/record-fixtures.sh inside DIR # (used by the above) runs inside the container, writes DIR/*.log
#
# The container is built from BASE_IMAGE (default tbexp-base:bookworm), gets mariadb-server + sysbench from apt,
# and carries the labels twinbench.session / twinbench.run. Each log is sysbench's stdout and stderr merged (2>&1),
# exactly as sysbench prints them. Expected JSON files are NOT written here: they are reviewed by hand
# (test/fixtures/sysbench/**/*.expected.json), so a re-recording shows up as a failing test until re-checked.
set -euo pipefail

OPTS_COMMON=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=sbtest --mysql-password=sbpass
  --mysql-db=sbtest --tables=2 --table-size=2000)

inside() {
  local out=$1
  mkdir -p "$out"
  cd "$out"

  # --- server -------------------------------------------------------------------------------------------------
  cat >/etc/mysql/mariadb.conf.d/99-fixtures.cnf <<'EOF'
[mysqld]
bind-address = 0.0.0.0
skip-name-resolve
innodb_buffer_pool_size = 64M
innodb_flush_log_at_trx_commit = 2
EOF
  start_server
  mariadb -uroot <<'EOF'
CREATE DATABASE sbtest;
CREATE DATABASE sbempty;
CREATE USER 'sbtest'@'127.0.0.1' IDENTIFIED BY 'sbpass';
GRANT ALL ON sbtest.* TO 'sbtest'@'127.0.0.1';
GRANT ALL ON sbempty.* TO 'sbtest'@'127.0.0.1';
CREATE USER 'sbadmin'@'127.0.0.1' IDENTIFIED BY 'sbpass';
GRANT ALL ON *.* TO 'sbadmin'@'127.0.0.1';
EOF
  sysbench oltp_common "${OPTS_COMMON[@]}" prepare >prepare.log 2>&1

  local HIST=(--histogram --percentile=99 --report-interval=1 --time=3)

  # --- the eight tests at two thread counts -------------------------------------------------------------------
  local t th
  for t in oltp_delete oltp_insert oltp_read_only oltp_read_write oltp_point_select oltp_update_index \
    oltp_update_non_index select_random_points; do
    for th in 1 4; do
      run "${t}-t${th}" "$t" "${OPTS_COMMON[@]}" --threads="$th" "${HIST[@]}" run
    done
  done
  # bulk_insert creates its own tables sbtest1..N (CREATE TABLE IF NOT EXISTS) with another schema: own database.
  # Without its own `prepare` it fails: a real log of sysbench truncating a FATAL message at 4095 characters
  # and running the next message on in the same line.
  mariadb -uroot -e 'CREATE DATABASE sbbulk; GRANT ALL ON sbbulk.* TO `sbtest`@`127.0.0.1`;'
  run fail-bulk_insert-unprepared bulk_insert "${OPTS_COMMON[@]}" --mysql-db=sbbulk --threads=2 "${HIST[@]}" run
  sysbench bulk_insert "${OPTS_COMMON[@]}" --mysql-db=sbbulk --threads=2 prepare >/dev/null 2>&1
  run bulk_insert-t2 bulk_insert "${OPTS_COMMON[@]}" --mysql-db=sbbulk --threads=2 "${HIST[@]}" run

  # --- option variants ----------------------------------------------------------------------------------------
  run events-2000 oltp_point_select "${OPTS_COMMON[@]}" --threads=2 --events=2000 --time=0 --histogram run
  run percentile-0 oltp_read_only "${OPTS_COMMON[@]}" --threads=2 --percentile=0 --report-interval=1 --time=3 run
  run percentile-0-histogram oltp_read_only "${OPTS_COMMON[@]}" --threads=2 --percentile=0 --histogram --time=3 run
  run percentile-100 oltp_read_only "${OPTS_COMMON[@]}" --threads=2 --percentile=100 --report-interval=1 --time=3 run
  run default-no-interval oltp_read_write "${OPTS_COMMON[@]}" --threads=2 --time=2 run
  run rate-limited oltp_point_select "${OPTS_COMMON[@]}" --threads=2 --rate=200 --report-interval=1 --time=3 run
  run deprecated-options oltp_point_select "${OPTS_COMMON[@]}" --num-threads=2 --max-time=2 run

  # Forced shutdown: a session holds FLUSH TABLES WITH READ LOCK, the updates block, sysbench gives up after
  # --time + --forced-shutdown seconds and prints "Number of unfinished transactions on forced shutdown".
  ( mariadb -uroot -e 'FLUSH TABLES WITH READ LOCK; SELECT SLEEP(8);' >/dev/null 2>&1 & )
  sleep 1
  run forced-shutdown oltp_update_index "${OPTS_COMMON[@]}" --threads=2 --time=2 --forced-shutdown=1 \
    --report-interval=1 run
  sleep 8

  # --- one log per failure kind --------------------------------------------------------------------------------
  run fail-bad-password oltp_point_select "${OPTS_COMMON[@]}" --mysql-password=wrong --threads=1 --time=2 run
  local ip
  ip=$(hostname -I | awk '{print $1}')
  run fail-host-not-allowed oltp_point_select "${OPTS_COMMON[@]}" --mysql-host="$ip" --threads=1 --time=2 run
  # sbtest has no grant on nosuchdb: MariaDB answers 1044 (access denied to database), not 1049.
  run fail-db-access-denied oltp_point_select "${OPTS_COMMON[@]}" --mysql-db=nosuchdb --threads=1 --time=2 run
  # sbadmin has global grants: 1049 Unknown database.
  run fail-unknown-database oltp_point_select "${OPTS_COMMON[@]}" --mysql-user=sbadmin --mysql-db=nosuchdb \
    --threads=1 --time=2 run
  run fail-missing-table oltp_point_select "${OPTS_COMMON[@]}" --mysql-db=sbempty --threads=1 --time=2 run
  run fail-unknown-host oltp_point_select "${OPTS_COMMON[@]}" --mysql-host=nosuchhost.invalid --threads=1 --time=2 run
  # Usage errors: sysbench prints these to stderr without a FATAL: prefix.
  run fail-invalid-option oltp_point_select "${OPTS_COMMON[@]}" --oltp-table-size=1000 --time=2 run
  run fail-unknown-test nosuchtest "${OPTS_COMMON[@]}" --time=2 run
  run fail-connection-refused oltp_point_select "${OPTS_COMMON[@]}" --mysql-port=3307 --threads=1 --time=2 run
  # Server killed and restarted mid-run while sysbench ignores 2013/2006, so that it reconnects. Debian's
  # sysbench 1.0.20 is linked against libmariadb3, and reconnecting reuses a closed MYSQL handle
  # (akopytov/sysbench#527, fix in PR #528): it segfaults (exit 139), with prepared statements or without, and
  # the log simply stops after the last interval line. So no real log here has non-zero reconnects.
  ( sleep 1.5; kill -9 "$(cat /run/mysqld/mysqld.pid)"; sleep 0.5; start_server ) &
  run crash-reconnect-prepared oltp_point_select "${OPTS_COMMON[@]}" --mysql-ignore-errors=2013,2006 --threads=2 \
    --time=6 --report-interval=1 run
  wait
  ( sleep 1.5; kill -9 "$(cat /run/mysqld/mysqld.pid)"; sleep 0.5; start_server ) &
  run crash-reconnect-ps-disabled oltp_point_select "${OPTS_COMMON[@]}" --mysql-ignore-errors=2013,2006 \
    --db-ps-mode=disable --threads=2 --time=6 --report-interval=1 run
  wait
  # Server killed mid-run: SIGKILL mariadbd after ~2.5 s of a 6 s run.
  ( sleep 2.5; kill -9 "$(cat /run/mysqld/mysqld.pid)" ) &
  run fail-server-killed oltp_read_write "${OPTS_COMMON[@]}" --threads=2 --time=6 --report-interval=1 run
  wait
  rm -f prepare.log
}

start_server() {
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
  # mariadbd itself, not mariadbd-safe: the latter would restart a killed server.
  (mariadbd --user=mysql >/tmp/mariadbd.err 2>&1 &)
  local i
  for i in $(seq 1 60); do
    if mariadb -uroot -e 'SELECT 1' >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  echo "server did not start" >&2
  return 1
}

# run NAME ARGS...: record `sysbench ARGS` (stdout+stderr merged) into NAME.log; NAME.cmd gets the command and
# its exit status.
run() {
  local name=$1
  shift
  printf '%q ' sysbench "$@" >"$name.cmd"
  echo >>"$name.cmd"
  echo "recording $name" >&2
  local rc=0
  sysbench "$@" >"$name.log" 2>&1 || rc=$?
  echo "# exit status: $rc" >>"$name.cmd"
}

host() {
  local root base session
  root=$(cd "$(dirname "$0")/.." && pwd)
  base=${BASE_IMAGE:-tbexp-base:bookworm}
  session=${TWINBENCH_SESSION:-fixtures-$$}
  cid=$(docker run -d --label "twinbench.session=$session" --label twinbench.run=record-fixtures "$base" sleep infinity)
  trap 'docker rm -f "$cid" >/dev/null' EXIT
  # The security suite from the mirror the base image already uses (debootstrap wrote it into sources.list).
  docker exec "$cid" bash -c 'mirror=$(awk "/^deb /{print \$2; exit}" /etc/apt/sources.list) &&
    echo "deb ${mirror%/debian}/debian-security bookworm-security main" >>/etc/apt/sources.list &&
    apt-get -o Acquire::Check-Valid-Until=false update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mariadb-server sysbench procps >/dev/null'
  docker cp "$0" "$cid:/record-fixtures.sh"
  docker exec "$cid" bash /record-fixtures.sh inside /out
  mkdir -p "$root/test/fixtures/sysbench/1.0"
  docker exec "$cid" bash -c 'mariadbd --version; sysbench --version' >"$root/test/fixtures/sysbench/1.0/VERSIONS.txt"
  docker cp "$cid:/out/." "$root/test/fixtures/sysbench/1.0/"
}

case "${1:-}" in
  inside) inside "${2:?output dir}" ;;
  "") host ;;
  *) echo "usage: $0 [inside DIR]" >&2; exit 2 ;;
esac
