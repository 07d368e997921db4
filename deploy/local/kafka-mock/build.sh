#!/usr/bin/env bash
# Builds the kafka-mock C helper (librdkafka's mock cluster) into bin/kafka-mock.
# Rebuilds only when the source (or this script) is newer than the binary. Needs gcc and
# librdkafka-dev (Debian); deploy/local/setup.sh installs both.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/src/kafka-mock.c"
out="$here/bin/kafka-mock"
if [ -x "$out" ] && [ "$out" -nt "$src" ] && [ "$out" -nt "$here/build.sh" ]; then
  exit 0
fi
mkdir -p "$here/bin"
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
gcc -O2 -Wall -Wextra -std=gnu11 -o "$tmp" "$src" -lrdkafka
mv -f "$tmp" "$out"
echo "[kafka-mock] built $out" >&2
