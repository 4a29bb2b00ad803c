#!/usr/bin/env bash
# Throughput benchmark for nfcscope. See BENCHMARKS.md.
#
# usage: benchmarks/run.sh [--quick] [--bolt] [--runs N] [--no-build] [--no-write]
#
#   --quick      ~100 MB capture instead of 1 GiB
#   --bolt       measure the release binary laid out by BOLT (benchmarks/bolt.sh)
#   --runs N     timed runs per command, median reported (default 3)
#   --no-build   skip `swift build -c release`
#   --no-write   print the results only, leave BENCHMARKS.md alone
#
# Environment:
#   NFCSCOPE=path      binary under test (default .build/release/nfcscope)
#   BENCH_SIZE_MB=M    size of the large capture in MiB (default 1024)
#   BENCH_SEED=S       generator seed (default 1)
#   BENCH_CPU=C        core to pin to with taskset (default 0)
#   TSHARK=path        tshark for the comparison (default: tshark on PATH)
#   BENCH_TSHARK_ROUNDS=R  interleaved rounds of the tshark comparison (default 5)
#   BENCH_ISSUE_ROUNDS=R   rounds of the same comparison on a 640,000-frame capture, the
#                          size issue 16 measured (default 3; 0 skips it)
#   LLVM_BOLT=path     llvm-bolt for --bolt (see benchmarks/bolt.sh)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

SIZE_MB=${BENCH_SIZE_MB:-1024}
SEED=${BENCH_SEED:-1}
CPU=${BENCH_CPU:-0}
RUNS=3
TSHARK_ROUNDS=${BENCH_TSHARK_ROUNDS:-5}
NFCSCOPE_PER_ROUND=9
SMALL_FRAMES=100000
# Issue 16 measured its ratio on an EMV-heavy capture of 640,000 frames: the same
# comparison on a capture of that size (0 rounds: skipped).
ISSUE_FRAMES=640000
ISSUE_ROUNDS=${BENCH_ISSUE_ROUNDS:-3}
BUILD=1
WRITE=1
BOLT=0
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) SIZE_MB=100 ;;
        --bolt) BOLT=1 ;;
        --runs) RUNS=${2:?--runs needs a value}; shift ;;
        --no-build) BUILD=0 ;;
        --no-write) WRITE=0 ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

if [ $BOLT = 1 ]; then
    NFCSCOPE=${NFCSCOPE:-$ROOT/.build/release/nfcscope-bolt}
else
    NFCSCOPE=${NFCSCOPE:-$ROOT/.build/release/nfcscope}
fi
TSHARK=${TSHARK:-tshark}
GEN=$ROOT/.build/release/nfcscope-bench
DATA=$ROOT/bench-data
RESULTS_MD=$ROOT/BENCHMARKS.md
BEGIN_MARK='<!-- BEGIN GENERATED RESULTS (benchmarks/run.sh) -->'
END_MARK='<!-- END GENERATED RESULTS -->'

log() { echo "run.sh: $*" >&2; }
die() { log "$*"; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# ---------------------------------------------------------------- tools

if [ ! -x /usr/bin/time ]; then
    log "/usr/bin/time missing, trying apt-get install time"
    if [ "$(id -u)" = 0 ]; then
        apt-get install -y -qq time >/dev/null 2>&1 || true
    else
        sudo -n apt-get install -y -qq time >/dev/null 2>&1 || true
    fi
fi
HAVE_TIME=0
[ -x /usr/bin/time ] && HAVE_TIME=1
[ $HAVE_TIME = 1 ] || log "GNU time unavailable: peak RSS will be reported as n/a"

# Pin this shell once: every command it starts inherits the CPU, so no taskset
# process runs inside a timed run.
if command -v taskset >/dev/null 2>&1 && taskset -cp "$CPU" $$ >/dev/null 2>&1; then
    PIN_NOTE="pinned to CPU $CPU (\`taskset -cp $CPU\` on the benchmark's shell, inherited by each command)"
else
    log "taskset missing or refused: running unpinned"
    PIN_NOTE="not pinned (taskset unavailable)"
fi

# clock_us: sets CLOCK to the wall clock in microseconds. Bash 5's EPOCHREALTIME
# reads it without starting a process; `date` costs a fork and an exec (about a
# millisecond each), which on a 40 ms run would be counted as the command's time.
clock_us() {
    if [ -n "${EPOCHREALTIME:-}" ]; then CLOCK=${EPOCHREALTIME//[!0-9]/}
    else CLOCK=$(( $(date +%s%N) / 1000 )); fi
}

# ---------------------------------------------------------------- build

if [ $BUILD = 1 ]; then
    log "building release"
    swift build -c release >&2
fi
if [ $BOLT = 1 ] && { [ $BUILD = 1 ] || [ ! -x "$NFCSCOPE" ]; }; then
    log "laying out the release binary with BOLT (benchmarks/bolt.sh)"
    "$ROOT/benchmarks/bolt.sh" -o "$NFCSCOPE" >&2
fi
[ -x "$GEN" ] || die "generator not found at $GEN (build with: swift build -c release --product nfcscope-bench)"
[ -x "$NFCSCOPE" ] || die "nfcscope binary not found at $NFCSCOPE (set NFCSCOPE=path)"

# ---------------------------------------------------------------- inputs

# Generator fingerprint: regenerate cached captures when its sources change.
GEN_HASH=$(cat "$ROOT"/Sources/nfcscope-bench/*.swift | sha256sum | cut -c1-12)

# ensure_capture FILE ARGS... : generate FILE with the given generator
# arguments unless a capture made with the same arguments and generator
# sources is already there. The sidecar FILE.meta records the parameters and
# the generator's "frames N" / "bytes N" lines.
ensure_capture() {
    local file=$1; shift
    local meta=$file.meta
    local params="generator=$GEN_HASH args=$*"
    if [ -f "$file" ] && [ -f "$meta" ] && [ "$(sed -n 1p "$meta")" = "params $params" ]; then
        local want
        want=$(awk '$1 == "bytes" { print $2 }' "$meta")
        if [ "$(stat -c %s "$file")" = "$want" ]; then
            log "using cached $(basename "$file")"
            return
        fi
    fi
    rm -f "$file" "$meta"
    log "generating $(basename "$file") ($*)"
    local out
    out=$("$GEN" generate "$@" -o "$file") || die "generator failed"
    { echo "params $params"; echo "$out"; } > "$meta"
    log "$(echo "$out" | tr '\n' ' ')"
}

meta_value() { awk -v k="$2" '$1 == k { print $2 }' "$1.meta"; }

mkdir -p "$DATA"
BIG=$DATA/big-${SIZE_MB}mb-seed${SEED}.pcap
SMALL=$DATA/small-${SMALL_FRAMES}-seed${SEED}.pcap
# Keep at most one large capture on disk.
for old in "$DATA"/big-*.pcap; do
    if [ -e "$old" ] && [ "$old" != "$BIG" ]; then rm -f "$old" "$old.meta"; fi
done
ensure_capture "$BIG" --size-mb "$SIZE_MB" --seed "$SEED"
ensure_capture "$SMALL" --frames "$SMALL_FRAMES" --seed "$SEED"
ISSUE=$DATA/issue-${ISSUE_FRAMES}-seed${SEED}.pcap
if [ "$ISSUE_ROUNDS" -gt 0 ]; then ensure_capture "$ISSUE" --frames "$ISSUE_FRAMES" --seed "$SEED"; fi

BIG_FRAMES=$(meta_value "$BIG" frames)
BIG_BYTES=$(meta_value "$BIG" bytes)
SMALL_FRAMES_ACTUAL=$(meta_value "$SMALL" frames)
SMALL_BYTES=$(meta_value "$SMALL" bytes)
if [ "$ISSUE_ROUNDS" -gt 0 ]; then
    ISSUE_FRAMES_ACTUAL=$(meta_value "$ISSUE" frames)
    ISSUE_BYTES=$(meta_value "$ISSUE" bytes)
    cat "$ISSUE" > /dev/null
fi
ISSUE_NAME="bench-data/$(basename "$ISSUE")"

# Warm the page cache so every run, including the first, reads from memory.
cat "$BIG" "$SMALL" > /dev/null

# ---------------------------------------------------------------- measuring

# measure NAME CMD... : runs CMD $RUNS times (stdout to /dev/null) and sets M_WALL
# (median wall seconds). Only the command runs between the two clock readings.
# Unless WANT_RSS=0, one more run under GNU time sets M_RSS (peak RSS in KiB, or
# n/a): time's own fork and exec stay out of the timed runs.
WANT_RSS=1
measure() {
    local name=$1; shift
    local walls=() i t0
    for ((i = 1; i <= RUNS; i++)); do
        clock_us; t0=$CLOCK
        if ! "$@" > /dev/null 2> "$TMP/err"; then
            log "$name failed:"; cat "$TMP/err" >&2
            exit 1
        fi
        clock_us
        walls+=("$(awk -v a="$t0" -v b="$CLOCK" 'BEGIN { printf "%.4f", (b - a) / 1e6 }')")
        log "$name run $i/$RUNS: ${walls[-1]} s"
    done
    M_WALL=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    M_RSS=n/a
    if [ $HAVE_TIME = 1 ] && [ $WANT_RSS = 1 ]; then
        if ! /usr/bin/time -f '%M' -o "$TMP/time" "$@" > /dev/null 2> "$TMP/err"; then
            log "$name failed:"; cat "$TMP/err" >&2; tail -n 2 "$TMP/time" >&2 || true
            exit 1
        fi
        M_RSS=$(awk 'END { print $1 }' "$TMP/time")
    fi
}

fmt_rate() {  # count seconds -> "12.3 M" style
    awk -v n="$1" -v s="$2" 'BEGIN {
        r = n / s
        if (r >= 1e9) printf "%.2f G", r / 1e9
        else if (r >= 1e6) printf "%.2f M", r / 1e6
        else if (r >= 1e3) printf "%.1f k", r / 1e3
        else printf "%.0f", r }'
}
fmt_mbs() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.0f", b / 1e6 / s }'; }
fmt_rss() { if [ "$1" = n/a ]; then echo n/a; else awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; fi; }
# median V... -> the middle value (the mean of the two middle ones for an even count)
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.5f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# check VALUE OP LIMIT -> yes / no / n/a
check() { if [ "$1" = n/a ]; then echo n/a; else awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN { ok = (op == ">=") ? v >= l : v < l; print ok ? "yes" : "**no**" }'; fi; }

BIG_NAME="bench-data/$(basename "$BIG")"
SMALL_NAME="bench-data/$(basename "$SMALL")"

ROWS=()
CHECKS=()
bench_big() {
    local label=$1 target_fps=$2; shift 2
    measure "$label" "$@"
    local fps rss_mb
    fps=$(awk -v n="$BIG_FRAMES" -v s="$M_WALL" 'BEGIN { printf "%.0f", n / s }')
    rss_mb=$(fmt_rss "$M_RSS")
    ROWS+=("| \`$label\` | $M_WALL | $(fmt_rate "$BIG_FRAMES" "$M_WALL") | $(fmt_mbs "$BIG_BYTES" "$M_WALL") | $rss_mb |")
    if [ "$target_fps" != - ]; then
        CHECKS+=("| \`$label\` frames/s | ≥ $(fmt_rate "$target_fps" 1) | $(fmt_rate "$fps" 1) | $(check "$fps" '>=' "$target_fps") |")
    fi
    local rss_check=n/a
    if [ "$rss_mb" != n/a ]; then rss_check=$(check "$rss_mb" '<' 64); fi
    CHECKS+=("| \`$label\` peak RSS | < 64 MB | $rss_mb MB | $rss_check |")
}

log "timing on $BIG_NAME ($BIG_FRAMES frames, $BIG_BYTES bytes), $RUNS runs each"
bench_big "nfcscope stats" 20000000 "$NFCSCOPE" stats "$BIG"
bench_big "nfcscope decode --format jsonl" 3000000 "$NFCSCOPE" decode --format jsonl "$BIG"
bench_big "nfcscope decode --format text" - "$NFCSCOPE" decode --format text "$BIG"

# compare_tshark FILE NAME FRAMES BYTES ROUNDS WHAT : the tshark comparison on FILE; appends
# its section to TSHARK_SECTION and its row to CHECKS.
# Interleaved rounds: each round times one tshark run and then NFCSCOPE_PER_ROUND
# nfcscope runs, so a slow spell of the host falls on both sides of the ratio rather
# than on one (tshark's own runs spread by ±20 % on a shared host, session 40).
# Reported: the ratio of the medians (all tshark runs, all nfcscope runs), and each
# round's ratio (its tshark run over the median of its nfcscope runs).
compare_tshark() {
    local file=$1 name=$2 frames=$3 bytes=$4 rounds=$5 what=$6
    local t_walls=() n_walls=() round_ratios=() round i t0 tw nw
    log "tshark comparison on $name, $rounds rounds"
    for ((round = 1; round <= rounds; round++)); do
        clock_us; t0=$CLOCK
        "$TSHARK" -r "$file" -T json > /dev/null 2> "$TMP/err" || { log "tshark failed:"; cat "$TMP/err" >&2; exit 1; }
        clock_us
        tw=$(awk -v a="$t0" -v b="$CLOCK" 'BEGIN { printf "%.4f", (b - a) / 1e6 }')
        t_walls+=("$tw")
        local round_walls=()
        for ((i = 1; i <= NFCSCOPE_PER_ROUND; i++)); do
            clock_us; t0=$CLOCK
            "$NFCSCOPE" decode --format jsonl "$file" > /dev/null 2> "$TMP/err" || { log "nfcscope failed:"; cat "$TMP/err" >&2; exit 1; }
            clock_us
            round_walls+=("$(awk -v a="$t0" -v b="$CLOCK" 'BEGIN { printf "%.5f", (b - a) / 1e6 }')")
        done
        n_walls+=("${round_walls[@]}")
        nw=$(median "${round_walls[@]}")
        round_ratios+=("$(awk -v t="$tw" -v n="$nw" 'BEGIN { printf "%.1f", t / n }')")
        log "tshark round $round/$rounds: tshark $tw s, nfcscope median $nw s, ${round_ratios[-1]}×"
    done
    local t_wall n_wall ratio met t_spread n_spread
    t_wall=$(median "${t_walls[@]}")
    n_wall=$(median "${n_walls[@]}")
    ratio=$(awk -v t="$t_wall" -v n="$n_wall" 'BEGIN { printf "%.1f", t / n }')
    met=$(printf '%s\n' "${round_ratios[@]}" | awk '$1 >= 100' | wc -l)
    t_spread="$(printf '%s\n' "${t_walls[@]}" | sort -g | head -n 1)-$(printf '%s\n' "${t_walls[@]}" | sort -g | tail -n 1)"
    n_spread="$(printf '%s\n' "${n_walls[@]}" | sort -g | head -n 1)-$(printf '%s\n' "${n_walls[@]}" | sort -g | tail -n 1)"
    CHECKS+=("| \`decode --format jsonl\` vs \`tshark -T json\`, $frames frames | ≥ 100× | ${ratio}× | $(check "$ratio" '>=' 100) |")
    TSHARK_SECTION+=$(cat <<EOF


#### $frames frames ($what)

\`$name\`, $bytes bytes. $rounds interleaved rounds: one tshark run, then $NFCSCOPE_PER_ROUND nfcscope runs.

| Command | Median wall (s) | Range (s) | Frames/s |
|---|---:|---:|---:|
| \`tshark -r FILE -T json\` | $t_wall | $t_spread | $(fmt_rate "$frames" "$t_wall") |
| \`nfcscope decode --format jsonl FILE\` | $n_wall | $n_spread | $(fmt_rate "$frames" "$n_wall") |

nfcscope is **${ratio}×** faster (ratio of the medians); each round's ratio: $(IFS=' '; echo "${round_ratios[*]}" | sed 's/ /×, /g')× ($met of $rounds rounds at 100× or more).
EOF
)
}

TSHARK_SECTION=""
if command -v "$TSHARK" >/dev/null 2>&1; then
    TSHARK_VERSION=$("$TSHARK" --version 2>/dev/null | head -n 1 | sed 's/\.$//')
    TSHARK_SECTION="### Against tshark

$TSHARK_VERSION, on the same file in the same run."
    compare_tshark "$SMALL" "$SMALL_NAME" "$SMALL_FRAMES_ACTUAL" "$SMALL_BYTES" "$TSHARK_ROUNDS" \
        "start-up is a tenth of nfcscope's time here"
    if [ "$ISSUE_ROUNDS" -gt 0 ]; then
        compare_tshark "$ISSUE" "$ISSUE_NAME" "$ISSUE_FRAMES_ACTUAL" "$ISSUE_BYTES" "$ISSUE_ROUNDS" \
            "the size of the capture issue 16 measured"
    fi
else
    log "tshark not installed: comparison skipped"
    TSHARK_SECTION=$'### Against tshark\n\nSkipped: `tshark` is not installed on this machine.'
    CHECKS+=("| \`decode --format jsonl\` vs \`tshark -T json\` | ≥ 100× | skipped | n/a |")
fi

# ---------------------------------------------------------------- report

CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
[ -n "$CPU_MODEL" ] || CPU_MODEL=$(uname -m)
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ "$COMMIT" != unknown ] && ! git diff --quiet HEAD -- Sources Package.swift 2>/dev/null; then
    COMMIT="$COMMIT (with uncommitted changes in Sources/)"
fi
SWIFT_VERSION=$(swift --version 2>/dev/null | head -n 1 || echo unknown)
BINARY_NOTE=""
if [ "$NFCSCOPE" = "$ROOT/.build/release/nfcscope-bolt" ]; then
    BINARY_NOTE=" Binary: the release build laid out by BOLT (\`benchmarks/bolt.sh\`, \`--bolt\`)."
elif [ "$NFCSCOPE" != "$ROOT/.build/release/nfcscope" ]; then
    BINARY_NOTE=" Binary: \`$NFCSCOPE\` (NFCSCOPE override)."
fi

REPORT=$(cat <<EOF
Generated by \`benchmarks/run.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC').

- Machine: $CPU_MODEL, $(nproc --all) cores (\`nproc --all\`; the benchmark itself runs pinned to one), Linux $(uname -r)
- Commit: $COMMIT; $SWIFT_VERSION
- Runs: median wall time of $RUNS, $PIN_NOTE, stdout to \`/dev/null\`, input in the page cache, the clock read by the shell itself (\`EPOCHREALTIME\`); peak RSS from one more run under GNU time (\`%M\`).$BINARY_NOTE

### Large capture

\`$BIG_NAME\`: $BIG_FRAMES frames, $BIG_BYTES bytes (seed $SEED). MB = 10^6 bytes of input.

| Command | Wall (s) | Frames/s | MB/s | Peak RSS (MB) |
|---|---:|---:|---:|---:|
$(printf '%s\n' "${ROWS[@]}")

$TSHARK_SECTION

### Targets

| Target | Goal | Measured | Met |
|---|---|---|---|
$(printf '%s\n' "${CHECKS[@]}")
EOF
)

echo "$REPORT"

if [ $WRITE = 1 ]; then
    if [ -f "$RESULTS_MD" ] && grep -qF "$BEGIN_MARK" "$RESULTS_MD" && grep -qF "$END_MARK" "$RESULTS_MD"; then
        printf '%s\n' "$REPORT" > "$TMP/report"
        awk -v b="$BEGIN_MARK" -v e="$END_MARK" -v rf="$TMP/report" '
            $0 == b { print; while ((getline line < rf) > 0) print line; skip = 1; next }
            $0 == e { skip = 0 }
            !skip { print }' "$RESULTS_MD" > "$TMP/md"
        cat "$TMP/md" > "$RESULTS_MD"
    else
        { echo; echo "## Results"; echo; echo "$BEGIN_MARK"; echo "$REPORT"; echo "$END_MARK"; } >> "$RESULTS_MD"
    fi
    log "results written to BENCHMARKS.md"
fi
