#!/usr/bin/env bash
# bench-suite.sh measures what `check` costs per input over a test suite:
# `check DIR` over N small recordings against `check` on one file holding
# the same events, in the same run, so that the per-input overhead shows
# as a ratio whatever the machine's speed and load.
#
#   recordings  N streams from scripts/gencapture (DIALECT, one response
#               each, seeds 1..N), each written as a timed recording by
#               `streamtap calls --save-timed` (the shape the proxy's
#               --record DIR writes: a header comment, then the events)
#   one file    the same N streams concatenated, written as one timed
#               recording the same way: the same events in the same
#               format (timing lines included), in one input
#
# Each of `check DIR` and `check ONE` runs RUNS times per output format
# (FORMATS), the least CPU time (user + system) kept; the ratio DIR/ONE
# is printed with elapsed times and peak RSS. With CUT=1 every recording
# is cut before its last event, so that each fails with findings and a
# failing outcome: the run then has results to write, which the SARIF
# log once held whole in memory (100,000 failing recordings: 5.9 GB).
#
# usage: scripts/bench-suite.sh
#
# Environment:
#   N        recordings (default 1000)
#   DIALECT  gencapture dialect (default responses: about 24 KB and 55
#            events a recording)
#   FORMATS  output formats (default "text json sarif github junit")
#   RUNS     runs of each command, the least time kept (default 3)
#   CUT=1    cut each recording before its last event (each fails)
#   BASE_REF also build this git ref (e.g. main) and run `check DIR` with
#            it too, each format, for a before/after in one run
#   REUSE=1  with KEEP=1 and BENCH_DIR, use the recordings a run kept
#   BENCH_DIR, KEEP=1 as for bench.sh
#
# Targets: the text format's ratio at most 1.5; the peak RSS of `check
# DIR` in SARIF at most 1.5 times its peak RSS in JSON lines (which hold
# nothing once written), when both formats run. Exit status: 0 when they
# pass, 1 when one fails, 2 on error.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

N=${N:-1000}
DIALECT=${DIALECT:-responses}
FORMATS=${FORMATS:-text json sarif github junit}
RUNS=${RUNS:-3}
TIMEFORMAT=%3R

source "$root/scripts/bench-lib.sh"
bench_setup bench-suite
[[ -x /usr/bin/time ]] || { echo "bench-suite.sh needs GNU time at /usr/bin/time" >&2; exit 2; }
go build -o "$TMP/streamtap" . || exit 2
bin=$TMP/streamtap
if [[ -n ${BASE_REF:-} ]]; then
	bench_build_ref "$BASE_REF" "$TMP/streamtap-base"
fi
CUT=${CUT:-0}

calc() { awk "BEGIN { printf \"$1\", $2 }"; }

recs=$dir/suite-recordings-$DIALECT-$N-cut$CUT one=$dir/suite-one-$DIALECT-$N-cut$CUT.sse
generated+=("$one")
if [[ ${REUSE:-0} == 1 && -s $one && $(find "$recs" -name '*.sse' 2>/dev/null | wc -l) == "$N" ]]; then
	echo "reusing $recs and $one" >&2
else
	rm -rf -- "$recs" && mkdir -p "$recs"
	: >"$TMP/concatenated.sse"
	echo "generating $N $DIALECT recordings..." >&2
	for ((i = 1; i <= N; i++)); do
		gen=$TMP/gen.sse
		"$TMP/gencapture" -dialect "$DIALECT" -turns 1 -seed "$i" -out "$gen" 2>>"$TMP/gen.out"
		if [[ $CUT == 1 ]]; then
			# every event but the last: the stream ends before its terminal event
			awk 'BEGIN { RS = ""; ORS = "\n\n" } { ev[NR] = $0 } END { for (i = 1; i < NR; i++) print ev[i] }' "$gen" >"$gen.cut"
			mv "$gen.cut" "$gen"
		fi
		cat "$gen" >>"$TMP/concatenated.sse"
		"$bin" calls --save-timed "$(printf '%s/%05d.sse' "$recs" "$i")" "$gen" >/dev/null
	done
	"$bin" calls --save-timed "$one" "$TMP/concatenated.sse" >/dev/null
fi
bytes=$(du -sb "$recs" | cut -f1)
events_one=$("$bin" events "$one" | wc -l)

# time_once CMD... runs CMD once, stdout to /dev/null, and sets t
# (elapsed seconds), u (user+system seconds), m (peak RSS KiB), rc.
time_once() {
	rc=0
	{ time nice /usr/bin/time -f '%M %U %S' -o "$TMP/rss" "$@" >/dev/null 2>>"$TMP/cmd.err"; } 2>"$TMP/elapsed" || rc=$?
	local user sys
	read -r m user sys < <(tail -n 1 "$TMP/rss")
	u=$(calc %.3f "$user + $sys")
	t=$(tail -n 1 "$TMP/elapsed")
}

# best CMD... runs CMD RUNS times and keeps the least times in bt, bu and
# the highest RSS in bm.
best() {
	bt= bu= bm=0
	local r
	for ((r = 0; r < RUNS; r++)); do
		time_once "$@"
		if [[ -z $bu ]] || awk -v a="$u" -v b="$bu" 'BEGIN { exit !(a < b) }'; then bu=$u; fi
		if [[ -z $bt ]] || awk -v a="$t" -v b="$bt" 'BEGIN { exit !(a < b) }'; then bt=$t; fi
		if ((m > bm)); then bm=$m; fi
	done
}

echo
echo "check over a suite — $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(go env GOVERSION), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "$N recordings of $DIALECT, $(calc %.1f "$bytes / 1e6") MB in all; the one file: $(calc %.1f "$(stat -c %s "$one") / 1e6") MB, $events_one events"
printf '%-8s %-6s %9s %9s %8s %9s %9s %8s %7s %7s\n' format rc dir-cpu dir-wall dir-MB one-cpu one-wall one-MB cpu× wall×
status=0
declare -A dir_mb
for f in $FORMATS; do
	best "$bin" check --output-format "$f" "$recs"
	dt=$bt du_=$bu dm=$bm drc=$rc
	best "$bin" check --output-format "$f" "$one"
	ratio=$(calc %.2f "$du_ / ($bu > 0 ? $bu : 0.001)")
	printf '%-8s %-6s %9s %9s %8s %9s %9s %8s %7s %7s\n' "$f" "$drc/$rc" "$du_" "$dt" "$(calc %.0f "$dm / 1024")" \
		"$bu" "$bt" "$(calc %.0f "$bm / 1024")" "$ratio" "$(calc %.2f "$dt / ($bt > 0 ? $bt : 0.001)")"
	if [[ $f == text ]] && awk -v r="$ratio" 'BEGIN { exit !(r > 1.5) }'; then status=1; fi
	dir_mb[$f]=$(calc %.0f "$dm / 1024")
done
echo "cpu× and wall×: check DIR over check ONE (target: text cpu× <= 1.5); rc: exit codes (1 = some finding fails)"
if [[ -n ${dir_mb[sarif]:-} && -n ${dir_mb[json]:-} ]]; then
	r=$(calc %.2f "${dir_mb[sarif]} / (${dir_mb[json]} > 0 ? ${dir_mb[json]} : 1)")
	ok=$(awk -v r="$r" 'BEGIN { print (r <= 1.5 ? "PASS" : "FAIL") }')
	echo "memory: check DIR's peak RSS in SARIF over JSON lines: ${dir_mb[sarif]} / ${dir_mb[json]} MB = ${r}x (target <= 1.5): $ok"
	if [[ $ok == FAIL ]]; then status=1; fi
fi
if [[ -n ${BASE_REF:-} ]]; then
	echo
	echo "check DIR, this tree against $BASE_REF (alternated, best of $RUNS):"
	printf '%-8s %9s %9s %8s %9s %9s %8s %7s %7s\n' format cpu wall MB base-cpu base-wall base-MB cpu× MB×
	for f in $FORMATS; do
		best "$bin" check --output-format "$f" "$recs"
		hu=$bu ht=$bt hm=$bm
		best "$TMP/streamtap-base" check --output-format "$f" "$recs"
		printf '%-8s %9s %9s %8s %9s %9s %8s %7s %7s\n' "$f" "$hu" "$ht" "$(calc %.0f "$hm / 1024")" "$bu" "$bt" "$(calc %.0f "$bm / 1024")" \
			"$(calc %.2f "$hu / ($bu > 0 ? $bu : 0.001)")" "$(calc %.2f "$hm / ($bm > 0 ? $bm : 1)")"
	done
	echo "cpu×, MB×: this tree over $BASE_REF"
fi
if [[ ${KEEP:-0} != 1 ]]; then rm -rf -- "$recs"; else echo "kept: $recs" >&2; fi
exit $status
