#!/bin/sh
# Runs one libFuzzer target (or all of them) for a number of seconds each:
#   Fuzz/run.sh TARGET SECONDS      Fuzz/run.sh all SECONDS      Fuzz/run.sh build
#   Fuzz/run.sh smoke SECONDS       (every target, NFCSCOPE_FUZZ_JOBS at a time, default 2:
#                                    what .ci/run runs; fails on the first crash found)
# Targets: see TARGETS below (docs/robustness.md says what each one feeds the library).
# The library sources and every harness are compiled in one swiftc call with
# libFuzzer and AddressSanitizer (rebuilt when a source is newer than the binary).
# Seeds come from samples/, the test fixtures and Fuzz/corpus/TARGET; what the
# fuzzer finds grows .build/fuzz/corpus/TARGET; a crashing input is written to
# .build/fuzz/artifacts/ and the script exits non-zero. The last status line of
# each run (executions, coverage, features, corpus) is printed, for docs/robustness.md.
# A run cannot hang: libFuzzer stops after -max_total_time, an input that takes over 20 s
# is a failure (-timeout), and `timeout` kills the process 2 x SECONDS + 120 s after start.
set -eu
cd "$(dirname "$0")/.."
TARGETS="detect pcap pcapng libnfc proxmark3 nfclab flipper emv felica ndef plugin desfire nfcdep atr-ats plist filter diff usbmon hydranfc inflate trz npp gsmtap-sim pcsc-spy"
OUT=.build/fuzz
BIN=$OUT/nfcscope-fuzz
mkdir -p "$OUT"

build() {
    stale=no
    [ -x "$BIN" ] || stale=yes
    if [ $stale = no ] && [ -n "$(find Sources/NFCScope Fuzz -name '*.swift' -newer "$BIN" | head -1)" ]; then stale=yes; fi
    [ $stale = yes ] || return 0
    # libFuzzer's runtime ships with the Swift toolchain (its clang resource folder), not
    # with a Debian package: say so plainly when a toolchain lacks it.
    toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")
    if ! ls "$toolchain"/lib/clang/*/lib/linux/libclang_rt.fuzzer-"$(uname -m)".a >/dev/null 2>&1 \
        && ! ls "$toolchain"/lib/swift/clang/lib/linux/libclang_rt.fuzzer-"$(uname -m)".a >/dev/null 2>&1; then
        echo "libFuzzer runtime (libclang_rt.fuzzer-$(uname -m).a) not found under $toolchain/lib: use a swift.org toolchain" >&2
        exit 69
    fi
    echo "building $BIN" >&2
    # From a copy of the sources, so that editing one during the build (which swiftc
    # refuses at the end) does not waste it; the binary gets the copy's time.
    rm -rf "$OUT/src"
    mkdir -p "$OUT/src/Fuzz"
    touch "$OUT/src/.start"
    cp -R Sources/NFCScope "$OUT/src/NFCScope"
    cp -R Fuzz/Entry.swift Fuzz/Harnesses "$OUT/src/Fuzz/"
    # The library is C-free (no -I for C modules); its `package` declarations need a package
    # name; -num-threads 2: optimisation and code generation on both cores of a CI machine.
    # shellcheck disable=SC2046
    swiftc -O -wmo -num-threads 2 -sanitize=fuzzer,address -parse-as-library -module-name NFCScope -package-name nfcscope -swift-version 6 \
        $(find "$OUT/src/NFCScope" -name '*.swift' | sort) "$OUT/src/Fuzz/Entry.swift" "$OUT"/src/Fuzz/Harnesses/*.swift \
        -o "$BIN.tmp"
    mv "$BIN.tmp" "$BIN"
    # A source edited during the build is newer than the copy: the next run rebuilds.
    touch -r "$OUT/src/.start" "$BIN"
}

# Seed files for a target, by what the files are (Fuzz/corpus/TARGET is added to these).
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
        plugin) ls plugins/*.plugin ;;
        trz|inflate) find $F -name '*.trz' -o -name '*.gz' ;;
        gsmtap-sim) ls $F/pySim*.pcapng ;;
        pcsc-spy) ls $F/pcsc-spy/* ;;
        *) ;;
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
    NFCSCOPE_FUZZ_TARGET=$t ASAN_OPTIONS=symbolize=0:detect_leaks=0 \
        timeout -k 10 $((seconds * 2 + 120)) "$BIN" "$corpus" "$seedDir" $dict \
        -max_total_time="$seconds" -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
        -artifact_prefix="$OUT/artifacts/$t-" -print_final_stats=1 >"$log" 2>&1 || status=$?
    # libFuzzer's last status line (#N, a tab, the event, then cov: ft: corp: ...).
    last=$(grep -aE '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 | sed 's/^#[0-9]*[[:space:]]*[A-Z]*[[:space:]]*//' || true)
    execs=$(grep -aE '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
    rss=$(grep -aE '^stat::peak_rss_mb' "$log" | awk '{print $2}' || true)
    echo "$t: ${execs:-?} executions in ${seconds} s; ${last:-no status line}; peak RSS ${rss:-?} MB"
    if [ $status -ne 0 ]; then
        [ $status -eq 124 ] && echo "$t: killed by timeout after $((seconds * 2 + 120)) s" >&2
        echo "$t: libFuzzer exited with status $status; see $log and $OUT/artifacts/" >&2
        grep -aE 'ERROR|SUMMARY|Fatal|deadly|Test unit written' "$log" | head -5 >&2 || true
        return 1
    fi
}

case "${1:-}" in
    build) build ;;
    all) build; failed=0; for t in $TARGETS; do run "$t" "${2:?seconds}" || failed=1; done; exit $failed ;;
    smoke)
        build
        seconds=${2:?seconds}
        # Two targets at a time on two cores; xargs exits non-zero when any run failed.
        # shellcheck disable=SC2086
        printf '%s\n' $TARGETS | xargs -P "${NFCSCOPE_FUZZ_JOBS:-2}" -I{} sh "$0" run-built {} "$seconds"
        ;;
    run-built) run "${2:?target}" "${3:?seconds}" ;;
    "") echo "usage: Fuzz/run.sh TARGET|all|smoke SECONDS | build" >&2; exit 64 ;;
    *) build; run "$1" "${2:?seconds}" ;;
esac
