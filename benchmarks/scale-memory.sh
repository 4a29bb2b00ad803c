#!/bin/bash
# Peak RSS of every command on a 2 GB capture (file and stdin), and diff of two 200 MB captures.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
R=${BIN:-$ROOT/.build/release}
T=${SCALE_TMP:-/tmp/nfcscope-scale}; mkdir -p $T
cd $T
m() { # label, command...
  local label=$1; shift
  /usr/bin/time -f "%e %M %x" -o $T/time.out "$@" > /dev/null 2>$T/err.out
  read wall rss rc < $T/time.out
  echo "| $label | $wall | $(awk "BEGIN{printf \"%.1f\", $rss/1024}") | $rc | $(uptime | sed 's/.*average: //') |"
}
echo "load before: $(uptime)"
$R/nfcscope-bench generate --size-mb 2048 --seed 1 -o $T/big.pcap
echo "| command | wall s | peak RSS MB | exit | load |"
echo "|---|---:|---:|---:|---|"
m "stats FILE" $R/nfcscope stats --format jsonl big.pcap
m "stats - (stdin)" sh -c "$R/nfcscope stats --format jsonl - < big.pcap"
m "decode --format jsonl FILE" $R/nfcscope decode --format jsonl big.pcap
m "decode --format jsonl - (stdin pipe)" sh -c "cat big.pcap | $R/nfcscope decode --format jsonl -"
m "decode --format text FILE" $R/nfcscope decode --format text big.pcap
m "decode --format text - (stdin pipe)" sh -c "cat big.pcap | $R/nfcscope decode --format text -"
m "convert FILE -o x.pcapng" $R/nfcscope convert big.pcap -o $T/out.pcapng
rm -f $T/out.pcapng
m "convert - (stdin pipe) -o x.pcapng" sh -c "cat big.pcap | $R/nfcscope convert - -o $T/out.pcapng"
rm -f $T/out.pcapng big.pcap
$R/nfcscope-bench generate --size-mb 200 --seed 1 -o $T/a200.pcap
$R/nfcscope-bench generate --size-mb 200 --seed 2 -o $T/b200.pcap
cp $T/a200.pcap $T/a200copy.pcap
m "diff A A' (200 MB, equal)" $R/nfcscope diff --format jsonl a200.pcap a200copy.pcap
m "diff A B (200 MB, seeds 1/2)" $R/nfcscope diff --format jsonl a200.pcap b200.pcap
m "diff --format text A B" $R/nfcscope diff --format text a200.pcap b200.pcap
m "diff - B (A through stdin)" sh -c "cat a200.pcap | $R/nfcscope diff --format jsonl - b200.pcap"
rm -f a200copy.pcap
echo "load after: $(uptime)"
