#!/usr/bin/env bash
# bench.sh times streamtap on large generated captures against baselines
# measured in the same run, so that its results are ratios that mean
# something on any machine, loaded or not: `cat FILE | wc -c` (the cost of
# reading the bytes at all) and a peer (scripts/peer: SSE framed by hand,
# encoding/json/v2 structs per event type, arguments concatenated; the
# fastest way we know to write such a reader by hand).
#
# usage: scripts/bench.sh
#
# It generates, one at a time, 100 MB Responses, Chat and Anthropic
# captures (scripts/gencapture), Bedrock ConverseStream and InvokeModel
# captures carrying the same calls and text as the Anthropic one (about 150
# and 200 MB), and a Responses capture with one 50 MB event. For each of
# the first three it runs RUNS rounds, each of: cat|wc (the best of three
# samples: it is short and noisy), `streamtap calls --json`, the peer,
# `streamtap check`, `streamtap diff A A'` (A' is A with an event dropped
# and a fragment changed) and, with tmux, the inspector reading A until its
# status line leaves "indexing". Each round's ratios are taken within the
# round, and the table shows their medians, so a burst of load on the
# shared machine moves one round, not the result. Elapsed time and CPU
# time (user + system, the command and its children) come from bash's
# `time`; peak RSS from /usr/bin/time.
#
# Targets (PASS/FAIL):
#
#   <=4x cat     calls elapsed at most 4x cat|wc's (100 MB captures)
#   ns/ev        calls at most 450 ns of CPU per event (Anthropic)
#   peer >=2x    the peer's CPU at least 2x calls'
#   check        check's elapsed at most 1.15x calls'
#   diff         diff A A' elapsed at most 1.6x calls'
#   index        the inspector's full index at most 1.2x calls' CPU
#   memory       peak RSS of calls at most 64 MiB + 3 x the largest event
#   bedrock      calls on each Bedrock capture at most 1.5x its elapsed on
#                the Anthropic capture of the same calls and text
#
# On a machine shared with other work, elapsed times swing with its load
# from one run to the next (the load average is printed at the start and
# the end); CPU times and their ratios (shown beside each elapsed ratio)
# hold steadier. The big-event capture is timed for calls and check only.
#
# Environment:
#   BENCH_DIR  directory for the captures (default: a new temporary one)
#   KEEP=1     keep the generated captures
#   SIZE       size of each capture (default 100MB)
#   BIG        size of the big event (default 50MB)
#   RUNS       rounds per capture (default 5)
#   INDEX=0    skip the inspector's index (default: run it when tmux exists)
#
# Exit status: 0 when every target passes, 1 when one fails, 2 on error
# (including a streamtap that does not build: then only generation and
# cat|wc are timed).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

SIZE=${SIZE:-100MB}
BIG=${BIG:-50MB}
RUNS=${RUNS:-5}
INDEX=${INDEX:-1}
TIMEFORMAT='%3R %3U %3S'

source "$root/scripts/bench-lib.sh"
bench_setup bench
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a)
bin=$TMP/streamtap
if ! go build -o "$bin" . 2>"$TMP/build.err"; then
	echo "streamtap did not build; timing generation and cat|wc only:" >&2
	sed 's/^/  /' "$TMP/build.err" >&2
	bin=
fi
peer=$TMP/peer
if ! GOEXPERIMENT=jsonv2 go build -o "$peer" ./scripts/peer 2>"$TMP/build.err"; then
	echo "the peer did not build (it needs encoding/json/v2: GOEXPERIMENT=jsonv2); no peer column:" >&2
	sed 's/^/  /' "$TMP/build.err" >&2
	peer=
fi
have_time=0
[[ -x /usr/bin/time ]] && have_time=1
have_index=0
if [[ $INDEX == 1 && -n $bin ]] && command -v tmux >/dev/null; then have_index=1; fi

# run CMD... runs CMD once, stdout to /dev/null, stderr to a log, and sets
# t (elapsed seconds), u (user + system CPU seconds), m (peak RSS KiB, or
# n/a) and rc (exit status). bash's time counts the command's children.
run() {
	rc=0 m=n/a
	if ((have_time)); then
		{ time /usr/bin/time -f '%M' -o "$TMP/rss" "$@" >/dev/null 2>>"$TMP/cmd.err"; } 2>"$TMP/times" || rc=$?
		m=$(tail -n 1 "$TMP/rss")
		[[ $m =~ ^[0-9]+$ ]] || m=n/a
	else
		{ time "$@" >/dev/null 2>>"$TMP/cmd.err"; } 2>"$TMP/times" || rc=$?
	fi
	local user sys
	read -r t user sys < <(tail -n 1 "$TMP/times")
	u=$(calc %.3f "$user + $sys")
}

# run_cat FILE times `cat FILE | wc -c` three times and keeps the fastest
# (t and u of that sample). The pipeline is timed directly: wrapped in
# /usr/bin/time and sh it would carry milliseconds of process start-up, a
# tenth or more of cat's time on 100 MB.
run_cat() {
	local bt= bu= user sys
	for _ in 1 2 3; do
		{ time cat -- "$1" | wc -c >/dev/null; } 2>"$TMP/times"
		read -r t user sys < <(tail -n 1 "$TMP/times")
		if [[ -z $bt ]] || lt "$t" "$bt"; then bt=$t bu=$(calc %.3f "$user + $sys"); fi
	done
	t=$bt u=$bu
}

lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
verdict() { if awk "BEGIN { exit !($1) }"; then echo PASS; else echo FAIL; fi; }
# median V... prints the median of the values given, "-" for none.
median() {
	if (($# == 0)); then echo -; return; fi
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { calc %.4f "$1 / ($2 > 0 ? $2 : 0.001)"; }
# r2 V prints V to two decimals ("-" stays).
r2() { if [[ $1 == - ]]; then echo -; else calc %.2f "$1"; fi; }

# generate NAME DIALECT SIZE [FLAGS…] writes a capture to $f and sets
# bytes, largest, ncalls, events and turns from gencapture's report.
generate() {
	f=$dir/$1.sse
	[[ $2 == bedrock* ]] && f=$dir/$1.eventstream
	generated+=("$f")
	echo "generating $1 ($2, $3 ${*:4})..." >&2
	"$TMP/gencapture" -dialect "$2" -size "$3" "${@:4}" -out "$f" 2>"$TMP/gen.out"
	cat "$TMP/gen.out" >&2
	bytes=$(stat -c %s "$f")
	largest=$(sed -n 's/.*largest_event=\([0-9]*\).*/\1/p' "$TMP/gen.out")
	ncalls=$(sed -n 's/.* calls=\([0-9]*\).*/\1/p' "$TMP/gen.out")
	events=$(sed -n 's/.* events=\([0-9]*\).*/\1/p' "$TMP/gen.out")
	turns=$(sed -n 's/.* responses=\([0-9]*\).*/\1/p' "$TMP/gen.out")
	cat -- "$f" >/dev/null # start from the page cache, as cat|wc will
}

# check_calls FILE N says PASS(N) when calls --json reports N complete
# calls in FILE.
check_calls() {
	[[ -n $bin ]] || { echo -; return; }
	local got
	if "$bin" calls --json "$1" >"$TMP/out.json" 2>>"$TMP/cmd.err"; then
		got=$(grep -o '"arguments_json":"complete"' "$TMP/out.json" | wc -l)
		if ((got == $2)); then echo "PASS($got)"; else echo "FAIL($got/$2)"; fi
	else
		echo "FAIL(exit)"
	fi
	rm -f "$TMP/out.json"
}

# judge VAR EXPR sets VAR to PASS when the awk expression holds, else to
# FAIL, and counts the failure.
fails=0
judge() {
	printf -v "$1" '%s' "$(verdict "$2")"
	[[ ${!1} == PASS ]] || fails=$((fails + 1))
}

# bench NAME DIALECT PATTERN: the full set of measures on the 100 MB
# capture $f (generated already); PATTERN is what bench_edit changes in A'.
rows=() anth_calls_t=
bench() {
	local name=$1 dialect=$2 pat=$3 a=$f b=$dir/$1-edited.sse
	local -a cat_t=() calls_t=() calls_u=() rss=() peer_r=() ns=() chk_t=() chk_u=() diff_t=() diff_u=() idx_u=() r_cat=() r_chk=() r_diff=() r_chk_u=() r_diff_u=()
	generated+=("$b")
	bench_edit "$a" "$b" "$events" "$pat"
	cat -- "$b" >/dev/null
	local i ct cu
	for ((i = 0; i < RUNS; i++)); do
		run_cat "$a"
		cat_t+=("$t")
		[[ -n $bin ]] || continue
		run "$bin" calls --json "$a"
		ct=$t cu=$u
		calls_t+=("$t") calls_u+=("$u")
		[[ $m == n/a ]] || rss+=("$m")
		r_cat+=("$(ratio "$ct" "${cat_t[-1]}")")
		ns+=("$(calc %.0f "$cu * 1e9 / $events")")
		if [[ -n $peer ]]; then
			run "$peer" -dialect "$dialect" "$a"
			peer_r+=("$(ratio "$u" "$cu")")
		fi
		run "$bin" check "$a" # findings are expected: the exit status is ignored
		r_chk+=("$(ratio "$t" "$ct")") r_chk_u+=("$(ratio "$u" "$cu")")
		run "$bin" diff "$a" "$b" # they differ: exit status 1
		r_diff+=("$(ratio "$t" "$ct")") r_diff_u+=("$(ratio "$u" "$cu")")
		if ((have_index)); then
			bench_index "$bin" "$a"
			[[ -z $index_u ]] || idx_u+=("$(ratio "$index_u" "$cu")")
		fi
	done
	local mb budget rss_mib=n/a ok
	mb=$(calc %.1f "$bytes / 1e6")
	budget=$(calc %.0f "64 + 3 * $largest / 1048576")
	ok=$(check_calls "$a" "$ncalls")
	[[ $ok == PASS* || $ok == - ]] || fails=$((fails + 1))
	if ((${#rss[@]})); then rss_mib=$(calc %.0f "$(printf '%s\n' "${rss[@]}" | sort -n | tail -n 1) / 1024"); fi
	local mcat mns mpeer mchk mdiff midx
	mcat=$(median "${r_cat[@]}") mns=$(median "${ns[@]}") mpeer=$(median "${peer_r[@]}")
	mchk=$(median "${r_chk[@]}") mdiff=$(median "${r_diff[@]}") midx=$(median "${idx_u[@]}")
	[[ $name != anthropic ]] || anth_calls_t=$(median "${calls_t[@]}")
	local v_cat=- v_ns=- v_peer=- v_chk=- v_diff=- v_idx=- v_mem=-
	if [[ -n $bin ]]; then
		judge v_cat "$mcat <= 4"
		[[ $name != anthropic ]] || judge v_ns "$mns <= 450"
		[[ $mpeer == - ]] || judge v_peer "$mpeer >= 2"
		judge v_chk "$mchk <= 1.15"
		judge v_diff "$mdiff <= 1.6"
		[[ $midx == - ]] || judge v_idx "$midx <= 1.2"
		[[ $rss_mib == n/a ]] || judge v_mem "$rss_mib <= $budget"
	fi
	rows+=("$(printf '%-10s %6s %6s %6s %5s %-4s %5s %-4s %5s %-4s %5s %5s %-4s %5s %5s %-4s %5s %-4s %4s/%-4s %-4s %s' \
		"$name" "$mb" "$(median "${cat_t[@]}")" "$(median "${calls_t[@]}")" "$(r2 "$mcat")" "$v_cat" \
		"$mns" "$v_ns" "$(r2 "$mpeer")" "$v_peer" \
		"$(r2 "$mchk")" "$(r2 "$(median "${r_chk_u[@]}")")" "$v_chk" "$(r2 "$mdiff")" "$(r2 "$(median "${r_diff_u[@]}")")" "$v_diff" \
		"$(r2 "$midx")" "$v_idx" "$rss_mib" "$budget" "$v_mem" "$ok")")
}

# bench_simple NAME: calls and check on $f (Bedrock, the big event), best
# elapsed of RUNS; sets simple_t.
simple=()
bench_simple() {
	local name=$1 i
	local -a ts=() us=() chk=() rss=()
	for ((i = 0; i < RUNS; i++)); do
		[[ -n $bin ]] || break
		run "$bin" calls --json "$f"
		ts+=("$t") us+=("$u")
		[[ $m == n/a ]] || rss+=("$m")
		if [[ $name == big-event ]]; then
			local ct=$t
			run "$bin" check "$f"
			chk+=("$(ratio "$t" "$ct")")
		fi
	done
	[[ -n $bin ]] || return 0
	simple_t=$(median "${ts[@]}")
	local budget rss_mib=n/a ok v_mem=-
	budget=$(calc %.0f "64 + 3 * $largest / 1048576")
	if ((${#rss[@]})); then
		rss_mib=$(calc %.0f "$(printf '%s\n' "${rss[@]}" | sort -n | tail -n 1) / 1024")
		judge v_mem "$rss_mib <= $budget"
	fi
	ok=$(check_calls "$f" "$ncalls")
	[[ $ok == PASS* ]] || fails=$((fails + 1))
	simple+=("$(printf '%-14s %6s MB  calls %6s s (%s s CPU)  check/calls %-5s  RSS %s/%s MiB %s  %s' \
		"$name" "$(calc %.1f "$bytes / 1e6")" "$simple_t" "$(median "${us[@]}")" "$(r2 "$(median "${chk[@]}")")" "$rss_mib" "$budget" "$v_mem" "$ok")")
}

generate responses responses "$SIZE"
bench responses responses '"delta":"'
[[ ${KEEP:-0} == 1 ]] || rm -f -- "$f" "$dir/responses-edited.sse"
generate chat chat "$SIZE"
bench chat chat '"arguments":"'
[[ ${KEEP:-0} == 1 ]] || rm -f -- "$f" "$dir/chat-edited.sse"
generate anthropic anthropic "$SIZE"
anthropic_turns=$turns anthropic_bytes=$bytes
bench anthropic anthropic '"partial_json":"'
[[ ${KEEP:-0} == 1 ]] || rm -f -- "$f" "$dir/anthropic-edited.sse"
bedrock_rows=()
for kind in bedrock bedrock-invoke; do
	generate "$kind" "$kind" "$SIZE" -turns "$anthropic_turns"
	bench_simple "$kind"
	if [[ -n $bin && -n $anth_calls_t ]]; then
		r=$(ratio "$simple_t" "$anth_calls_t")
		judge v "$r <= 1.5"
		bedrock_rows+=("$kind: calls $simple_t s on $(calc %.0f "$bytes / 1e6") MB vs anthropic $anth_calls_t s on $(calc %.0f "$anthropic_bytes / 1e6") MB, same calls and text: $(calc %.2f "$r")x (<=1.5) $v")
	fi
	[[ ${KEEP:-0} == 1 ]] || rm -f -- "$f"
done
generate big-event big-event "$BIG"
bench_simple big-event
[[ ${KEEP:-0} == 1 ]] || rm -f -- "$f"

echo
echo "streamtap on generated captures — medians of $RUNS rounds, $(nproc) cores, load $load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a) at the end, $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-10s %6s %6s %6s %5s %-4s %5s %-4s %5s %-4s %5s %5s %-4s %5s %5s %-4s %5s %-4s %9s %-4s %s\n' \
	capture MB 'cat s' 'calls' 'xcat' '<=4' 'ns/ev' '450' 'peer' '>=2' 'check' 'cpu' '1.15' 'diff' 'cpu' '1.6' 'index' '1.2' 'RSS/budget' mem 'calls ok'
printf '%s\n' "${rows[@]}"
printf '%s\n' "${simple[@]}"
printf '%s\n' "${bedrock_rows[@]}"
echo
echo "xcat = calls elapsed / cat|wc elapsed; ns/ev = calls CPU per event; peer = the peer's CPU / calls' CPU;"
echo "check, diff = their elapsed (and CPU) / calls'; index = the inspector's CPU to the end of its index / calls' CPU;"
echo "each a median of the rounds' own ratios. RSS = peak of calls (MiB); budget = 64 MiB + 3 x the largest event."
((have_index)) || echo "no index column: INDEX=0, or no tmux."
[[ -n $peer ]] || echo "no peer column: it did not build."
[[ -n $bin ]] || echo "streamtap did not build: its columns are empty."
if [[ -s $TMP/cmd.err ]]; then
	echo "stderr of the timed commands (last lines):"
	tail -n 5 "$TMP/cmd.err" | sed 's/^/  /'
fi
[[ -n $bin ]] || exit 2
((fails == 0)) || exit 1
