#!/bin/bash
# Peak RSS of every command on a 2 GiB capture (as a file and through a pipe), and
# diff of two 200 MiB captures. Needs release builds of nfcscope and nfcscope-bench
# and GNU time; prints one Markdown table row per command (BENCHMARKS.md, "Session 9:
# scale"). The big files go to $SCALE_TMP (default /tmp/nfcscope-scale) and are
# deleted at the end.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
R=${BIN:-$ROOT/.build/release}
T=${SCALE_TMP:-/tmp/nfcscope-scale}; mkdir -p "$T"
SIZE=${SCALE_SIZE_MB:-2048}
DIFF_SIZE=${SCALE_DIFF_MB:-200}
cd "$T"
# m LABEL COMMAND...: wall, user+sys CPU, peak RSS (GNU time -v), exit status, load.
m() {
  local label=$1; shift
  /usr/bin/time -v -o "$T/time.out" "$@" > /dev/null 2> "$T/err.out"
  local wall rss user sys rc
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$T/time.out")
  user=$(awk -F': ' '/User time/ { print $2 }' "$T/time.out")
  sys=$(awk -F': ' '/System time/ { print $2 }' "$T/time.out")
  rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$T/time.out")
  rc=$(awk -F': ' '/Exit status/ { print $2 }' "$T/time.out")
  echo "| $label | $wall | $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }') | $rss | $rc | $(cut -d' ' -f1-3 /proc/loadavg) |"
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -f big.pcap ] || "$R/nfcscope-bench" generate --size-mb "$SIZE" --seed 1 -o big.pcap > big.meta
echo "big.pcap: $(stat -c %s big.pcap) bytes, $(grep frames big.meta)"
echo "| command | wall s | user+sys s | peak RSS MB | exit | load 1/5/15 min |"
echo "|---|---:|---:|---:|---:|---|"
N=$R/nfcscope
m "stats FILE" "$N" stats --format jsonl big.pcap
m "stats - (pipe)" sh -c "cat big.pcap | $N stats --format jsonl -"
m "decode --format jsonl FILE" "$N" decode --format jsonl big.pcap
m "decode --format jsonl - (pipe)" sh -c "cat big.pcap | $N decode --format jsonl -"
m "decode --format text FILE" "$N" decode --format text big.pcap
m "decode --format text - (pipe)" sh -c "cat big.pcap | $N decode --format text -"
m "decode --redact FILE" "$N" decode --format jsonl --redact big.pcap
m "decode -Y 'apdu.ins == \"AE\"' --format text FILE" "$N" decode --format text -Y 'apdu.ins == "AE"' big.pcap
m "decode --only transaction,apdu --frames 1000- FILE" "$N" decode --format jsonl --only transaction,apdu --frames 1000- big.pcap
m "stats -Y 'apdu.sw != \"9000\"' FILE" "$N" stats --format jsonl -Y 'apdu.sw != "9000"' big.pcap
m "summary FILE" "$N" summary big.pcap
m "summary - (pipe)" sh -c "cat big.pcap | $N summary -"
m "report FILE -o OUT.html" "$N" report big.pcap -o "$T/out.html"
rm -f "$T/out.html"
m "report - (pipe) -o OUT.html" sh -c "cat big.pcap | $N report - -o $T/out.html"
rm -f "$T/out.html"
m "convert FILE -o OUT.pcapng" "$N" convert big.pcap -o "$T/out.pcapng"
rm -f "$T/out.pcapng"
m "convert - (pipe) -o OUT.pcapng" sh -c "cat big.pcap | $N convert - -o $T/out.pcapng"
rm -f "$T/out.pcapng"
rm -f big.pcap big.meta
"$R/nfcscope-bench" generate --size-mb "$DIFF_SIZE" --seed 1 -o a.pcap > a.meta
"$R/nfcscope-bench" generate --size-mb "$DIFF_SIZE" --seed 2 -o b.pcap > b.meta
echo "a.pcap: $(stat -c %s a.pcap) bytes, $(grep frames a.meta); b.pcap: $(stat -c %s b.pcap) bytes, $(grep frames b.meta)"
cp a.pcap acopy.pcap
m "diff A A' (${DIFF_SIZE} MiB each, equal)" "$N" diff --format jsonl a.pcap acopy.pcap
m "diff A B (${DIFF_SIZE} MiB each, seeds 1/2)" "$N" diff --format jsonl a.pcap b.pcap
m "diff --format text A B" "$N" diff --format text a.pcap b.pcap
m "diff - B (A through a pipe)" sh -c "cat a.pcap | $N diff --format jsonl - b.pcap"
"$N" diff --format jsonl a.pcap b.pcap | tail -1
rm -f a.pcap b.pcap acopy.pcap a.meta b.meta time.out err.out
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
