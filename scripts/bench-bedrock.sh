#!/usr/bin/env bash
# bench-bedrock.sh times `streamtap calls --json` on Bedrock captures
# (ConverseStream, InvokeModel) against the Anthropic SSE capture carrying
# the same calls and text, back to back, so the ratio means something on a
# loaded machine; with BASE it does the same for the streamtap of another
# revision in the same run, so a change is measured against what it changed.
#
# usage: scripts/bench-bedrock.sh
#        BASE=main scripts/bench-bedrock.sh
#
# It generates a SIZE Anthropic capture (scripts/gencapture) and the
# Bedrock captures of its turns (same seed: about 1.5x and 2x its bytes),
# then for ROUNDS rounds runs, for each binary, calls --json on the
# Anthropic capture and right after it on each Bedrock one, and keeps the
# ratio of each pair (elapsed, and user+system CPU). A pair runs within a
# second or two, so a burst of load from elsewhere tends to hit both of
# its runs; the median of the pairs is the figure, printed with the best
# and worst. Target: calls on each Bedrock capture at most 1.5x its time on
# the Anthropic capture (the median, elapsed).
#
# Environment:
#   BASE       a git revision to build and measure as well (e.g. main)
#   BENCH_DIR  directory for the captures (default: a new temporary one)
#   KEEP=1     keep the generated captures
#   SIZE       size of the Anthropic capture (default 100MB)
#   ROUNDS     rounds (default 9)
#
# Exit status: 0 when the head's medians pass, 1 when one fails, 2 on error.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

SIZE=${SIZE:-100MB}
ROUNDS=${ROUNDS:-9}
TIMEFORMAT='%3R %3U %3S'

source "$root/scripts/bench-lib.sh"
bench_setup bench-bedrock
go build -o "$TMP/head" . || exit 2
bins=("$TMP/head")
names=(head)
if [[ -n ${BASE:-} ]]; then
	bench_build_ref "$BASE" "$TMP/base"
	bins+=("$TMP/base")
	names+=("base $BASE")
fi

gen() { # gen NAME DIALECT FLAGS…
	local f=$dir/$1
	generated+=("$f")
	echo "generating $1..." >&2
	"$TMP/gencapture" -dialect "$2" -size "$SIZE" "${@:3}" -out "$f" 2>"$TMP/gen.out"
	cat "$TMP/gen.out" >&2
}
gen anthropic.sse anthropic
turns=$(sed -n 's/.* responses=\([0-9]*\).*/\1/p' "$TMP/gen.out")
gen converse.eventstream bedrock -turns "$turns"
gen invoke.eventstream bedrock-invoke -turns "$turns"
for f in anthropic.sse converse.eventstream invoke.eventstream; do cat -- "$dir/$f" >/dev/null; done

# calc_mb FILE prints its size in MB.
calc_mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.0f", b / 1e6 }'; }

# run BIN FILE sets w (elapsed) and c (user+system CPU) of one calls --json.
run() {
	local out u s
	out=$({ time "$1" calls --json "$dir/$2" >/dev/null; } 2>&1)
	read -r w u s <<<"$out"
	c=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
}

declare -A walls cpus
for ((r = 0; r < ROUNDS; r++)); do
	for i in "${!bins[@]}"; do
		for f in converse.eventstream invoke.eventstream; do
			run "${bins[$i]}" anthropic.sse
			aw=$w ac=$c
			run "${bins[$i]}" "$f"
			walls[$i $f]+="$(awk -v a="$aw" -v b="$w" 'BEGIN { printf "%.3f ", b / a }')"
			cpus[$i $f]+="$(awk -v a="$ac" -v b="$c" 'BEGIN { printf "%.3f ", b / a }')"
		done
	done
done

# stats prints the median, best and worst of the ratios on stdin.
stats() {
	tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END {
		m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		printf "%.2f (%.2f-%.2f)", m, a[1], a[NR] }'
}

echo
echo "calls --json, Bedrock / Anthropic of the same calls and text: median (best-worst) of $ROUNDS back-to-back pairs —" \
	"$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a), $(go version | cut -d' ' -f3)"
printf '%-16s %-30s %-18s %-18s %s\n' binary capture 'elapsed ratio' 'CPU ratio' '<=1.5'
fail=0
for i in "${!bins[@]}"; do
	for f in converse.eventstream invoke.eventstream; do
		m=$(echo "${walls[$i $f]}" | stats)
		v=$(awk -v m="${m%% *}" 'BEGIN { print (m <= 1.5 ? "PASS" : "FAIL") }')
		((i == 0)) && [[ $v == FAIL ]] && fail=1
		printf '%-16s %-30s %-18s %-18s %s\n' "${names[$i]}" "$f ($(calc_mb "$dir/$f") MB)" "$m" "$(echo "${cpus[$i $f]}" | stats)" "$v"
	done
done
echo "(anthropic.sse: $(calc_mb "$dir/anthropic.sse") MB)"
exit "$fail"
