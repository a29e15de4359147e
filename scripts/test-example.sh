#!/usr/bin/env bash
# Run examples/integration-tests/ as a user would: against the packed tarball, never the source tree.
#   1. npm pack (runs the prepare script: dist/ is built fresh)
#   2. copy the example to a temporary folder, the tarball beside it as twinbench.tgz
#   3. npm install and npm test there, with TWINBENCH_SESSION naming every resource the suite labels
#   4. fail if anything labelled with that session is left on the engine
# Usage: bash scripts/test-example.sh [--node MAJOR] [--tarball FILE] [--testcontainers VERSION|newest]
#                                     [--dir DIR --phase install|test|refused] [TEST_FILE...]
#        (or npm run test:example)
#   --node MAJOR   install and test on that Node, from the npm registry's `node` package (`npx -p node@MAJOR`)
#   --tarball FILE use this `npm pack` output instead of packing again (.ci/run packs once for its three Nodes)
#   --testcontainers VERSION|newest
#                  install this testcontainers (newest: the newest twinbench's peer range allows) instead of the
#                  newest one this Node accepts
#   --dir DIR      work in DIR (made if missing) and keep it; with --phase install, steps 1-3's install only, and
#   --phase test   later, on the same DIR and Node, npm test and step 4 (.ci/run installs for every Node side by
#                  side, then tests one at a time)
#   --phase refused  instead of npm test: importing twinbench/testcontainers must stop with twinbench's own error
#                  (TESTCONTAINERS_NODE_TOO_OLD), as it must on Node 20 with a testcontainers that needs Node 22.22
#   TEST_FILE...   only these files of the example (default: all of them)
# Without --dir, keeps nothing: the folder is removed at the end.
set -euo pipefail

NODE_MAJOR=""
PACKED=""
DIR=""
PHASE="all"
TC_WANT=""
FILES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --node) NODE_MAJOR=$2; shift 2 ;;
    --tarball) PACKED=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --phase) PHASE=$2; shift 2 ;;
    --testcontainers) TC_WANT=$2; shift 2 ;;
    *) FILES+=("$1"); shift ;;
  esac
done
case "$PHASE" in
  all) ;;
  install | test | refused) [ -n "$DIR" ] || { echo "--phase $PHASE needs --dir DIR (the install and the test share it)" >&2; exit 2; } ;;
  *) echo "--phase $PHASE: expected install, test or refused" >&2; exit 2 ;;
esac
# npm and every node it starts (vitest, its workers) run on the chosen Node: npx puts it first on PATH.
ON_NODE=()
[ -n "$NODE_MAJOR" ] && ON_NODE=(npx -y -p "node@$NODE_MAJOR" --)

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -n "$DIR" ]; then
  mkdir -p "$DIR"
  WORK=$(cd "$DIR" && pwd)
else
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/twinbench-example-XXXXXX")"
  trap 'rm -rf "$WORK"' EXIT
fi
SESSION="example-$$-$(date +%s)"

if [ "$PHASE" = "all" ] || [ "$PHASE" = "install" ]; then

if [ -n "$PACKED" ]; then
  [ -f "$PACKED" ] || { echo "--tarball $PACKED: no such file" >&2; exit 1; }
  echo "==> packed tarball $PACKED"
  TARBALL=$(basename "$PACKED")
  cp "$PACKED" "$WORK/$TARBALL"
else
  echo "==> npm pack ($ROOT)"
  TARBALL="$(cd "$ROOT" && npm pack --silent --pack-destination "$WORK" | tail -n 1)"
fi
echo "    $TARBALL: $(du -k "$WORK/$TARBALL" | cut -f1) KiB"

echo "==> example project in $WORK/example"
rm -rf "$WORK/example" "$WORK/resolve" # a --dir used before: start the install afresh
cp -r "$ROOT/examples/integration-tests" "$WORK/example"
rm -rf "$WORK/example/node_modules"
mv "$WORK/$TARBALL" "$WORK/example/twinbench.tgz"
cd "$WORK/example"
"${ON_NODE[@]}" node -e 'console.log(`    node ${process.version}`)'
# The newest testcontainers this Node accepts, its whole tree counted: testcontainers 12 needs undici 8, which
# declares node >= 22.19, so Node 20 gets 11.14 (12.1+ also declares node >= 22.22 itself). A plain install does not
# choose by engines (it warns EBADENGINE and installs 12 anyway), so try each minor's newest patch, newest first,
# with --engine-strict in a scratch folder, and write the first that fits into the example's package.json, as a
# user on that Node would. The install below is then a plain `npm install`.
mkdir "$WORK/resolve"
CANDIDATES="$(node -e '
  const raw = JSON.parse(process.argv[1]);
  const parse = (s) => s.split(".").map(Number);
  const best = new Map();
  for (const s of Array.isArray(raw) ? raw : [raw]) {
    const [a, b, c] = parse(s);
    if (!best.has(`${a}.${b}`) || parse(best.get(`${a}.${b}`))[2] < c) best.set(`${a}.${b}`, s);
  }
  const order = (x, y) => { const [p, q] = [parse(x), parse(y)]; return q[0] - p[0] || q[1] - p[1] || q[2] - p[2]; };
  console.log([...best.values()].sort(order).join(" "));
' "$(npm view "testcontainers@^11.14.0 || ^12.0.0" version --json)")"
TC=""
case "$TC_WANT" in
  "") ;;
  newest) TC=${CANDIDATES%% *} ;;
  *) TC=$TC_WANT ;;
esac
[ -n "$TC" ] && echo "    testcontainers $TC, as asked (--testcontainers $TC_WANT)"
for v in $CANDIDATES; do
  [ -n "$TC" ] && break
  rm -f "$WORK/resolve/package-lock.json"
  echo '{"name":"resolve","private":true}' > "$WORK/resolve/package.json"
  if (cd "$WORK/resolve" && "${ON_NODE[@]}" npm install --package-lock-only --engine-strict --no-audit --no-fund --loglevel=silent \
    "testcontainers@$v" "@testcontainers/mariadb@>=11.14.0 <=$v" "@testcontainers/mysql@>=11.14.0 <=$v" >/dev/null 2>&1); then
    TC=$v
    break
  fi
  echo "    testcontainers $v: this Node is outside its tree's engines"
done
if [ -z "$TC" ]; then
  echo "no testcontainers among $CANDIDATES installs on this Node within its engines" >&2
  exit 1
fi
[ -z "$TC_WANT" ] && echo "    newest testcontainers this Node accepts: $TC"
npm pkg set "devDependencies.testcontainers=$TC" "devDependencies.@testcontainers/mariadb=>=11.14.0 <=$TC" "devDependencies.@testcontainers/mysql=>=11.14.0 <=$TC"
# No flags: a user's plain `npm install` must resolve (no --legacy-peer-deps, no --force).
"${ON_NODE[@]}" npm install --no-audit --no-fund --loglevel=error
# What npm chose, and a check that every peer is satisfied (npm ls exits non-zero on an invalid or missing peer).
"${ON_NODE[@]}" npm ls twinbench testcontainers @testcontainers/mariadb @testcontainers/mysql
fi
[ "$PHASE" = "install" ] && exit 0
[ -d "$WORK/example/node_modules" ] || { echo "$WORK/example: not installed (run --phase install first)" >&2; exit 1; }
cd "$WORK/example"

if [ "$PHASE" = "refused" ]; then
  # What a user's test file does first. The import must reject with twinbench's error, not undici's TypeError.
  echo "==> import twinbench/testcontainers: expecting twinbench's refusal"
  "${ON_NODE[@]}" node --input-type=module -e '
    try {
      await import("twinbench/testcontainers");
      console.error("    it loaded: expected TESTCONTAINERS_NODE_TOO_OLD on this Node");
      process.exit(1);
    } catch (e) {
      console.log(`    ${e.name} ${e.code}: ${e.message}`);
      process.exit(e.code === "TESTCONTAINERS_NODE_TOO_OLD" ? 0 : 1);
    }'
  exit 0
fi

echo "==> npm test (TWINBENCH_SESSION=$SESSION)"
rc=0
TWINBENCH_SESSION="$SESSION" TESTCONTAINERS_RYUK_DISABLED="${TESTCONTAINERS_RYUK_DISABLED:-true}" "${ON_NODE[@]}" npm test -- "${FILES[@]+"${FILES[@]}"}" || rc=$?

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
