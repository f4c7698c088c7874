#!/usr/bin/env bash
# bench.sh times `streamtap calls --json FILE` on large generated captures
# against `cat FILE | wc -c` on the same file in the same run, so the result
# is a ratio that means something on any machine, loaded or not.
#
# usage: scripts/bench.sh
#
# It generates, one at a time, 100 MB Responses, Chat and Anthropic captures
# (scripts/gencapture), Bedrock ConverseStream and InvokeModel captures
# carrying the same calls and text as the Anthropic one (its turns, from the
# same seed, as AWS event streams: about 150 and 200 MB), and a Responses
# capture with one 50 MB event, then for each times cat|wc and calls (best
# of RUNS, interleaved so a burst of load hits both), checks that calls
# assembled every generated call, and prints a table with PASS/FAIL against
# the targets (cat|wc is sampled five times a round, since it is short and
# noisy, and the ratio is taken against the fastest cat|wc of the whole
# run):
#
#   speed   calls within 8x of cat|wc, and at least 250 MB/s (100 MB captures)
#   memory  peak RSS of calls at most 64 MiB + 3 x the largest event
#   check   `streamtap check` at most 1.2x the time of calls (when it exists)
#   bedrock calls on the Bedrock ConverseStream and InvokeModel captures
#           each at most 1.5x its time on the Anthropic capture of the same
#           calls and text
#
# Elapsed times come from bash's `time` (millisecond resolution; %e of GNU
# time has only 10 ms, too coarse for cat on 100 MB); peak RSS of streamtap
# comes from /usr/bin/time -f '%e %M'. Without /usr/bin/time, RSS is
# reported as n/a.
#
# Environment:
#   BENCH_DIR  directory for the captures (default: a new temporary one)
#   KEEP=1     keep the generated captures
#   SIZE       size of each capture (default 100MB)
#   BIG        size of the big event (default 50MB)
#   RUNS       timed runs per command (default 3)
#
# Exit status: 0 when every target passes, 1 when one fails, 2 on error
# (including a streamtap that does not build: then only generation and
# cat|wc are timed).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

SIZE=${SIZE:-100MB}
BIG=${BIG:-50MB}
RUNS=${RUNS:-3}
TIMEFORMAT=%3R

source "$root/scripts/bench-lib.sh"
bench_setup bench
bin=$TMP/streamtap
if ! go build -o "$bin" . 2>"$TMP/build.err"; then
	echo "streamtap did not build; timing generation and cat|wc only:" >&2
	sed 's/^/  /' "$TMP/build.err" >&2
	bin=
fi
has_check=0
if [[ -n $bin ]] && "$bin" check --help 2>&1 | grep -q 'usage: streamtap check'; then
	has_check=1
fi

have_time=0
[[ -x /usr/bin/time ]] && have_time=1

# time_once CMD... runs CMD once, stdout to /dev/null, stderr to a log, and
# sets t (seconds), m (peak RSS KiB, or n/a) and rc (exit status).
time_once() {
	rc=0 m=n/a
	if ((have_time)); then
		{ time /usr/bin/time -f '%e %M' -o "$TMP/rss" "$@" >/dev/null 2>>"$TMP/cmd.err"; } 2>"$TMP/elapsed" || rc=$?
		# GNU time writes "Command exited with non-zero status N" first.
		local e
		read -r e m < <(tail -n 1 "$TMP/rss")
		t=$(tail -n 1 "$TMP/elapsed")
		[[ $t =~ ^[0-9.]+$ ]] || t=$e
	else
		{ time "$@" >/dev/null 2>>"$TMP/cmd.err"; } 2>"$TMP/elapsed" || rc=$?
		t=$(tail -n 1 "$TMP/elapsed")
	fi
}

# time_cat FILE times `cat FILE | wc -c` and sets t. The pipeline is timed
# directly: wrapped in /usr/bin/time and sh it would carry 2-6 ms of process
# start-up, a tenth or more of cat's time on 100 MB.
time_cat() {
	{ time cat -- "$1" | wc -c >/dev/null; } 2>"$TMP/elapsed"
	t=$(tail -n 1 "$TMP/elapsed")
}

# lt A B: A < B, as decimals.
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }

# verdict EXPR prints PASS when the awk expression holds, else FAIL.
verdict() { if awk "BEGIN { exit !($1) }"; then echo PASS; else echo FAIL; fi; }

rows=()
run_capture() { # run_capture NAME DIALECT SIZE [GENCAPTURE FLAGS…]
	local name=$1 dialect=$2 size=$3 f=$dir/$1.sse
	[[ $dialect == bedrock* ]] && f=$dir/$1.eventstream
	generated+=("$f")
	echo "generating $name ($dialect, $size ${*:4})..." >&2
	"$TMP/gencapture" -dialect "$dialect" -size "$size" "${@:4}" -out "$f" 2>"$TMP/gen.out"
	cat "$TMP/gen.out" >&2
	local bytes largest ncalls
	bytes=$(stat -c %s "$f")
	largest=$(sed -n 's/.*largest_event=\([0-9]*\).*/\1/p' "$TMP/gen.out")
	ncalls=$(sed -n 's/.* calls=\([0-9]*\).*/\1/p' "$TMP/gen.out")
	turns=$(sed -n 's/.* responses=\([0-9]*\).*/\1/p' "$TMP/gen.out")
	cat -- "$f" >/dev/null # start from the page cache, as cat|wc will

	local cat_t= calls_t= check_t= rss=n/a calls_rc=0 i
	for ((i = 0; i < RUNS; i++)); do
		# cat|wc takes tens of milliseconds and swings by 3x from one run
		# to the next: five samples a round give a steadier best.
		for _ in 1 2 3 4 5; do
			time_cat "$f"
			if [[ -z $cat_t ]] || lt "$t" "$cat_t"; then cat_t=$t; fi
		done
		[[ -n $bin ]] || continue
		time_once "$bin" calls --json "$f"
		((rc == 0)) || calls_rc=$rc
		if [[ -z $calls_t ]] || lt "$t" "$calls_t"; then calls_t=$t; fi
		if [[ $m != n/a ]] && { [[ $rss == n/a ]] || ((m > rss)); }; then rss=$m; fi
		if ((has_check)); then
			time_once "$bin" check "$f" # findings are expected; the exit code is ignored
			if [[ -z $check_t ]] || lt "$t" "$check_t"; then check_t=$t; fi
		fi
	done

	# Verdicts on speed wait for the end of the run: the ratio is taken
	# against the fastest cat|wc of all captures (see below).
	names+=("$name") dialects+=("$dialect") sizes+=("$bytes") cat_ts+=("$cat_t")
	calls_ts+=("${calls_t:-}") check_ts+=("${check_t:-}") rsss+=("$rss") largests+=("$largest")
	if [[ -n $bin ]]; then
		# Untimed: does calls report every generated call, complete?
		if ((calls_rc == 0)) && "$bin" calls --json "$f" >"$TMP/out.json" 2>>"$TMP/cmd.err"; then
			local got
			got=$(grep -o '"arguments_json":"complete"' "$TMP/out.json" | wc -l)
			if ((got == ncalls)); then oks+=("PASS($got)"); else oks+=("FAIL($got/$ncalls)"); fi
		else
			oks+=("FAIL(exit $calls_rc)")
		fi
		rm -f "$TMP/out.json"
	else
		oks+=(-)
	fi
	if [[ ${KEEP:-0} != 1 ]]; then rm -f -- "$f"; fi
}

# row I formats the table row of capture I. The baseline is best_cat, the
# fastest cat|wc rate of the run: the same file size everywhere, so each
# capture's own best is a noisier sample of the same thing, and against the
# fastest the ratio is the harshest one the run supports.
row() {
	local i=$1 bytes=${sizes[$1]} calls_t=${calls_ts[$1]} check_t=${check_ts[$1]} rss=${rsss[$1]}
	local mb cat_mbs calls_mbs=- ratio=- rss_mib=n/a ev_mib budget speed=- thr=- mem=- chk=- chk_ok=-
	mb=$(calc %.1f "$bytes / 1e6")
	cat_mbs=$(calc %.0f "$bytes / 1e6 / (${cat_ts[$i]} > 0 ? ${cat_ts[$i]} : 0.001)")
	ev_mib=$(calc %.3g "${largests[$i]} / 1048576")
	budget=$(calc %.0f "64 + 3 * ${largests[$i]} / 1048576")
	if [[ -n $bin ]]; then
		calls_mbs=$(calc %.0f "$bytes / 1e6 / ($calls_t > 0 ? $calls_t : 0.001)")
		ratio=$(calc %.1f "$best_cat / ($calls_mbs > 0 ? $calls_mbs : 1)")
		if [[ ${dialects[$i]} != big-event ]]; then
			speed=$(verdict "$ratio <= 8")
			thr=$(verdict "$calls_mbs >= 250")
		fi
		if [[ $rss != n/a ]]; then
			rss_mib=$(calc %.0f "$rss / 1024")
			mem=$(verdict "$rss / 1024 <= $budget")
		fi
		if ((has_check)); then
			chk=$(calc %.2f "$check_t / ($calls_t > 0 ? $calls_t : 0.001)")
			chk_ok=$(verdict "$chk <= 1.2")
		fi
	fi
	printf '%-10s %7s %8s %9s %6s %5s %5s %7s %8s %7s %5s %-12s %6s %5s' \
		"${names[$i]}" "$mb" "$cat_mbs" "$calls_mbs" "$ratio" "$speed" "$thr" "$rss_mib" "$ev_mib" "$budget" "$mem" "${oks[$i]}" "$chk" "$chk_ok"
}

names=() dialects=() sizes=() cat_ts=() calls_ts=() check_ts=() rsss=() largests=() oks=()
run_capture responses responses "$SIZE"
run_capture chat chat "$SIZE"
run_capture anthropic anthropic "$SIZE"
anthropic_turns=$turns
run_capture bedrock bedrock "$SIZE" -turns "$anthropic_turns"
run_capture bedrock-invoke bedrock-invoke "$SIZE" -turns "$anthropic_turns"
run_capture big-event big-event "$BIG"

best_cat=0
for i in "${!names[@]}"; do
	r=$(calc %.0f "${sizes[$i]} / 1e6 / (${cat_ts[$i]} > 0 ? ${cat_ts[$i]} : 0.001)")
	if lt "$best_cat" "$r"; then best_cat=$r; fi
done
for i in "${!names[@]}"; do rows+=("$(row "$i")"); done

echo
echo "streamtap calls --json vs cat|wc -c — best of $RUNS, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a), $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-10s %7s %8s %9s %6s %5s %5s %7s %8s %7s %5s %-12s %6s %5s\n' \
	capture MB 'cat MB/s' 'callsMB/s' ratio '<=8x' '>=250' 'RSS MiB' 'ev MiB' 'budget' mem 'calls ok' 'check' '<=1.2'
printf '%s\n' "${rows[@]}"
echo
echo "ratio = fastest cat|wc of the run ($best_cat MB/s) / calls MB/s, best of each; RSS = peak of calls over the runs;"
echo "budget = 64 MiB + 3 x largest event; check = check time / calls time."
bedrock_fail=0
if [[ -n $bin ]]; then
	# The Bedrock captures carry the Anthropic one's calls and text: their
	# calls times compare directly.
	# The InvokeModel one carries twice the bytes (base64 inside JSON
	# inside binary frames), and is held to the same target.
	anth_t=${calls_ts[2]}
	for i in 3 4; do
		r=$(calc %.2f "${calls_ts[$i]} / ($anth_t > 0 ? $anth_t : 0.001)")
		v=$(verdict "$r <= 1.5")
		[[ $v == PASS ]] || bedrock_fail=1
		echo "${names[$i]}: calls ${calls_ts[$i]} s on $(calc %.0f "${sizes[$i]} / 1e6") MB vs anthropic ${anth_t} s on $(calc %.0f "${sizes[2]} / 1e6") MB, same calls and text: ${r}x (<=1.5) $v"
	done
fi
[[ -n $bin ]] || echo "streamtap did not build: calls columns are empty."
((has_check)) || echo "no 'streamtap check' subcommand: check columns are empty."
if [[ -s $TMP/cmd.err ]]; then
	echo "stderr of the timed commands (last lines):"
	tail -n 5 "$TMP/cmd.err" | sed 's/^/  /'
fi
[[ -n $bin ]] || exit 2
if printf '%s\n' "${rows[@]}" | grep -q FAIL || ((bedrock_fail)); then exit 1; fi
