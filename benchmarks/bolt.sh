#!/usr/bin/env bash
# Lays out the release binary's hot code with LLVM BOLT, from a profile of its own runs on
# generated captures, and checks that the result prints exactly what the plain binary prints.
# See BENCHMARKS.md ("Session 34: the release binary laid out by BOLT").
#
# usage: benchmarks/bolt.sh [--no-build] [-o OUT]
#
#   --no-build   use the release build as it is: it must have been linked as step 1 links
#                it (swift build -c release --product nfcscope -Xlinker --emit-relocs
#                -Xlinker -z -Xlinker nopack-relative-relocs); the plain link is not
#                restored afterwards
#   -o OUT       where the optimised binary goes (default .build/release/nfcscope-bolt)
#
# Environment:
#   LLVM_BOLT=path   llvm-bolt to use (default: the newest llvm-bolt-N on PATH; as root the
#                    script installs Debian's bolt-19 when there is none)
#
# What it does:
#   1. relinks the release products with their relocations kept (`--emit-relocs`, which
#      BOLT needs to move functions) and without packed relative relocations (BOLT 19-22
#      write a broken dynamic section for a DT_RELR binary);
#   2. instruments the functions of nfcscope's own modules and of the Swift runtime and
#      standard library (BOLT stops on some of the concurrency library's functions, which
#      a decode never runs, so they are left as they are);
#   3. runs the instrumented binary over captures the generator makes with seed 7 (the
#      benchmark measures seed 1) and over samples/, in jsonl, text and stats;
#   4. writes OUT with the hot blocks of each function together and the hot functions
#      together (ext-tsp block order, cdsort function order, cold parts split off);
#   5. compares OUT's output with the plain binary's for every training run, and deletes
#      OUT if one byte differs;
#   6. relinks the plain release binary as `swift build -c release` makes it.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

BUILD=1
OUT=$ROOT/.build/release/nfcscope-bolt
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) BUILD=0 ;;
        -o) OUT=${2:?-o needs a path}; shift ;;
        -h|--help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bolt.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

log() { echo "bolt.sh: $*" >&2; }
die() { log "$*"; exit 1; }

newest_bolt() {
    local b
    b=$(compgen -c llvm-bolt- 2>/dev/null | grep -E '^llvm-bolt-[0-9]+$' | sort -t- -k3 -n | tail -n 1 || true)
    [ -n "$b" ] && command -v "$b"
}

BOLT=${LLVM_BOLT:-$(newest_bolt || true)}
if [ -z "$BOLT" ] && [ "$(id -u)" = 0 ]; then
    log "no llvm-bolt found: installing Debian's bolt-19"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bolt-19 >/dev/null 2>&1 || true
    BOLT=$(newest_bolt || true)
fi
[ -n "$BOLT" ] || die "llvm-bolt not found (Debian: apt-get install bolt-19; or set LLVM_BOLT)"
# Called by its real path (/usr/lib/llvm-N/bin/llvm-bolt on Debian): BOLT 19 looks for its
# instrumentation runtime beside where it was started from, and /usr/bin's link leads it
# to /usr/lib instead of /usr/lib/llvm-19/lib.
BOLT=$(readlink -f "$(command -v "$BOLT")")
MERGE=$(dirname "$BOLT")/merge-fdata
[ -x "$MERGE" ] || MERGE=$(command -v merge-fdata || true)
[ -n "$MERGE" ] || die "merge-fdata not found beside $BOLT"
log "using $BOLT"

REL=$ROOT/.build/release
LINK_BOLT=(-Xlinker --emit-relocs -Xlinker -z -Xlinker nopack-relative-relocs)

TMP=$(mktemp -d)
restore() {
    rm -rf "$TMP"
    # Leave the plain release binary behind, as `swift build -c release` links it.
    if [ $BUILD = 1 ]; then swift build -c release >/dev/null 2>&1 || log "relinking the plain binary failed"; fi
}
trap restore EXIT

if [ $BUILD = 1 ]; then
    log "building release with relocations kept"
    # Only nfcscope is linked by lld (Package.swift); the generator's default linker
    # knows neither flag.
    swift build -c release --product nfcscope-bench >&2
    swift build -c release --product nfcscope "${LINK_BOLT[@]}" >&2
fi
[ -x "$REL/nfcscope" ] && [ -x "$REL/nfcscope-bench" ] || die "release build missing"
readelf -S "$REL/nfcscope" | grep -q '\.rela\.text' \
    || die "$REL/nfcscope has no kept relocations (run without --no-build)"
cp "$REL/nfcscope" "$TMP/nfcscope-plain"

# The functions BOLT may lay out: nfcscope's modules (their names carry the module name,
# generic specialisations for their types included), the Swift runtime (swift_*) and the
# standard library ($ss).
nm "$TMP/nfcscope-plain" | awk '$2 ~ /^[tT]$/ { print $3 }' \
    | grep -E 'NFCScope|nfcscope|^swift_|^_swift|^\$ss' | sort -u > "$TMP/functions"
log "$(wc -l < "$TMP/functions") functions eligible"

"$BOLT" "$TMP/nfcscope-plain" -o "$TMP/nfcscope-instrumented" -instrument \
    -funcs-file-no-regex="$TMP/functions" \
    -instrumentation-file="$TMP/profile.fdata" -instrumentation-file-append-pid \
    > "$TMP/instrument.log" 2>&1 || { tail -n 20 "$TMP/instrument.log" >&2; die "instrumenting failed"; }

# Training captures: the benchmark's shapes with another seed, smaller.
GEN=$REL/nfcscope-bench
"$GEN" generate --size-mb 10 --seed 7 -o "$TMP/emv.pcap" >/dev/null
for shape in felica t2t libnfc proxmark3; do
    "$GEN" generate --size-mb 4 --seed 7 --shape "$shape" -o "$TMP/$shape.in" >/dev/null
done
INPUTS=("$TMP/emv.pcap" "$TMP"/felica.in "$TMP"/t2t.in "$TMP"/libnfc.in "$TMP"/proxmark3.in)
for f in samples/*; do [ -f "$f" ] && INPUTS+=("$f"); done

# run BIN TAG: every command over every input, outputs (stdout, stderr, status) under TAG.
run() {
    local bin=$1 tag=$2 i=0 f args
    mkdir -p "$TMP/$tag"
    for f in "${INPUTS[@]}"; do
        for args in "decode --format jsonl" "decode --format text" "stats"; do
            i=$((i + 1))
            # shellcheck disable=SC2086
            "$bin" $args "$f" > "$TMP/$tag/$i.out" 2> "$TMP/$tag/$i.err" && echo 0 >> "$TMP/$tag/$i.err" \
                || echo "$?" >> "$TMP/$tag/$i.err"
        done
    done
}
log "training on ${#INPUTS[@]} inputs"
run "$TMP/nfcscope-instrumented" trained
"$MERGE" "$TMP"/profile.fdata.* > "$TMP/merged.fdata" 2> /dev/null
rm -f "$TMP"/profile.fdata.*

"$BOLT" "$TMP/nfcscope-plain" -o "$TMP/nfcscope-optimised" -data="$TMP/merged.fdata" \
    -funcs-file-no-regex="$TMP/functions" \
    -reorder-blocks=ext-tsp -reorder-functions=cdsort \
    -split-functions -split-all-cold -use-gnu-stack \
    > "$TMP/optimise.log" 2>&1 || { tail -n 20 "$TMP/optimise.log" >&2; die "optimising failed"; }
grep -E 'have non-empty execution profile' "$TMP/optimise.log" | sed 's/^/bolt.sh: /' >&2 || true

log "checking the optimised binary's output against the plain binary's"
run "$TMP/nfcscope-plain" plain
run "$TMP/nfcscope-optimised" optimised
if ! diff -rq "$TMP/plain" "$TMP/optimised" > "$TMP/differ" 2>&1; then
    head -n 5 "$TMP/differ" >&2
    die "the optimised binary's output differs: not written"
fi
mkdir -p "$(dirname "$OUT")"
cp "$TMP/nfcscope-optimised" "$OUT"
log "wrote $OUT ($(( $(ls "$TMP"/plain/*.out | wc -l) )) runs identical)"
