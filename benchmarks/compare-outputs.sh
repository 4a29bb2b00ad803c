#!/bin/bash
# Usage: benchmarks/compare-outputs.sh NEW_BINARY [OLD_BINARY] [REPO_ROOT]
# Compares decode outputs (jsonl, jsonl --redact, text; stdout, stderr, exit status)
# of a new binary against the session start's, for the benchmark capture and every
# file in samples/, /work/shared/captures (recursive) and the test fixtures.
NEW=${1:?new binary}; OLD=${2:-/work/nfcscope-s11start}; ROOT=${3:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=$(mktemp -d)
n=0; bad=0; skipped=0
files=(/work/bench-10.pcap)
while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$ROOT/samples" /work/shared/captures "$ROOT/Tests/NFCScopeTests/Fixtures" -type f -print0 | sort -z)
for f in "${files[@]}"; do
  for mode in jsonl redact text; do
    case $mode in
      jsonl) args=(decode --format jsonl);;
      redact) args=(decode --format jsonl --redact);;
      text) args=(decode --format text);;
    esac
    # A run longer than LIMIT seconds (default 120) is stopped and not compared.
    timeout "${LIMIT:-120}" "$OLD" "${args[@]}" "$f" >"$OUT/o.out" 2>"$OUT/o.err" </dev/null; echo $? >>"$OUT/o.err"
    if tail -n1 "$OUT/o.err" | grep -qx 124; then skipped=$((skipped+1)); echo "SKIPPED (over ${LIMIT:-120} s): $mode $f"; continue; fi
    timeout "${LIMIT:-120}" "$NEW" "${args[@]}" "$f" >"$OUT/n.out" 2>"$OUT/n.err" </dev/null; echo $? >>"$OUT/n.err"
    n=$((n+1))
    if ! cmp -s "$OUT/o.out" "$OUT/n.out" || ! cmp -s "$OUT/o.err" "$OUT/n.err"; then
      bad=$((bad+1)); echo "DIFF: $mode $f"
    fi
  done
done
echo "compared $n outputs (${#files[@]} inputs x 3 modes, stdout+stderr+status): $bad differ, $skipped not compared (too long)"
rm -rf "$OUT"
