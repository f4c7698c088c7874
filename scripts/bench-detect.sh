#!/usr/bin/env bash
# bench-detect.sh measures what detecting the input's format costs when
# the input starts with what cannot tell it yet: `streamtap calls` on
# 100 MB of newlines and on 100 MB of spaces, against the same command
# with --format sse on the same file in the same run (the baseline: the
# framing alone). The runs alternate, auto and --format, so that a change
# of load on a shared machine touches both.
#
# usage: scripts/bench-detect.sh
#
# Target, for this tree's streamtap:
#
#   auto / --format  at most 1.5 on CPU time (detection was quadratic in
#                    a start of blank space: 100 MB of newlines took 28.8 s,
#                    1.4 s with --format)
#
# Environment:
#   BASE_REF  also build this git ref (e.g. main) and run it the same way
#   RUNS      timed pairs per file and build, best kept (default 3)
#   SIZE      the files' size in MiB (default 100)
#   BENCH_DIR, KEEP=1 as for bench.sh
#
# Exit status: 0 when the target holds, 1 when it fails, 2 on error.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

RUNS=${RUNS:-3}
SIZE=${SIZE:-100}

source "$root/scripts/bench-lib.sh"
bench_setup bench-detect
[[ -x /usr/bin/time ]] || { echo "bench-detect.sh needs GNU time at /usr/bin/time" >&2; exit 2; }
go build -o "$TMP/streamtap" . || exit 2
bins=("$TMP/streamtap") labels=(head)
if [[ -n ${BASE_REF:-} ]]; then
	bench_build_ref "$BASE_REF" "$TMP/streamtap-base"
	bins+=("$TMP/streamtap-base") labels+=("$BASE_REF")
fi

echo "writing ${SIZE} MiB of newlines and of spaces..." >&2
newlines=$dir/newlines.txt spaces=$dir/spaces.txt
generated+=("$newlines" "$spaces")
head -c "$((SIZE << 20))" /dev/zero | tr '\0' '\n' >"$newlines"
head -c "$((SIZE << 20))" /dev/zero | tr '\0' ' ' >"$spaces"

calc() { awk "BEGIN { printf \"$1\", $2 }"; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# cpu CMD... runs CMD once, stdout to /dev/null, and prints its CPU
# seconds (user+system).
cpu() {
	/usr/bin/time -f '%U %S' -o "$TMP/cpu" "$@" >/dev/null 2>>"$TMP/cmd.err" || true
	awk '{ printf "%.2f", $1 + $2 }' "$TMP/cpu"
}

status=0 rows=()
for file in "$newlines" "$spaces"; do
	for i in "${!bins[@]}"; do
		best_auto= best_fmt=
		for ((r = 0; r < RUNS; r++)); do
			a=$(cpu "${bins[$i]}" calls "$file")
			f=$(cpu "${bins[$i]}" calls --format sse "$file")
			if [[ -z $best_auto ]] || lt "$a" "$best_auto"; then best_auto=$a; fi
			if [[ -z $best_fmt ]] || lt "$f" "$best_fmt"; then best_fmt=$f; fi
		done
		ratio=$(calc %.2f "$best_auto / ($best_fmt > 0.01 ? $best_fmt : 0.01)")
		verdict=PASS
		if awk -v r="$ratio" 'BEGIN { exit !(r > 1.5) }'; then verdict=FAIL; fi
		if ((i == 0)) && [[ $verdict == FAIL ]]; then status=1; fi
		rows+=("$(printf '%-8s %-14s %9s %11s %7s %s' "${labels[$i]}" "$(basename "$file")" "$best_auto" "$best_fmt" "$ratio" "$verdict")")
	done
done

echo
echo "streamtap calls, format detected vs --format sse — CPU s, best of $RUNS, ${SIZE} MiB, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a), $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-8s %-14s %9s %11s %7s %s\n' build file auto '--format' ratio '<=1.5'
printf '%s\n' "${rows[@]}"
exit $status
