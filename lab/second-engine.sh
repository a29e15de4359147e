#!/usr/bin/env bash
# A second Docker engine on this machine, for the multi-host tests and for trying a multi-host run by hand:
#   lab/second-engine.sh start     start it (idempotent): unix:///run/tb-dockerd2.sock and tcp://127.0.0.2:2375
#   lab/second-engine.sh stop      stop it (TERM, then KILL), delete its bridge; its data root is kept
#   lab/second-engine.sh kill      SIGKILL the daemon and its containerd now ("the host dies mid-run")
#   lab/second-engine.sh status    exit 0 when it answers
#   lab/second-engine.sh purge     stop, then delete its data root (images sent to it are gone)
#   lab/second-engine.sh send IMG… docker save IMG on the first engine | docker load on this one
#
# TB_ENGINE2_ROOT=DIR runs the dockerd, containerd and runc unpacked under DIR (usr/sbin, usr/bin) instead of the
# installed ones: lab/current-engine.sh fetch unpacks a current Debian docker.io there, never replacing the host's.
#
# It has its own --data-root, --exec-root, --pidfile and socket, --iptables=false --ip-masq=false, and its own
# bridge (created here first). Never --bridge=none: a daemon started with it deletes the host's docker0, which
# breaks the first engine. Never --default-address-pool either: dockerd 20.10 then deletes the interface named
# docker0 on every restart (it "clears the stale bridge network" and, when address pools are configured without
# live-restore, calls removeDefaultBridgeInterface(), whatever --bridge says). This was seen on this machine too.
# User networks on this engine take subnets from the default pools; dockerd skips subnets that already have a route
# on the host, i.e. those the first engine uses. As a safety net, start puts back a docker0 that vanished.
#
# Containers on one of this engine's networks reach each other only through a firewall rule added here: the first
# engine (iptables enabled) loads br_netfilter, so bridged traffic crosses iptables' FORWARD chain, whose policy it
# sets to DROP, and it accepts only its own bridges; this engine (--iptables=false) adds nothing for its own. Without
# the rule, a name resolves (the embedded DNS answers) but the TCP connection gets no answer: a run's bridge transport
# (sysbench to the server by container name) fails with MySQL error 2002. start inserts one FORWARD rule accepting
# bridged traffic (-m physdev --physdev-is-bridged: frames between two ports of one bridge; the first engine already
# accepts those on its own bridges), tagged with this engine's name; stop deletes it.
set -euo pipefail

NAME=${TB_ENGINE2_NAME:-tb-dockerd2}
BRIDGE=${TB_ENGINE2_BRIDGE:-tbbr2}
BRIDGE_CIDR=${TB_ENGINE2_BRIDGE_CIDR:-10.222.0.1/24}
ADDR=${TB_ENGINE2_ADDR:-127.0.0.2:2375}
DATA_ROOT=${TB_ENGINE2_DATA_ROOT:-/var/lib/$NAME}
EXEC_ROOT=/run/$NAME
SOCK=/run/$NAME.sock
PIDFILE=/run/$NAME.pid
LOG=${TB_ENGINE2_LOG:-/var/log/$NAME.log}
ENGINE_ROOT=${TB_ENGINE2_ROOT:-}

d2() { docker -H "unix://$SOCK" "$@"; }

# The FORWARD rule that lets this engine's containers talk to each other over its bridges (see above).
FWD_RULE=(FORWARD -m physdev --physdev-is-bridged -m comment --comment "$NAME: bridged traffic" -j ACCEPT)
allow_bridged() {
  command -v iptables >/dev/null 2>&1 || return 0
  iptables -C "${FWD_RULE[@]}" 2>/dev/null || iptables -I "${FWD_RULE[@]}"
}
disallow_bridged() {
  command -v iptables >/dev/null 2>&1 || return 0
  while iptables -C "${FWD_RULE[@]}" 2>/dev/null; do iptables -D "${FWD_RULE[@]}"; done
}

answers() { [ -S "$SOCK" ] && d2 version --format '{{.Server.Version}}' >/dev/null 2>&1; }

# A live (not zombie) process.
alive() {
  local pid=$1 state
  [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] || return 1
  state=$(sed -E 's/^[0-9]+ \(.*\) ([A-Za-z]).*/\1/' "/proc/$pid/stat" 2>/dev/null) || return 1
  [ "$state" != "Z" ] && [ "$state" != "X" ]
}

daemon_pid() {
  [ -f "$PIDFILE" ] || return 1
  local pid
  pid=$(cat "$PIDFILE")
  alive "$pid" && echo "$pid"
}

containerd_pid() {
  local f="$EXEC_ROOT/containerd/containerd.pid"
  [ -f "$f" ] || return 1
  local pid
  pid=$(cat "$f")
  alive "$pid" && echo "$pid"
}

# The first engine's bridge, as it is before this engine starts (name, address), to put it back if it vanishes.
DOCKER0_CIDR=""
remember_docker0() {
  DOCKER0_CIDR=$(ip -4 -o addr show dev docker0 2>/dev/null | awk '{ print $4; exit }') || true
}
guard_docker0() {
  [ -n "$DOCKER0_CIDR" ] || return 0
  if ! ip link show docker0 >/dev/null 2>&1; then
    echo "$NAME: WARNING: docker0 vanished while this engine started; recreating it ($DOCKER0_CIDR)" >&2
    ip link add docker0 type bridge && ip addr add "$DOCKER0_CIDR" dev docker0 && ip link set docker0 up
  fi
}

start() {
  allow_bridged
  if answers; then
    echo "$NAME: already running (unix://$SOCK, tcp://$ADDR)"
    return 0
  fi
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
  fi
  local addrs
  addrs=$(ip -4 addr show dev "$BRIDGE")
  case "$addrs" in
    *"inet ${BRIDGE_CIDR%/*}/"*) ;;
    *) ip addr add "$BRIDGE_CIDR" dev "$BRIDGE" ;;
  esac
  ip link set "$BRIDGE" up
  mkdir -p "$DATA_ROOT" "$EXEC_ROOT" "$(dirname "$LOG")"
  # A killed daemon leaves its pid file; dockerd refuses to start while it names a live process.
  if [ -f "$PIDFILE" ] && ! daemon_pid >/dev/null; then rm -f "$PIDFILE"; fi
  # Same for its containerd: dockerd takes a zombie (kill -0 works on it) for a live containerd and waits for ever.
  if [ -f "$EXEC_ROOT/containerd/containerd.pid" ] && ! containerd_pid >/dev/null; then
    rm -f "$EXEC_ROOT/containerd/containerd.pid" "$EXEC_ROOT/containerd/containerd.sock" "$EXEC_ROOT/containerd/containerd.sock.ttrpc"
  fi
  remember_docker0
  # setsid: the daemon outlives this script and is not in the caller's process group (no Ctrl-C from the caller).
  # With TB_ENGINE2_ROOT, its own dockerd first on PATH, so that it also starts its own containerd and runc.
  local path=$PATH
  if [ -n "$ENGINE_ROOT" ]; then
    [ -x "$ENGINE_ROOT/usr/sbin/dockerd" ] || { echo "$NAME: no dockerd under $ENGINE_ROOT (lab/current-engine.sh fetch)" >&2; return 1; }
    path="$ENGINE_ROOT/usr/sbin:$ENGINE_ROOT/usr/bin:$ENGINE_ROOT/usr/libexec/docker:$PATH"
  fi
  # In a subshell that first closes every descriptor it inherited above 2: a daemon that kept one would hold the
  # caller's files open for its whole life (the shared flock of a `flock LOCK lab/second-engine.sh start` among them,
  # which then stays taken until the engine stops).
  (
    for fd in /proc/$BASHPID/fd/*; do
      n=${fd##*/}
      [ "$n" -gt 2 ] && eval "exec $n>&-"
    done
    PATH=$path exec setsid dockerd \
      --data-root "$DATA_ROOT" \
      --exec-root "$EXEC_ROOT" \
      --pidfile "$PIDFILE" \
      -H "unix://$SOCK" -H "tcp://$ADDR" \
      --iptables=false --ip-masq=false \
      --bridge="$BRIDGE" \
      >>"$LOG" 2>&1 </dev/null
  ) &
  for _ in $(seq 1 120); do
    if answers; then
      guard_docker0
      echo "$NAME: running (unix://$SOCK, tcp://$ADDR, data root $DATA_ROOT, bridge $BRIDGE)"
      return 0
    fi
    sleep 0.5
  done
  guard_docker0
  echo "$NAME: did not answer within 60 s; last log lines ($LOG):" >&2
  tail -n 20 "$LOG" >&2 || true
  return 1
}

wait_gone() {
  local pid=$1 n=$2
  for _ in $(seq 1 "$n"); do
    alive "$pid" || return 0
    sleep 0.5
  done
  return 1
}

stop() {
  local pid cpid
  # A killed daemon left its containerd and containers: start it again so that it stops them properly.
  if ! daemon_pid >/dev/null && containerd_pid >/dev/null; then
    echo "$NAME: daemon dead but its containerd lives: restarting the daemon to shut down cleanly"
    start || true
  fi
  if pid=$(daemon_pid); then
    kill -TERM "$pid"
    if ! wait_gone "$pid" 60; then
      echo "$NAME: daemon $pid did not stop within 30 s: SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  if cpid=$(containerd_pid); then
    kill -TERM "$cpid" 2>/dev/null || true
    wait_gone "$cpid" 20 || kill -KILL "$cpid" 2>/dev/null || true
  fi
  rm -f "$SOCK" "$PIDFILE"
  # Mounts the daemon left under its roots (overlay, netns) would keep the data root busy.
  { grep -oE " ($EXEC_ROOT|$DATA_ROOT)[^ ]*" /proc/mounts || true; } | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  if ip link show "$BRIDGE" >/dev/null 2>&1; then ip link del "$BRIDGE"; fi
  disallow_bridged
  echo "$NAME: stopped"
}

kill_now() {
  local pid cpid
  if pid=$(daemon_pid); then kill -KILL "$pid"; wait_gone "$pid" 20 || true; fi
  if cpid=$(containerd_pid); then kill -KILL "$cpid"; wait_gone "$cpid" 20 || true; fi
  echo "$NAME: killed"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  kill) kill_now ;;
  status) answers ;;
  purge)
    stop
    rm -rf "$DATA_ROOT"
    echo "$NAME: data root $DATA_ROOT removed"
    ;;
  send)
    shift
    for img in "$@"; do
      echo "$NAME: sending $img"
      docker save "$img" | d2 load
    done
    ;;
  env) echo "DOCKER_HOST=unix://$SOCK" ;;
  *)
    echo "usage: $0 start|stop|kill|status|purge|send IMAGE...|env" >&2
    exit 2
    ;;
esac
