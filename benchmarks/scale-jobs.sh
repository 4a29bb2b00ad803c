#!/bin/bash
# 100 mid-size captures (2 MiB each, seeds 1-100): -j 1 vs -j 2 on cores 0,1, for
# decode jsonl/text, stats and summary; wall time and user+sys CPU (GNU time), $RUNS
# runs each (default 1); then the md5 of both outputs. Needs release builds of
# nfcscope and nfcscope-bench. The captures stay in $SCALE_TMP/many (default
# /tmp/nfcscope-scale/many) until removed.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
R=${BIN:-$ROOT/.build/release}
T=${SCALE_TMP:-/tmp/nfcscope-scale}/many
RUNS=${RUNS:-1}
mkdir -p "$T"
for s in $(seq 1 100); do [ -f "$T/c$s.pcap" ] || "$R/nfcscope-bench" generate --size-mb 2 --seed "$s" -o "$T/c$s.pcap" > /dev/null; done
echo "files: $(ls "$T" | wc -l), $(du -sh "$T" | cut -f1)"
t() { /usr/bin/time -f "%e %U %S %M" -o "$T/../t.out" "$@" > /dev/null 2>&1; awk '{ printf "wall %s s, cpu %.2f s, rss %.1f MB", $1, $2 + $3, $4 / 1024 }' "$T/../t.out"; }
echo "| command | run | -j 1 | -j 2 | load 1/5/15 min |"
echo "|---|---:|---|---|---|"
for cmd in "decode --format jsonl" "decode --format text" "stats --format jsonl" "summary"; do
  for run in $(seq 1 "$RUNS"); do
    a=$(t taskset -c 0,1 "$R/nfcscope" $cmd -j 1 "$T"/*.pcap); b=$(t taskset -c 0,1 "$R/nfcscope" $cmd -j 2 "$T"/*.pcap)
    echo "| $cmd | $run | $a | $b | $(cut -d' ' -f1-3 /proc/loadavg) |"
  done
done
# byte identity
"$R/nfcscope" decode --format jsonl -j 1 "$T"/*.pcap | md5sum; "$R/nfcscope" decode --format jsonl -j 2 "$T"/*.pcap | md5sum
