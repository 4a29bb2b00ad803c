#!/bin/sh
# Runs one libFuzzer target (or all of them) for a number of seconds each:
#   Fuzz/run.sh TARGET SECONDS      Fuzz/run.sh all SECONDS      Fuzz/run.sh build
# Targets: detect pcap pcapng libnfc proxmark3 nfclab flipper emv felica ndef plugin.
# The library sources and every harness are compiled in one swiftc call with
# libFuzzer and AddressSanitizer (rebuilt when a source is newer than the binary).
# Seeds come from samples/, the test fixtures and Fuzz/corpus/TARGET; what the
# fuzzer finds grows .build/fuzz/corpus/TARGET; a crashing input is written to
# .build/fuzz/artifacts/ and the script exits non-zero. The last status line of
# each run (executions, coverage, features, corpus) is printed, for docs/robustness.md.
set -eu
cd "$(dirname "$0")/.."
TARGETS="detect pcap pcapng libnfc proxmark3 nfclab flipper emv felica ndef plugin"
OUT=.build/fuzz
BIN=$OUT/nfcscope-fuzz
mkdir -p "$OUT"

build() {
    stale=no
    [ -x "$BIN" ] || stale=yes
    if [ $stale = no ] && [ -n "$(find Sources/NFCScope Fuzz -name '*.swift' -newer "$BIN" | head -1)" ]; then stale=yes; fi
    [ $stale = yes ] || return 0
    echo "building $BIN" >&2
    # shellcheck disable=SC2046
    swiftc -O -wmo -sanitize=fuzzer,address -parse-as-library -module-name NFCScope -swift-version 6 \
        -I Sources/CPcap -I Sources/CNfc \
        $(find Sources/NFCScope -name '*.swift' | sort) Fuzz/Entry.swift Fuzz/Harnesses/*.swift \
        -o "$BIN.tmp"
    mv "$BIN.tmp" "$BIN"
}

# Seed files for a target, by what the files are.
seeds() {
    F=Tests/NFCScopeTests/Fixtures
    case "$1" in
        detect) find $F samples -maxdepth 1 -type f ;;
        pcap) ls $F/*.pcap samples/*.pcap ;;
        pcapng) ls $F/*.pcapng ;;
        libnfc) ls $F/libnfc-* samples/*.log ;;
        proxmark3) ls $F/*.trace ;;
        nfclab) ls $F/*.json ;;
        flipper) ls $F/*.nfc ;;
        emv|felica) ;;
        ndef) ;;
        plugin) ls plugins/*.plugin ;;
    esac 2>/dev/null | grep -v README || true
}

run() {
    t=$1 seconds=$2
    case " $TARGETS " in *" $t "*) ;; *) echo "unknown target '$t' (targets: $TARGETS)" >&2; exit 64 ;; esac
    corpus=$OUT/corpus/$t
    seedDir=$OUT/seeds/$t
    mkdir -p "$corpus" "$seedDir" "$OUT/artifacts"
    for f in $(seeds "$t"); do cp "$f" "$seedDir/"; done
    [ -d "Fuzz/corpus/$t" ] && cp Fuzz/corpus/"$t"/* "$seedDir/" 2>/dev/null || true
    dict=""
    [ -f "Fuzz/dict/$t.dict" ] && dict="-dict=Fuzz/dict/$t.dict"
    log=$OUT/$t.log
    echo "fuzzing $t for ${seconds}s" >&2
    status=0
    NFCSCOPE_FUZZ_TARGET=$t ASAN_OPTIONS=symbolize=0:detect_leaks=0 "$BIN" "$corpus" "$seedDir" $dict \
        -max_total_time="$seconds" -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
        -artifact_prefix="$OUT/artifacts/$t-" -print_final_stats=1 >"$log" 2>&1 || status=$?
    grep -E '^#[0-9]+ +(DONE|pulse|NEW|REDUCE)' "$log" | tail -1 || true
    grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$log" || true
    if [ $status -ne 0 ]; then
        echo "$t: libFuzzer exited with status $status; see $log and $OUT/artifacts/" >&2
        grep -E 'ERROR|SUMMARY|Fatal|deadly' "$log" | head -5 >&2 || true
        return 1
    fi
}

case "${1:-}" in
    build) build ;;
    all) build; failed=0; for t in $TARGETS; do run "$t" "${2:?seconds}" || failed=1; done; exit $failed ;;
    "") echo "usage: Fuzz/run.sh TARGET|all SECONDS | build" >&2; exit 64 ;;
    *) build; run "$1" "${2:?seconds}" ;;
esac
