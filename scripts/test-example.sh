#!/usr/bin/env bash
# Run examples/integration-tests/ as a user would: against the packed tarball, never the source tree.
#   1. npm pack (runs the prepare script: dist/ is built fresh)
#   2. copy the example to a temporary folder, the tarball beside it as twinbench.tgz
#   3. npm install and npm test there, with TWINBENCH_SESSION naming every resource the suite labels
#   4. fail if anything labelled with that session is left on the engine
# Usage: bash scripts/test-example.sh   (or npm run test:example). Keeps nothing: the folder is removed at the end.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/twinbench-example-XXXXXX")"
SESSION="example-$$-$(date +%s)"
trap 'rm -rf "$WORK"' EXIT

echo "==> npm pack ($ROOT)"
TARBALL="$(cd "$ROOT" && npm pack --silent --pack-destination "$WORK" | tail -n 1)"
echo "    $TARBALL: $(du -k "$WORK/$TARBALL" | cut -f1) KiB"

echo "==> example project in $WORK/example"
cp -r "$ROOT/examples/integration-tests" "$WORK/example"
rm -rf "$WORK/example/node_modules"
mv "$WORK/$TARBALL" "$WORK/example/twinbench.tgz"
cd "$WORK/example"
npm install --no-audit --no-fund --loglevel=error

echo "==> npm test (TWINBENCH_SESSION=$SESSION)"
rc=0
TWINBENCH_SESSION="$SESSION" TESTCONTAINERS_RYUK_DISABLED="${TESTCONTAINERS_RYUK_DISABLED:-true}" npm test || rc=$?

echo "==> resources labelled twinbench.session=$SESSION"
left="$(
  docker ps -aq --filter "label=twinbench.session=$SESSION"
  docker network ls -q --filter "label=twinbench.session=$SESSION"
  docker volume ls -q --filter "label=twinbench.session=$SESSION"
)"
if [ -n "$left" ]; then
  echo "left behind:" >&2
  echo "$left" >&2
  rc=1
else
  echo "    none"
fi
exit "$rc"
