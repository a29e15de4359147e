#!/bin/bash
# twinbench server entrypoint for Debian-packaged MariaDB and MySQL.
#
# Implements the official images' environment interface (MARIADB_* with MYSQL_* as fallback):
#   *_ROOT_PASSWORD, *_ALLOW_EMPTY_ROOT_PASSWORD (also MYSQL_ALLOW_EMPTY_PASSWORD), *_RANDOM_ROOT_PASSWORD,
#   *_ROOT_HOST (default %), *_DATABASE, *_USER, *_PASSWORD; *_FILE variants of the password ones;
#   /docker-entrypoint-initdb.d/*.sql and *.sh.
# On an empty datadir it initialises the server, starts it once without networking on a private socket to create
# the accounts, stops it, and then execs the real server as PID 1 with all given arguments.
#   docker run IMAGE                                  -> server with --defaults-file=/etc/twinbench/my.cnf
#   docker run IMAGE --defaults-file=F --opt=value    -> server with exactly these options
#   docker run IMAGE --opt=value                      -> server with /etc/twinbench/my.cnf plus --opt=value
#   docker run IMAGE bash                             -> bash
set -eo pipefail
shopt -s nullglob

FAMILY="${TWINBENCH_FAMILY:?TWINBENCH_FAMILY is not set}"
SERVER="${TWINBENCH_SERVER:?TWINBENCH_SERVER is not set}"
DEFAULTS_FILE=/etc/twinbench/my.cnf
if [ "$FAMILY" = mariadb ]; then CLIENT=mariadb; else CLIENT=mysql; fi

log() { printf '%s [Entrypoint]: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# env_get NAME: MARIADB_NAME, else MYSQL_NAME (and their _FILE variants), else "".
env_get() {
	local v
	for v in "MARIADB_$1" "MYSQL_$1"; do
		if [ -n "${!v:-}" ]; then printf '%s' "${!v}"; return; fi
		local f="${v}_FILE"
		if [ -n "${!f:-}" ]; then cat -- "${!f}"; return; fi
	done
}

is_server() {
	case "$1" in
		mariadbd | mysqld | /usr/sbin/mariadbd | /usr/sbin/mysqld | "$SERVER") return 0 ;;
	esac
	return 1
}

if [ "$#" -eq 0 ] || [ "${1:0:1}" = '-' ]; then
	set -- "$SERVER" "$@"
fi
if ! is_server "$1"; then
	exec "$@"
fi
# The server reads --defaults-file only as its first option: add ours unless the caller chose one.
case "${2:-}" in
	--defaults-file=* | --defaults-extra-file=* | --no-defaults) ;;
	*) set -- "$1" "--defaults-file=$DEFAULTS_FILE" "${@:2}" ;;
esac

# Drop root: everything below (and the server itself) runs as mysql (uid 999).
# server_var NAME SERVER ARGS...: a variable's value as the server would use it with these options.
server_var() {
	local name="$1"
	shift
	{ "$@" --verbose --help --log-bin-index="$(mktemp -u)" 2>/dev/null || true; } | awk -v k="$name" '/^Variables \(--variable-name=value\)/ { vars = 1 } vars && $1 == k && /^[^ \t]/ { print $2; exit }'
}

if [ "$(id -u)" = 0 ]; then
	DATADIR="$(server_var datadir "$@")"
	SOCKET="$(server_var socket "$@")"
	if [ -z "$DATADIR" ] || [ -z "$SOCKET" ]; then
		log "the server rejected its options:"
		"$@" --verbose --help --log-bin-index="$(mktemp -u)" 2>&1 >/dev/null | tail -n 20 >&2 || true
		exit 1
	fi
	mkdir -p "$DATADIR" "$(dirname "$SOCKET")"
	find "$DATADIR" \! -user mysql -exec chown mysql:mysql '{}' +
	chown mysql:mysql "$(dirname "$SOCKET")"
	chmod 0777 "$(dirname "$SOCKET")"
	exec setpriv --reuid=mysql --regid=mysql --init-groups "$BASH_SOURCE" "$@"
fi

DATADIR="$(server_var datadir "$@")"
[ -n "$DATADIR" ] || die "could not read datadir from: $*"

sql_escape() { local s="${1//\\/\\\\}"; printf '%s' "${s//\'/\\\'}"; }
ident_escape() { printf '%s' "${1//\`/\`\`}"; }

init_datadir() {
	local root_password allow_empty random_root root_host database user password
	root_password="$(env_get ROOT_PASSWORD)"
	allow_empty="$(env_get ALLOW_EMPTY_ROOT_PASSWORD)"
	[ -n "$allow_empty" ] || allow_empty="${MYSQL_ALLOW_EMPTY_PASSWORD:-}"
	random_root="$(env_get RANDOM_ROOT_PASSWORD)"
	root_host="$(env_get ROOT_HOST)"
	root_host="${root_host:-%}"
	database="$(env_get DATABASE)"
	user="$(env_get USER)"
	password="$(env_get PASSWORD)"

	if [ -z "$root_password" ] && [ -z "$allow_empty" ] && [ -z "$random_root" ]; then
		die "the datadir $DATADIR is empty and no root password option is set: set MARIADB_ROOT_PASSWORD (or MYSQL_ROOT_PASSWORD), *_ALLOW_EMPTY_ROOT_PASSWORD=1 or *_RANDOM_ROOT_PASSWORD=1"
	fi
	if [ "$user" = root ]; then
		die "*_USER=root: *_USER and *_PASSWORD create a regular user; set the root password with *_ROOT_PASSWORD"
	fi
	if [ -n "$user" ] && [ -z "$password" ]; then
		die "*_USER=$user is set but *_PASSWORD is empty"
	fi
	if [ -n "$random_root" ] && [ -z "$root_password" ]; then
		root_password="$(head -c 48 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | cut -c1-32)"
		log "GENERATED ROOT PASSWORD: $root_password"
	fi

	log "initialising $FAMILY datadir $DATADIR"
	if [ "$FAMILY" = mariadb ]; then
		# "${@:2}" starts with --defaults-file, so init honours the config (page size, log file size, ...).
		mariadb-install-db "${@:2}" --datadir="$DATADIR" --rpm --auth-root-authentication-method=normal \
			--skip-test-db --cross-bootstrap --skip-log-bin \
			--loose-innodb_buffer_pool_load_at_startup=0 --loose-innodb_buffer_pool_dump_at_shutdown=0 >&2
	else
		"$@" --initialize-insecure --default-time-zone=SYSTEM >&2
	fi

	local sockdir sock pid i
	sockdir="$(mktemp -d)"
	sock="$sockdir/mysqld.sock"
	log "starting a temporary server on $sock (no networking)"
	if [ "$FAMILY" = mariadb ]; then
		"$@" --skip-networking --socket="$sock" --skip-log-bin \
			--loose-innodb_buffer_pool_load_at_startup=0 --loose-innodb_buffer_pool_dump_at_shutdown=0 &
	else
		"$@" --skip-networking --socket="$sock" --mysqlx=OFF --skip-log-bin &
	fi
	pid=$!
	local client=("$CLIENT" --no-defaults --protocol=socket --socket="$sock" -uroot)
	for i in $(seq 600); do
		if "${client[@]}" -e 'SELECT 1' >/dev/null 2>&1; then break; fi
		kill -0 "$pid" 2>/dev/null || die "the temporary server exited during initialisation (its log is above)"
		sleep 0.5
	done
	"${client[@]}" -e 'SELECT 1' >/dev/null || die "the temporary server did not accept connections on $sock within 300 s"

	local rp rh sql
	rp="$(sql_escape "$root_password")"
	rh="$(sql_escape "$root_host")"
	sql="SET @@SESSION.SQL_LOG_BIN=0;
SET @@SESSION.SQL_MODE=REPLACE(@@SESSION.SQL_MODE, 'NO_BACKSLASH_ESCAPES', '');
DROP USER IF EXISTS 'root'@'127.0.0.1', 'root'@'::1';"
	if [ "$root_host" != localhost ]; then
		sql+="
CREATE USER IF NOT EXISTS 'root'@'$rh' IDENTIFIED BY '$rp';
GRANT ALL ON *.* TO 'root'@'$rh' WITH GRANT OPTION;"
		[ "$FAMILY" = mariadb ] && sql+="
GRANT PROXY ON ''@'%' TO 'root'@'$rh' WITH GRANT OPTION;"
	fi
	if [ -n "$database" ]; then
		sql+="
CREATE DATABASE IF NOT EXISTS \`$(ident_escape "$database")\`;"
	fi
	if [ -n "$user" ]; then
		sql+="
CREATE USER '$(sql_escape "$user")'@'%' IDENTIFIED BY '$(sql_escape "$password")';"
		[ -n "$database" ] && sql+="
GRANT ALL ON \`$(ident_escape "$database")\`.* TO '$(sql_escape "$user")'@'%';"
	fi
	sql+="
ALTER USER 'root'@'localhost' IDENTIFIED BY '$rp';
FLUSH PRIVILEGES;"
	printf '%s\n' "$sql" | "${client[@]}" || die "setting up the accounts failed"

	local f cnf="$sockdir/client.cnf"
	printf '[client]\nuser=root\npassword="%s"\nsocket=%s\nprotocol=socket\n' "${root_password//\\/\\\\}" "$sock" >"$cnf"
	chmod 0600 "$cnf"
	for f in /docker-entrypoint-initdb.d/*; do
		case "$f" in
			*.sh) log "running $f"; . "$f" ;;
			*.sql) log "running $f"; "$CLIENT" --defaults-file="$cnf" ${database:+"$database"} <"$f" ;;
			*) log "ignoring $f" ;;
		esac
	done

	log "stopping the temporary server"
	kill -TERM "$pid"
	wait "$pid" || die "the temporary server did not stop cleanly"
	rm -rf "$sockdir"
	log "initialisation done"
}

if [ ! -d "$DATADIR/mysql" ]; then
	init_datadir "$@"
fi
exec "$@"
