#!/usr/bin/env bash
# `npm test`'s checks before jest, side by side: the TypeScript pass (`npm run typecheck -- --force`,
# which builds) and `npm run lint` (eslint, then prettier) are each one single-threaded process, and
# the machines CI runs on have 2 cores. Lint's output is held back until the TypeScript pass ends, so
# the two never interleave; either failing fails the whole.
set -uo pipefail
cd "$(dirname "$0")/.."

lint_log=$(mktemp)
# Its own session, so that an interrupted run stops lint too: a script's background job ignores Ctrl-C.
setsid npm run --silent lint >"$lint_log" 2>&1 &
lint_pid=$!
trap 'kill -TERM -- "-$lint_pid" 2>/dev/null; rm -f "$lint_log"' EXIT

npm run --silent typecheck -- --force
typecheck_status=$?
wait "$lint_pid"
lint_status=$?
trap 'rm -f "$lint_log"' EXIT
cat "$lint_log"
[ "$typecheck_status" -eq 0 ] && [ "$lint_status" -eq 0 ]
