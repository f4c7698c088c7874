#!/usr/bin/env bash
# bench-aisdk.sh times `streamtap calls --json` on a generated UI message
# stream of the Vercel AI SDK against the Anthropic SSE capture carrying
# the same calls and text, back to back, so the ratio means something on
# a loaded machine; with BASE it does the same for the streamtap of
# another revision in the same run.
#
# usage: scripts/bench-aisdk.sh
#        BASE=main scripts/bench-aisdk.sh
#
# It generates a SIZE UI message stream (scripts/gencapture -dialect
# aisdk-ui: an agent run over Anthropic, a step a turn) and the Anthropic
# capture of its turns (same seed), then for ROUNDS rounds runs, for each
# binary, calls --json on the Anthropic capture and right after it on the
# UI stream, and keeps the ratio of each pair (elapsed, and user+system
# CPU). The median of the pairs is the figure, printed with the best and
# worst. Target: calls on the UI stream at most 1.3x its time on the
# Anthropic capture (the median, elapsed).
#
# Environment:
#   BASE       a git revision to build and measure as well (e.g. main)
#   BENCH_DIR  directory for the captures (default: a new temporary one)
#   KEEP=1     keep the generated captures
#   SIZE       size of the UI message stream (default 100MB)
#   ROUNDS     rounds (default 9)
#
# Exit status: 0 when the head's median passes, 1 when it fails, 2 on error.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

SIZE=${SIZE:-100MB}
ROUNDS=${ROUNDS:-9}
TIMEFORMAT='%3R %3U %3S'

source "$root/scripts/bench-lib.sh"
bench_setup bench-aisdk
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
	"$TMP/gencapture" -dialect "$2" "${@:3}" -out "$f" 2>"$TMP/gen.out"
	cat "$TMP/gen.out" >&2
}
gen ui.sse aisdk-ui -size "$SIZE"
turns=$(sed -n 's/.* responses=\([0-9]*\).*/\1/p' "$TMP/gen.out")
gen anthropic.sse anthropic -turns "$turns"
for f in anthropic.sse ui.sse; do cat -- "$dir/$f" >/dev/null; done

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
		run "${bins[$i]}" anthropic.sse
		aw=$w ac=$c
		run "${bins[$i]}" ui.sse
		walls[$i]+="$(awk -v a="$aw" -v b="$w" 'BEGIN { printf "%.3f ", b / a }')"
		cpus[$i]+="$(awk -v a="$ac" -v b="$c" 'BEGIN { printf "%.3f ", b / a }')"
	done
done

# stats prints the median, best and worst of the ratios on stdin.
stats() {
	tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END {
		m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		printf "%.2f (%.2f-%.2f)", m, a[1], a[NR] }'
}

echo
echo "calls --json, UI message stream / Anthropic of the same calls and text: median (best-worst) of $ROUNDS back-to-back pairs —" \
	"$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a), $(go version | cut -d' ' -f3)"
printf '%-16s %-30s %-18s %-18s %s\n' binary capture 'elapsed ratio' 'CPU ratio' '<=1.3'
fail=0
for i in "${!bins[@]}"; do
	m=$(echo "${walls[$i]}" | stats)
	v=$(awk -v m="${m%% *}" 'BEGIN { print (m <= 1.3 ? "PASS" : "FAIL") }')
	((i == 0)) && [[ $v == FAIL ]] && fail=1
	printf '%-16s %-30s %-18s %-18s %s\n' "${names[$i]}" "ui.sse ($(calc_mb "$dir/ui.sse") MB)" "$m" "$(echo "${cpus[$i]}" | stats)" "$v"
done
echo "(anthropic.sse: $(calc_mb "$dir/anthropic.sse") MB, $turns turns)"
exit "$fail"
