#!/bin/sh
# Compares the text outputs (decode --format text at several widths, colour, timing,
# redaction, and summary) of two nfcscope binaries on every capture given or found:
# stdout, stderr and exit status of each run must be the same bytes.
#   benchmarks/compare-text.sh REFERENCE-BINARY CANDIDATE-BINARY [FILE|DIR...]
# Without FILE|DIR: /work/bench-10.pcap, samples/, /work/shared/captures,
# Tests/NFCScopeTests/Fixtures. The reference's outputs are cached in $REFCACHE
# (default /tmp/compare-text.ref) keyed by the reference binary's checksum.
# `--redact` of files over 5 MB is skipped unless FULL=1 (it takes minutes).
set -u
ref=$1; new=$2; shift 2
[ $# -eq 0 ] && set -- /work/bench-10.pcap samples /work/shared/captures Tests/NFCScopeTests/Fixtures
sum=$(cksum < "$ref" | cut -d' ' -f1)
cache=${REFCACHE:-/tmp/compare-text.ref}/$sum
work=$(mktemp -d)
mkdir -p "$cache"
runs=0; diffs=0
files=$(find "$@" -type f ! -name '*.md' | sort)
for f in $files; do
  key=$(printf '%s' "$f" | cksum | cut -d' ' -f1)
  i=0
  while IFS= read -r args; do
    i=$((i + 1))
    r=$cache/$key.$i
    # --redact of a large capture costs minutes (Redaction.swift), skipped unless FULL=1.
    case $args in *--redact*)
      if [ -z "${FULL:-}" ] && [ "$(wc -c < "$f")" -gt 5000000 ]; then echo "skipped: $args $f"; continue; fi
    esac
    if [ ! -f "$r.rc" ]; then
      # shellcheck disable=SC2086
      "$ref" $args "$f" >"$r.out" 2>"$r.err"; echo $? >"$r.rc"
    fi
    # shellcheck disable=SC2086
    "$new" $args "$f" >"$work/out" 2>"$work/err"; echo $? >"$work/rc"
    runs=$((runs + 1))
    if ! cmp -s "$r.out" "$work/out" || ! cmp -s "$r.err" "$work/err" || ! cmp -s "$r.rc" "$work/rc"; then
      diffs=$((diffs + 1)); echo "DIFFERS: $args $f"
    fi
  done <<'VARIANTS'
decode --format text --width 60
decode --format text --width 100
decode --format text --width 200
decode --format text
decode --format text --color always
decode --format text --timing --width 80
decode --format text --redact
summary
VARIANTS
done
rm -rf "$work"
echo "$runs runs, $diffs differ"
[ "$diffs" -eq 0 ]
