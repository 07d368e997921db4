#!/usr/bin/env bash
# Builds tools/chart-render (a Helm-compatible renderer, see main.go) into
# deploy/local/.tools/chart-render from Debian's golang-go, golang-github-masterminds-sprig-dev
# and golang-github-ghodss-yaml-dev (deploy/local/setup.sh installs them). No module download:
# GOPATH mode against the Debian Go sources. Rebuilds only when the source or this script changed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/deploy/local/.tools/chart-render"
if [ -x "$out" ] && [ "$out" -nt "$here/main.go" ] && [ "$out" -nt "$here/build.sh" ]; then
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "[chart-render] go is missing: apt-get install golang-go golang-github-masterminds-sprig-dev golang-github-ghodss-yaml-dev (or npm run setup as root)" >&2
  exit 1
fi
mkdir -p "$(dirname "$out")"
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$root/deploy/local/.tools/go-cache" GOFLAGS= \
  go build -o "$tmp" "$here/main.go"
mv -f "$tmp" "$out"
echo "[chart-render] built $out" >&2
