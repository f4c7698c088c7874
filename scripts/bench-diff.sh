#!/usr/bin/env bash
# bench-diff.sh times `streamtap diff A B` on two large captures against
# `streamtap calls --json` on each of them, in the same run, so the result
# is a ratio that means something on any machine, loaded or not.
#
# usage: scripts/bench-diff.sh
#
# For each dialect (Responses, Chat, Anthropic) it generates a capture
# with scripts/gencapture and a copy with a few edits (awk, one record per
# SSE event): one event dropped a third of the way in, one argument
# fragment changed half-way, and a keep-alive comment added two thirds of
# the way (ignored by default). The big-event capture (one 50 MB argument
# delta) gets its arguments changed in every statement of them (the
# delta, .done, the terminal snapshot). It then times, best of RUNS,
# interleaved so that a burst of load hits all three:
#
#   calls --json A,  calls --json B,  diff A B
#
# checks that diff exits 1 and reports the dropped event and the changed
# field (big-event: the changed fields), and prints a table with PASS/FAIL against the targets:
#
#   speed   time(diff A B) <= 2 x (time(calls A) + time(calls B))
#   memory  peak RSS of diff <= 2 x (64 MiB + 3 x the largest event): the
#           headless budget for each of the two streams it holds
#
# Elapsed times come from bash's `time`, peak RSS from /usr/bin/time -f %M
# (n/a without it).
#
# Environment:
#   BENCH_DIR  directory for the captures (default: a new temporary one)
#   KEEP=1     keep the generated captures
#   SIZE       size of each capture (default 100MB)
#   BIG        size of the big event (default 50MB)
#   RUNS       timed runs per command (default 3)
#   DIALECTS   the captures to run (default "responses chat anthropic big-event")
#
# Exit status: 0 when every target passes, 1 when one fails, 2 on error.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

SIZE=${SIZE:-100MB}
RUNS=${RUNS:-3}
BIG=${BIG:-50MB}
DIALECTS=${DIALECTS:-responses chat anthropic big-event}
TIMEFORMAT=%3R

source "$root/scripts/bench-lib.sh"
bench_setup bench-diff
bin=$TMP/streamtap
go build -o "$bin" . || exit 2

have_time=0
[[ -x /usr/bin/time ]] && have_time=1

# time_once CMD... runs CMD once, stdout to /dev/null, and sets t
# (seconds), m (peak RSS KiB, or n/a), u (user+system CPU seconds, or
# n/a) and rc (exit status).
time_once() {
	rc=0 m=n/a u=n/a
	if ((have_time)); then
		{ time /usr/bin/time -f '%M %U %S' -o "$TMP/rss" "$@" >/dev/null 2>>"$TMP/cmd.err"; } 2>"$TMP/elapsed" || rc=$?
		local user sys
		read -r m user sys < <(tail -n 1 "$TMP/rss")
		u=$(calc %.2f "$user + $sys")
	else
		{ time "$@" >/dev/null 2>>"$TMP/cmd.err"; } 2>"$TMP/elapsed" || rc=$?
	fi
	t=$(tail -n 1 "$TMP/elapsed")
}

lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
verdict() { if awk "BEGIN { exit !($1) }"; then echo PASS; else echo FAIL; fi; }

# edit_all IN OUT writes IN with an X at the start of every statement of
# the arguments: the deltas' first, the .done and snapshot values.
edit_all() {
	awk 'BEGIN { RS = ""; ORS = "\n\n" }
		{ sub(/"delta":"/, "\"delta\":\"X"); gsub(/"arguments":"/, "\"arguments\":\"X"); print }' "$1" >"$2"
}

rows=()
status=0
for dialect in $DIALECTS; do
	a=$dir/diff-$dialect-a.sse b=$dir/diff-$dialect-b.sse
	generated+=("$a" "$b")
	size=$SIZE
	[[ $dialect == big-event ]] && size=$BIG
	echo "generating $dialect ($size) and an edited copy..." >&2
	"$TMP/gencapture" -dialect "$dialect" -size "$size" -out "$a" 2>"$TMP/gen.out"
	cat "$TMP/gen.out" >&2
	events=$(sed -n 's/.* events=\([0-9]*\).*/\1/p' "$TMP/gen.out")
	largest=$(sed -n 's/.*largest_event=\([0-9]*\).*/\1/p' "$TMP/gen.out")
	case $dialect in
	responses) pat='"delta":"' ;;
	chat) pat='"arguments":"' ;;
	*) pat='"partial_json":"' ;;
	esac
	want='"only-in-a":1 "field":1'
	if [[ $dialect == big-event ]]; then
		edit_all "$a" "$b"
		want='"field":'
	else
		bench_edit "$a" "$b" "$events" "$pat"
	fi
	cat -- "$a" "$b" >/dev/null # start from the page cache

	ca= cb= dt= rss=n/a drc= cua=n/a cub=n/a du=n/a
	# best CPU of each command: keep the smaller of u and the best so far
	best_u() { if [[ $u != n/a ]] && { [[ $1 == n/a ]] || lt "$u" "$1"; }; then echo "$u"; else echo "$1"; fi; }
	for ((i = 0; i < RUNS; i++)); do
		time_once "$bin" calls --json "$a"
		if [[ -z $ca ]] || lt "$t" "$ca"; then ca=$t; fi
		cua=$(best_u "$cua")
		time_once "$bin" calls --json "$b"
		if [[ -z $cb ]] || lt "$t" "$cb"; then cb=$t; fi
		cub=$(best_u "$cub")
		time_once "$bin" diff "$a" "$b"
		drc=$rc
		if [[ -z $dt ]] || lt "$t" "$dt"; then dt=$t; fi
		du=$(best_u "$du")
		if [[ $m != n/a ]] && { [[ $rss == n/a ]] || ((m > rss)); }; then rss=$m; fi
	done

	# Untimed: did diff find the edits, and only them?
	found=FAIL
	if "$bin" diff --json "$a" "$b" >"$TMP/diff.json" 2>>"$TMP/cmd.err"; then
		found="FAIL(exit 0)"
	else
		found=PASS
		for w in $want; do grep -q "$w" "$TMP/diff.json" || found="FAIL(no $w)"; done
	fi
	[[ $drc == 1 ]] || found="FAIL(exit $drc)"

	ratio=$(calc %.2f "$dt / ($ca + $cb > 0 ? $ca + $cb : 0.001)")
	cpu=n/a
	[[ $du != n/a && $cua != n/a && $cub != n/a ]] && cpu=$(calc %.2f "$du / ($cua + $cub > 0 ? $cua + $cub : 0.001)")
	budget=$(calc %.0f "2 * (64 + 3 * $largest / 1048576)")
	rss_mib=n/a mem=-
	if [[ $rss != n/a ]]; then
		rss_mib=$(calc %.0f "$rss / 1024")
		mem=$(verdict "$rss / 1024 <= $budget")
	fi
	speed=$(verdict "$ratio <= 2")
	rows+=("$(printf '%-10s %7s %8s %8s %8s %6s %5s %6s %7s %7s %5s %s' "$dialect" "$(calc %.1f "$(stat -c %s "$a") / 1e6")" \
		"$ca" "$cb" "$dt" "$ratio" "$speed" "$cpu" "$rss_mib" "$budget" "$mem" "$found")")
	if [[ $speed == FAIL || $mem == FAIL || $found != PASS ]]; then status=1; fi
	if [[ ${KEEP:-0} != 1 ]]; then rm -f -- "$a" "$b"; fi
done

echo
echo "streamtap diff A B vs calls --json A + calls --json B — best of $RUNS, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a), $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-10s %7s %8s %8s %8s %6s %5s %6s %7s %7s %5s %s\n' capture MB 'calls A' 'calls B' diff ratio '<=2x' 'cpu' 'RSS MiB' budget mem 'found'
printf '%s\n' "${rows[@]}"
echo
echo "times in seconds; ratio = diff / (calls A + calls B), elapsed; cpu = the same ratio of user+system CPU"
echo "time (less sensitive to other load, not a target); RSS = peak of diff over the runs;"
echo "budget = 2 x (64 MiB + 3 x largest event); found = diff exits 1 with the dropped event and the changed field."
if [[ -s $TMP/cmd.err ]]; then
	echo "stderr of the timed commands (last lines):"
	tail -n 5 "$TMP/cmd.err" | sed 's/^/  /'
fi
exit $status
