#!/usr/bin/env bash
# A current Docker engine beside the installed one, for running the engine tests against two engine versions:
#   lab/current-engine.sh fetch    download docker.io and containerd from a later Debian suite (default sid;
#                                  SUITE=trixie for another) and unpack them under $ROOT (dpkg -x): nothing is
#                                  installed, the host's docker.io stays as it is
#   lab/current-engine.sh start    start it as a second engine (lab/second-engine.sh with its own name, socket,
#                                  data root and bridge): unix:///run/tb-dockerd-current.sock
#   lab/current-engine.sh send-lock-images   send the lock's images (and their bases) from the first engine, those
#                                  it lacks (lab/lock-image-tags.ts lists them)
#   lab/current-engine.sh stop|status|purge|env|send IMG…   as lab/second-engine.sh, for this engine
# The packages come from the Debian mirror the host's own apt sources name, through a private apt state folder
# (the host's package lists are not touched); apt runs with Check-Valid-Until=false for frozen snapshot mirrors.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT=${TB_CURRENT_ROOT:-/var/lib/tb-engine-current}
SUITE=${SUITE:-sid}
export TB_ENGINE2_NAME=tb-dockerd-current
export TB_ENGINE2_BRIDGE=tbbr3
export TB_ENGINE2_BRIDGE_CIDR=10.223.0.1/24
export TB_ENGINE2_ADDR=127.0.0.3:2375
export TB_ENGINE2_ROOT="$ROOT/root"

# The first Debian archive URI of the host's apt sources (deb822 .sources, then one-line .list / sources.list).
host_mirror() {
  local f uri=""
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    uri=$(awk 'tolower($1) == "uris:" { print $2; exit }' "$f")
    [ -n "$uri" ] && { echo "$uri"; return 0; }
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }' "$f")
    [ -n "$uri" ] && { echo "$uri"; return 0; }
  done
  return 1
}

fetch() {
  local mirror state
  mirror=$(host_mirror) || { echo "no Debian source in the host's apt configuration" >&2; return 1; }
  state="$ROOT/apt"
  mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/parts" "$ROOT/debs"
  printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$mirror" "$SUITE" >"$state/parts/current.sources"
  local apt=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$state/parts" -o "Dir::State::Lists=$state/lists"
    -o "Dir::Cache=$state/cache" -o Acquire::Check-Valid-Until=false)
  echo "==> $SUITE from $mirror (the host's apt sources)"
  apt-get "${apt[@]}" update -qq
  rm -rf "$ROOT/debs"/* "$ROOT/root"
  # Not runc: sid's needs a newer glibc than bookworm's (GLIBC_2.38); the engine runs the host's runc instead.
  (cd "$ROOT/debs" && apt-get "${apt[@]}" download docker.io containerd)
  for d in "$ROOT/debs"/*.deb; do dpkg -x "$d" "$ROOT/root"; done
  "$ROOT/root/usr/sbin/dockerd" --version
}

send_lock_images() {
  local sock=unix:///run/$TB_ENGINE2_NAME.sock tag
  for tag in $(DOCKER_HOST= npx tsx "$HERE/lock-image-tags.ts"); do
    if docker -H "$sock" image inspect "$tag" >/dev/null 2>&1; then continue; fi
    echo "$TB_ENGINE2_NAME: sending $tag"
    docker save "$tag" | docker -H "$sock" load -q
  done
}

case "${1:-}" in
  fetch) fetch ;;
  send-lock-images) send_lock_images ;;
  start | stop | status | purge | env | kill | send) exec bash "$HERE/second-engine.sh" "$@" ;;
  *)
    echo "usage: $0 fetch|start|send-lock-images|stop|status|purge|env|send IMAGE..." >&2
    exit 2
    ;;
esac
