#!/usr/bin/env bash
# The fault matrix (`npm run test:faults`): test/faults/*.test.ts with vitest.faults.config.ts, in three groups.
#
#  1. Two groups side by side, each running its files one at a time:
#     - "host": files that must act on the host's own processes or mounts (SIGSTOP of a server's host pids, an OOM
#       kill through /proc, loop RAID 0 mounted for dockerd to see), and others to balance the two groups;
#     - "pidns": files that only drive the CLI and the engine (kill -9 of their own children, clean, resume, a full
#       results folder), run in a pid namespace of their own (`unshare --pid --fork --mount-proc`). A run's
#       start-up sweep only removes what a run of its own pid namespace left (src/core/base/labels.ts ownerStatus:
#       another namespace's owner is "unknown"), so neither group's runs sweep what the other group's killed runs
#       left before that group's checks read it (test/faults/concurrent-runs.test.ts checks that property itself);
#       within a group, files run one at a time as before.
#  2. Then, one at a time with nothing beside them: the files that stop or restart dockerd, the one that confines
#     dockerd to the load CPUs (the engine then reports 1 CPU, and every other run's plan fails PLAN_CPU_MISSING),
#     and every file named in neither list above (a new file runs here until it is placed).
#
# dist/ is built once, before the groups start (test/global-setup.ts then skips its own build: two builds at once
# would delete dist/ under the other group's running CLI). Each group's skip list (test/skip-reporter.ts) is merged
# into TWINBENCH_SKIPS_FILE when every group wrote one. Extra arguments go to every vitest invocation.
# Exits non-zero when any group failed (every group runs regardless).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

HOST=(test/faults/hung-server.test.ts test/faults/server-limits.test.ts test/faults/storage-faults.test.ts
  test/faults/kill-hosts.test.ts)
PIDNS=(test/faults/kill-phases.test.ts test/faults/concurrent-runs.test.ts test/faults/results-full.test.ts)
ALONE=()
for f in test/faults/*.test.ts; do
  case " ${HOST[*]} ${PIDNS[*]} " in
    *" $f "*) ;;
    *) ALONE+=("$f") ;;
  esac
done

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
OUTER_SKIPS=${TWINBENCH_SKIPS_FILE:-}

echo "[faults] npm run build (dist/ for every group)"
npm run --silent build || exit 1
export TWINBENCH_TEST_DIST_BUILT=1

vt() { # vt SKIPS FILE...: one vitest invocation of the fault config
  local skips=$1
  shift
  TWINBENCH_SKIPS_FILE="$skips" node node_modules/vitest/vitest.mjs run --config vitest.faults.config.ts "$@"
}

t0=$SECONDS
echo "[faults] side by side: host group (${HOST[*]}) and pid-namespace group (${PIDNS[*]}; output below when it ends)"
# The namespace gets its own /proc (its own pids) and a copy of the mount table, which the engine's later volume
# mounts do not reach (this host's mounts are private): its checks of what is mounted read dockerd's own table
# through the host's /proc, bound here before the namespace is made (test/integration/support/lab.ts hostState).
mkdir "$TMP/hostproc"
mount --bind /proc "$TMP/hostproc" || exit 1
trap 'umount "$TMP/hostproc" && rm -rf "$TMP"' EXIT
dockerd_pid=$(cat /var/run/docker.pid)
# shellcheck disable=SC2016 # expanded by the inner bash
TWINBENCH_TEST_HOST_MOUNTS="$TMP/hostproc/$dockerd_pid/mounts" unshare --pid --fork --mount-proc \
  bash -c "$(declare -f vt); vt \"\$@\"" vt "$TMP/pidns.json" "${PIDNS[@]}" "$@" >"$TMP/pidns.log" 2>&1 &
ns_pid=$!
vt "$TMP/host.json" "${HOST[@]}" "$@"
host_rc=$?
wait "$ns_pid"
ns_rc=$?
echo "[faults] ---- pid-namespace group output ----"
cat "$TMP/pidns.log"
echo "[faults] both side-by-side groups done in $((SECONDS - t0)) s (host: exit $host_rc, pid namespace: exit $ns_rc)"

t1=$SECONDS
echo "[faults] alone: ${ALONE[*]}"
vt "$TMP/alone.json" "${ALONE[@]}" "$@"
alone_rc=$?
echo "[faults] alone group done in $((SECONDS - t1)) s (exit $alone_rc)"

if [ -n "$OUTER_SKIPS" ]; then
  node -e '
    const fs = require("node:fs");
    const [out, ...lists] = process.argv.slice(1);
    const all = [];
    for (const l of lists) {
      const v = JSON.parse(fs.readFileSync(l, "utf8"));
      if (!Array.isArray(v)) throw new Error(`${l}: not a JSON array`);
      all.push(...v);
    }
    fs.writeFileSync(out, JSON.stringify(all, null, 2));
  ' "$OUTER_SKIPS" "$TMP/host.json" "$TMP/pidns.json" "$TMP/alone.json" ||
    echo "[faults] a group wrote no skip list: $OUTER_SKIPS left as it was" >&2
fi

[ "$host_rc" -eq 0 ] && [ "$ns_rc" -eq 0 ] && [ "$alone_rc" -eq 0 ]
