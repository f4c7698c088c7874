#!/usr/bin/env bash
# bench-doubling.sh checks that the headless commands' cost grows linearly
# with their input: it times each on an input that doubles, and reports
# the ratio of each run to the one before (2.0 is linear) with the peak
# RSS, so that a cost that grows faster than the input (a collector
# running without pause near a fixed heap limit, a quadratic search) shows
# as a ratio past the target whatever the machine's speed.
#
# usage: scripts/bench-doubling.sh
#
# Series:
#
#   calls   `calls --json` on Anthropic captures (scripts/gencapture: the
#           smallest events, the most of them per byte) of SIZES
#   check   `check` on the same captures
#   timeline  `timeline` (the plain timeline, one line an event) on the
#           same captures: a line's summary once looked up its event's
#           status change among every response, quadratic in the number
#           of responses
#   diff    `diff A A` (identical) and `diff A B` where B holds A's events
#           shuffled (seeded), on the first EVENTS events of one capture
#   index   the inspector reading the first capture to its end in a tmux
#           terminal (its status line leaves "indexing"), against `calls
#           --json` on the same file (skipped without tmux)
#
# Targets: each doubling at most 2.2x the time before (CPU time, user +
# system, from /usr/bin/time: steadier than elapsed on a shared machine;
# elapsed is shown too), and the index within 2x calls.
#
# Environment:
#   SIZES     capture sizes (default "128MiB 256MiB 512MiB 1GiB")
#   EVENTS    event counts of the diff series (default "100000 200000 400000 800000")
#   BASE_REF  also build this git ref (e.g. main) and run every series
#             with it too, for a before/after in one run
#   SERIES    the series to run (default "calls check timeline diff index")
#   RUNS      runs of each command on each input, the least time kept
#             (default 1; the machine's load moves single runs by 10%)
#   BENCH_DIR, KEEP=1 as for bench.sh
#
# Exit status: 0 when every target passes for this tree's streamtap, 1
# when one fails, 2 on error.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

SIZES=${SIZES:-128MiB 256MiB 512MiB 1GiB}
EVENTS=${EVENTS:-100000 200000 400000 800000}
SERIES=${SERIES:-calls check timeline diff index}
RUNS=${RUNS:-1}
TIMEFORMAT=%3R

source "$root/scripts/bench-lib.sh"
bench_setup bench-doubling
[[ -x /usr/bin/time ]] || { echo "bench-doubling.sh needs GNU time at /usr/bin/time" >&2; exit 2; }
go build -o "$TMP/streamtap" . || exit 2
bins=("$TMP/streamtap") labels=(head)
if [[ -n ${BASE_REF:-} ]]; then
	bench_build_ref "$BASE_REF" "$TMP/streamtap-base"
	bins+=("$TMP/streamtap-base") labels+=("$BASE_REF")
fi

calc() { awk "BEGIN { printf \"$1\", $2 }"; }
has() { [[ " $SERIES " == *" $1 "* ]]; }

# time_once CMD... runs CMD once, stdout to /dev/null, and sets t
# (elapsed seconds), u (user+system seconds), m (peak RSS KiB), rc.
time_once() {
	rc=0
	{ time nice /usr/bin/time -f '%M %U %S' -o "$TMP/rss" "$@" >/dev/null 2>>"$TMP/cmd.err"; } 2>"$TMP/elapsed" || rc=$?
	local user sys
	read -r m user sys < <(tail -n 1 "$TMP/rss")
	u=$(calc %.2f "$user + $sys")
	t=$(tail -n 1 "$TMP/elapsed")
}

rows=() status=0
# series NAME LABEL BIN_INDEX SIZES_LABELS... -- ARGS-WITH-@ ...: runs the
# command once per input, printing a row per input with the ratio to the
# row before. The inputs are given as "label=file[,file]".
series() {
	local name=$1 i=$2
	shift 2
	local prev_u= prev_t= in lab files
	for in in "$@"; do
		lab=${in%%=*} files=${in#*=}
		local args=()
		IFS=, read -r -a args <<<"$files"
		local bt= bu= bm=0 r
		for ((r = 0; r < RUNS; r++)); do
			case $name in
			calls) time_once "${bins[$i]}" calls --json "${args[@]}" ;;
			check) time_once "${bins[$i]}" check "${args[@]}" ;;
			timeline) time_once "${bins[$i]}" timeline "${args[@]}" ;;
			diff*) time_once "${bins[$i]}" diff "${args[@]}" ;;
			esac
			if [[ -z $bu ]] || awk -v a="$u" -v b="$bu" 'BEGIN { exit !(a < b) }'; then bu=$u; fi
			if [[ -z $bt ]] || awk -v a="$t" -v b="$bt" 'BEGIN { exit !(a < b) }'; then bt=$t; fi
			((m > bm)) && bm=$m
		done
		t=$bt u=$bu m=$bm
		local ru=- rt=- ok=-
		if [[ -n $prev_u ]]; then
			ru=$(calc %.2f "$u / ($prev_u > 0 ? $prev_u : 0.01)")
			rt=$(calc %.2f "$t / ($prev_t > 0 ? $prev_t : 0.01)")
			ok=$(awk -v r="$ru" 'BEGIN { print (r <= 2.2 ? "PASS" : "FAIL") }')
			if ((i == 0)) && [[ $ok == FAIL ]]; then status=1; fi
		fi
		rows+=("$(printf '%-8s %-14s %-10s %4s %8s %7s %8s %6s %6s %5s' "${labels[$i]}" "$name" "$lab" "$rc" "$t" "$u" \
			"$(calc %.0f "$m / 1024")" "$rt" "$ru" "$ok")")
		prev_u=$u prev_t=$t
	done
}

captures=()
if has calls || has check || has timeline || has index; then
	for size in $SIZES; do
		f=$dir/doubling-anthropic-$size.sse
		generated+=("$f")
		echo "generating anthropic $size..." >&2
		"$TMP/gencapture" -dialect anthropic -size "$size" -out "$f" 2>>"$TMP/gen.out"
		captures+=("$size=$f")
	done
fi
diffs_same=() diffs_shuffled=()
if has diff; then
	last=
	for n in $EVENTS; do last=$n; done
	big=$dir/doubling-diff-source.sse
	generated+=("$big")
	# about 7.6 Anthropic events a KB: generate enough for the largest count
	echo "generating the diff series (${EVENTS// /, } events)..." >&2
	"$TMP/gencapture" -dialect anthropic -size "$(calc %.0f "$last / 7.0 * 1024")B" -out "$big" 2>>"$TMP/gen.out"
	for n in $EVENTS; do
		a=$dir/doubling-diff-$n-a.sse b=$dir/doubling-diff-$n-shuffled.sse
		generated+=("$a" "$b")
		awk -v n="$n" 'BEGIN { RS = ""; ORS = "\n\n" } NR > n { exit } { print }' "$big" >"$a"
		# every event on one line, a seeded random key in front, sorted:
		# the same events in another order
		awk 'BEGIN { RS = ""; srand(1) } { gsub(/\n/, "\001"); printf "%.9f\t%s\n", rand(), $0 }' "$a" |
			sort -t "$(printf '\t')" -k1,1 | cut -f2- | awk '{ gsub(/\001/, "\n"); printf "%s\n\n", $0 }' >"$b"
		diffs_same+=("$n=$a,$a") diffs_shuffled+=("$n=$a,$b")
	done
fi
sed 's/^/  /' "$TMP/gen.out" >&2

# index_once BIN FILE sets t and u from bench_index (bench-lib.sh).
index_once() {
	bench_index "nice $1" "$2"
	t=$index_t u=$index_u
}

index_rows=()
for i in "${!bins[@]}"; do
	echo "running ${labels[$i]}..." >&2
	if has calls; then series calls "$i" "${captures[@]}"; fi
	if has check; then series check "$i" "${captures[@]}"; fi
	if has timeline; then series timeline "$i" "${captures[@]}"; fi
	if has diff; then
		series diff-same "$i" "${diffs_same[@]}"
		series diff-shuffled "$i" "${diffs_shuffled[@]}"
	fi
	if has index && command -v tmux >/dev/null; then
		first=${captures[0]#*=}
		time_once "${bins[$i]}" calls --json "$first"
		ct=$t cu=$u
		index_once "${bins[$i]}" "$first"
		if [[ -n $u ]]; then
			r=$(calc %.2f "$u / ($cu > 0 ? $cu : 0.01)")
			ok=$(awk -v r="$r" 'BEGIN { print (r <= 2 ? "PASS" : "FAIL") }')
			if ((i == 0)) && [[ $ok == FAIL ]]; then status=1; fi
			index_rows+=("$(printf '%-8s %-10s %8s %7s %8s %7s %6s %5s' "${labels[$i]}" "${captures[0]%%=*}" "$ct" "$cu" "$t" "$u" "$r" "$ok")")
		else
			index_rows+=("$(printf '%-8s %-10s the inspector did not finish' "${labels[$i]}" "${captures[0]%%=*}")")
		fi
	fi
done

echo
echo "doubling series — $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a), $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-8s %-14s %-10s %4s %8s %7s %8s %6s %6s %5s\n' build series input exit elapsed 'cpu s' 'RSS MiB' 'x t' 'x cpu' '<=2.2'
printf '%s\n' "${rows[@]}"
if ((${#index_rows[@]})); then
	echo
	printf '%-8s %-10s %8s %7s %8s %7s %6s %5s\n' build capture 'calls s' 'cpu s' 'index s' 'cpu s' 'x cpu' '<=2'
	printf '%s\n' "${index_rows[@]}"
fi
echo
echo "x t, x cpu = elapsed and CPU time over the row before (2.00 is linear), best of $RUNS; the target holds CPU to 2.2."
echo "index: seconds until the inspector's status line leaves \"indexing\", and the CPU it used by then, against calls --json."
exit $status
