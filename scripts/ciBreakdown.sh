#!/usr/bin/env bash
# Where a CI run's time goes: clones a commit fresh (as CI does), runs `npm test`'s steps one by one
# with CI=true and no standard input, and prints each step's seconds and the ten slowest test files.
# Usage, from the repository root: bash scripts/ciBreakdown.sh [commit] (default HEAD). Keeps the
# clone and the logs (their folder is printed) for a closer look. test/README.md, "CI time", quotes it.
set -u
commit=${1:-HEAD}
top=$(git rev-parse --show-toplevel) || exit 2
work=$(mktemp -d)
git clone -q "$top" "$work/p" && git -C "$work/p" checkout -q "$commit" || exit 2
[ -d "$top/../shared" ] && ln -s "$(cd "$top/../shared" && pwd)" "$work/shared"
cd "$work/p" || exit 2
step() {
  local name=$1
  shift
  local start=$SECONDS
  CI=true "$@" > "$work/$name.log" 2>&1 < /dev/null
  local rc=$?
  printf '%-10s %5d s  exit %d\n' "$name" $((SECONDS - start)) "$rc"
}
step setup bash deploy/local/setup.sh
step typecheck npm run --silent typecheck -- --force
step lint npm run --silent lint
step jest npm run --silent test:jest
grep -E '[0-9]+ passed, [0-9]+ failed' "$work/jest.log" | tail -1
echo 'slowest files:'
grep -E '^(PASS|FAIL) .*\([0-9.]+ s\)' "$work/jest.log" | sed -E 's/^(PASS|FAIL) +([^ ]+) \(([0-9.]+) s\).*/\3 s  \2/' | sort -rn | head -10
echo "logs: $work"
