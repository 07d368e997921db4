#!/usr/bin/env bash
# `npm test`'s steps after the set-up: the TypeScript pass (`npm run typecheck -- --force`, which
# builds what jest's set-up and the spawned services run), then jest; `npm run lint` (eslint, then
# prettier) runs beside both at the lowest CPU priority. The machines CI runs on have 2 cores and a
# jest run leaves about a fifth of them idle (its files wait on stacks starting, deadlines, restarts):
# lint's CPU fits in that idle time, where beside the TypeScript pass at equal priority it held jest's
# start back by its own length. Lint's output is held back until the end, so nothing interleaves;
# the TypeScript pass failing skips jest; any step failing fails the whole.
set -uo pipefail
cd "$(dirname "$0")/.."

lint_log=$(mktemp)
# Its own session, so that an interrupted run stops lint too: a script's background job ignores Ctrl-C.
setsid nice -n 19 npm run --silent lint >"$lint_log" 2>&1 &
lint_pid=$!
trap 'kill -TERM -- "-$lint_pid" 2>/dev/null; rm -f "$lint_log"' EXIT

npm run --silent typecheck -- --force
typecheck_status=$?
jest_status=0
if [ "$typecheck_status" -eq 0 ]; then
  npm run --silent test:jest -- "$@"
  jest_status=$?
fi
wait "$lint_pid"
lint_status=$?
trap 'rm -f "$lint_log"' EXIT
cat "$lint_log"
if [ "$lint_status" -ne 0 ]; then echo "lint: failed (exit $lint_status), above" >&2; fi
if [ "$typecheck_status" -ne 0 ]; then echo "typecheck: failed (exit $typecheck_status); jest did not run" >&2; fi
[ "$typecheck_status" -eq 0 ] && [ "$jest_status" -eq 0 ] && [ "$lint_status" -eq 0 ]
