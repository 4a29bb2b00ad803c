#!/bin/bash
# 100 mid-size captures: -j 1 vs -j 2, on both cores.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
R=${BIN:-$ROOT/.build/release}
T=${SCALE_TMP:-/tmp/nfcscope-scale}/many
mkdir -p $T
for s in $(seq 1 100); do [ -f $T/c$s.pcap ] || $R/nfcscope-bench generate --size-mb 2 --seed $s -o $T/c$s.pcap > /dev/null; done
echo "files: $(ls $T | wc -l), $(du -sh $T | cut -f1)"
t() { /usr/bin/time -f "%e %M" -o $T/../t.out "$@" > /dev/null 2>&1; cat $T/../t.out; }
for cmd in "decode --format jsonl" "decode --format text" "stats --format jsonl"; do
  for run in 1 2 3; do
    a=$(t taskset -c 0,1 $R/nfcscope $cmd -j 1 $T/*.pcap); b=$(t taskset -c 0,1 $R/nfcscope $cmd -j 2 $T/*.pcap)
    echo "$cmd run $run: -j1 [$a] -j2 [$b] load $(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
# byte identity
$R/nfcscope decode --format jsonl -j 1 $T/*.pcap | md5sum; $R/nfcscope decode --format jsonl -j 2 $T/*.pcap | md5sum
