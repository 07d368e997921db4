#!/usr/bin/env bash
# Builds the kafka-mock C helper (librdkafka's mock cluster) into bin/kafka-mock.
# Rebuilds only when the source (or this script) is newer than the binary. Needs gcc, binutils and
# librdkafka-dev (Debian); deploy/local/setup.sh installs them.
#
# librdkafka is linked statically, from a copy of Debian's librdkafka.a in which the mock's group
# rebalance timer callback and its connection write timer callback are made visible, and with a few
# internal calls wrapped (ld --wrap): so the helper can set a new group's first-join delay,
# hard-coded in librdkafka 2.0.2, and answer a held fetch as soon as its partition gets a message,
# as a broker does (src/kafka-mock.c says why and how). The libraries librdkafka itself needs (lz4, zstd, sasl2,
# OpenSSL, zlib) stay shared: the ones Debian's librdkafka.so.1 is linked with, by file name, so no
# -dev package of theirs is needed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/src/kafka-mock.c"
out="$here/bin/kafka-mock"
if [ -x "$out" ] && [ "$out" -nt "$src" ] && [ "$out" -nt "$here/build.sh" ]; then
  exit 0
fi
libdir="$(dirname "$(gcc -print-file-name=librdkafka.so.1)")"
if [ ! -f "$libdir/librdkafka.a" ]; then
  echo "[kafka-mock] librdkafka.a not found beside $libdir/librdkafka.so.1 (install librdkafka-dev)" >&2
  exit 1
fi
mkdir -p "$here/bin"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
objcopy --globalize-symbol=rd_kafka_mcgrp_rebalance_timer_cb \
  --globalize-symbol=rd_kafka_mock_connection_write_out_tmr_cb "$libdir/librdkafka.a" "$tmp/librdkafka.a"
shared_deps=()
while read -r name; do
  case "$name" in
    libc.so.* | libm.so.* | ld-linux*) ;;
    *) shared_deps+=("-l:$name") ;;
  esac
done < <(ldd "$libdir/librdkafka.so.1" | awk '$2 == "=>" { print $1 }')
gcc -O2 -Wall -Wextra -std=gnu11 -o "$tmp/kafka-mock" "$src" \
  -Wl,--wrap=rd_kafka_timer_start0 \
  -Wl,--wrap=rd_kafka_mock_partition_find -Wl,--wrap=rd_kafka_mock_connection_send_response \
  -Wl,--wrap=rd_kafka_mock_partition_log_append -Wl,--wrap=rd_kafka_buf_destroy_final "$tmp/librdkafka.a" "${shared_deps[@]}" -lm -ldl -lpthread -lrt
mv -f "$tmp/kafka-mock" "$out"
echo "[kafka-mock] built $out" >&2
