#!/bin/bash
# 100 mid-size captures (2 MiB each, seeds 1-100): -j 1 vs -j 2 on cores 0,1, for
# decode jsonl/text, stats and summary; wall time and user+sys CPU (GNU time), $RUNS
# rounds each (default 1), then per command the medians and each round's speed-up; then
# the md5 of both outputs. Needs release builds of
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
echo "| command | run | -j 1 | -j 2 | speed-up | load 1/5/15 min |"
echo "|---|---:|---|---|---:|---|"
SUMMARY=()
for cmd in "decode --format jsonl" "decode --format text" "stats --format jsonl" "summary"; do
  walls1=(); walls2=(); ups=()
  for run in $(seq 1 "$RUNS"); do
    a=$(t taskset -c 0,1 "$R/nfcscope" $cmd -j 1 "$T"/*.pcap); w1=$(awk '{ print $1 }' "$T/../t.out")
    b=$(t taskset -c 0,1 "$R/nfcscope" $cmd -j 2 "$T"/*.pcap); w2=$(awk '{ print $1 }' "$T/../t.out")
    up=$(awk -v a="$w1" -v b="$w2" 'BEGIN { printf "%.2f", a / b }')
    walls1+=("$w1"); walls2+=("$w2"); ups+=("$up")
    echo "| $cmd | $run | $a | $b | ${up}× | $(cut -d' ' -f1-3 /proc/loadavg) |"
  done
  # Rounds alternate -j 1 and -j 2, so a slow spell of the host falls on both: the
  # speed-up of the medians, and each round's own, say more than any single pair.
  med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
  m1=$(med "${walls1[@]}"); m2=$(med "${walls2[@]}")
  SUMMARY+=("| $cmd | $RUNS | $m1 s | $m2 s | $(awk -v a="$m1" -v b="$m2" 'BEGIN { printf "%.2f", a / b }')× | $(printf '%s\n' "${ups[@]}" | sort -g | head -1)-$(printf '%s\n' "${ups[@]}" | sort -g | tail -1)× | $(printf '%s\n' "${ups[@]}" | awk '$1 >= 1.7' | wc -l)/$RUNS |")
done
echo
echo "| command | rounds | median wall -j 1 | median wall -j 2 | speed-up of the medians | rounds' speed-ups | rounds ≥ 1.7× |"
echo "|---|---:|---:|---:|---:|---|---:|"
printf '%s\n' "${SUMMARY[@]}"
# byte identity
"$R/nfcscope" decode --format jsonl -j 1 "$T"/*.pcap | md5sum; "$R/nfcscope" decode --format jsonl -j 2 "$T"/*.pcap | md5sum
