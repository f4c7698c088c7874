#!/usr/bin/env bash
# bench-archive.sh measures what reading a hostile archive costs: HAR
# files and cassettes whose bodies are gzip bombs (scripts/genbomb: a few
# hundred KB each that inflate to 255 MiB), read with `streamtap calls`,
# against the same command on a HAR of as many ordinary sessions in the
# same run (the baseline: the process's own floor of time and memory);
# and what a large archive of small sessions costs, as its sessions
# double (its CPU should double too; its memory should not grow).
#
# usage: scripts/bench-archive.sh
#
# Cases (the bombs are NUL bytes, the best ratio DEFLATE reaches, unless
# named sse: one short event repeated, millions of events to model):
#
#   plain-har   20 ordinary sessions (the baseline)
#   bomb-1      one bomb (a 347 KB HAR)
#   bomb-20     20 bombs (a 6.9 MB HAR)
#   bomb-20 -s3 the same, --session 3
#   cassette-10 10 bombs in a vcrpy cassette
#   sse-20      20 bombs of events in a HAR
#   har-N, har-2N       N and 2N small sessions in a HAR (N = SMALL_HAR,
#                       default 25000: 50 and 100 MB)
#   cassette-M, -2M     M and 2M small interactions in a cassette (M =
#                       SMALL_CASSETTE, default 5000: 9 and 18 MB)
#
# and checks, for each streamtap built:
#
#   memory  peak RSS at most 64 MiB + 2 x the largest body read (a bomb
#           of 255 MiB when one is read; bombs past the bounds are not),
#           whatever the file's size
#   bomb-20 read or refused in under 5 s of CPU, under 600 MB peak RSS
#   double  the 2N (2M) archive takes at most 2.2 x the CPU of the N (M)
#           one: linear (issue 25: x5.7 and x14.6, the collector running
#           without pause)
#
# The gcs column counts the collections (GODEBUG=gctrace=1).
# Times are elapsed (bash's time) and CPU (user+system, from
# /usr/bin/time); the verdict takes CPU, which other helpers' load on a
# shared machine disturbs far less than elapsed time. RSS from
# /usr/bin/time.
#
# Environment:
#   BASE_REF  also build this git ref (e.g. main) and run it the same way,
#             for a before/after in one run; its runs are capped at
#             BASE_CAP KiB of address space (default 8 GiB), since the
#             reader before the bounds took 7 GB on bomb-20
#   RUNS      timed runs per command, best kept (default 1)
#   SMALL_HAR, SMALL_CASSETTE  sessions of the small archives (above)
#   BENCH_DIR, KEEP=1 as for bench.sh
#
# Exit status: 0 when every target passes for this tree's streamtap, 1
# when one fails, 2 on error.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

RUNS=${RUNS:-1}
SMALL_HAR=${SMALL_HAR:-25000}
SMALL_CASSETTE=${SMALL_CASSETTE:-5000}
BASE_CAP=${BASE_CAP:-8388608}
TIMEFORMAT=%3R

source "$root/scripts/bench-lib.sh"
bench_setup bench-archive
[[ -x /usr/bin/time ]] || { echo "bench-archive.sh needs GNU time at /usr/bin/time" >&2; exit 2; }
go build -o "$TMP/genbomb" ./scripts/genbomb
go build -o "$TMP/streamtap" . || exit 2
bins=("$TMP/streamtap") labels=(head)
if [[ -n ${BASE_REF:-} ]]; then
	bench_build_ref "$BASE_REF" "$TMP/streamtap-base"
	bins+=("$TMP/streamtap-base") labels+=("$BASE_REF")
fi

gen() { # gen NAME ARGS...: a file of the generator, listed for cleanup
	local f=$dir/$1
	shift
	generated+=("$f")
	"$TMP/genbomb" -out "$f" "$@" 2>>"$TMP/gen.out"
	echo "$f"
}
echo "generating the archives..." >&2
plain=$(gen plain.har -format har -small 20 -entries 0)
one=$(gen bomb-1.har -format har -entries 1)
twenty=$(gen bomb-20.har -format har -entries 20)
cassette=$(gen bomb-10.yaml -format cassette -entries 10)
sse=$(gen sse-20.har -format har -entries 20 -content sse)
har1=$(gen small-1.har -format har -small "$SMALL_HAR" -entries 0)
har2=$(gen small-2.har -format har -small $((2 * SMALL_HAR)) -entries 0)
cas1=$(gen small-1.yaml -format cassette -small "$SMALL_CASSETTE" -entries 0)
cas2=$(gen small-2.yaml -format cassette -small $((2 * SMALL_CASSETTE)) -entries 0)
sed 's/^/  /' "$TMP/gen.out" >&2
bomb_mib=255 # genbomb's default -inflate

calc() { awk "BEGIN { printf \"$1\", $2 }"; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
verdict() { if awk "BEGIN { exit !($1) }"; then echo PASS; else echo FAIL; fi; }

# time_once CAP CMD... runs CMD once (under an address-space cap of CAP
# KiB, or none for 0), stdout to /dev/null, and sets t (seconds), u
# (user+system seconds), m (peak RSS KiB), g (collections) and rc.
time_once() {
	local cap=$1
	shift
	rc=0
	{ time (
		if ((cap > 0)); then ulimit -v "$cap"; fi
		GODEBUG=gctrace=1 nice /usr/bin/time -f '%M %U %S' -o "$TMP/rss" "$@" >/dev/null 2>"$TMP/one.err"
	); } 2>"$TMP/elapsed" || rc=$?
	g=$(grep -c '^gc ' "$TMP/one.err" || true)
	grep -v '^gc ' "$TMP/one.err" >>"$TMP/cmd.err" || true
	local user sys
	read -r m user sys < <(tail -n 1 "$TMP/rss")
	u=$(calc %.2f "$user + $sys")
	t=$(tail -n 1 "$TMP/elapsed")
}

rows=() status=0
declare -A cpu=()
# run CASE READ_MIB FILE ARGS...: READ_MIB is the largest body read (for
# the budget)
run() {
	local name=$1 read_mib=$2 file=$3
	shift 3
	local i b
	for i in "${!bins[@]}"; do
		local bt= bu= bm= bg= brc= cap=0
		[[ $i -gt 0 ]] && cap=$BASE_CAP
		for ((b = 0; b < RUNS; b++)); do
			echo "== ${labels[$i]} $name" >>"$TMP/cmd.err"
			time_once "$cap" "${bins[$i]}" calls "$@" "$file"
			if [[ -z $bt ]] || lt "$t" "$bt"; then bt=$t; fi
			if [[ -z $bu ]] || lt "$u" "$bu"; then bu=$u; fi
			if [[ -z $bm ]] || ((m > bm)); then bm=$m; fi
			bg=$g
			brc=$rc
		done
		local rss budget mem=- fast=-
		rss=$(calc %.0f "$bm / 1024")
		budget=$(calc %.0f "64 + 2 * $read_mib")
		mem=$(verdict "$rss <= $budget")
		if [[ $name == bomb-20 ]]; then
			fast=$(verdict "$bu < 5 && $bm * 1024 < 600e6")
		fi
		rows+=("$(printf '%-8s %-12s %7s %4s %8s %7s %6s %8s %7s %5s %7s' "${labels[$i]}" "$name" \
			"$(calc %.2f "$(stat -c %s "$file") / 1e6")" "$brc" "$bt" "$bu" "$bg" "$rss" "$budget" "$mem" "$fast")")
		if ((i == 0)) && [[ $mem == FAIL || $fast == FAIL ]]; then status=1; fi
		cpu[${labels[$i]}/$name]=$bu
	done
}

run plain-har 0 "$plain"
run bomb-1 $bomb_mib "$one"
run bomb-20 $bomb_mib "$twenty"
run bomb-20-s3 $bomb_mib "$twenty" --session 3
run cassette-10 $bomb_mib "$cassette"
run sse-20 $bomb_mib "$sse"
run "har-$SMALL_HAR" 0 "$har1"
run "har-$((2 * SMALL_HAR))" 0 "$har2"
run "cassette-$SMALL_CASSETTE" 0 "$cas1"
run "cassette-$((2 * SMALL_CASSETTE))" 0 "$cas2"

# doubling LABEL A B: the CPU of case B over case A, and its verdict.
doubling=()
for label in "${labels[@]}"; do
	for pair in "har-$SMALL_HAR har-$((2 * SMALL_HAR))" "cassette-$SMALL_CASSETTE cassette-$((2 * SMALL_CASSETTE))"; do
		read -r a b <<<"$pair"
		ratio=$(calc %.2f "${cpu[$label/$b]} / (${cpu[$label/$a]} > 0 ? ${cpu[$label/$a]} : 0.01)")
		v=$(verdict "$ratio <= 2.2")
		doubling+=("$(printf '%-8s %-28s x%s %s' "$label" "$a -> $b CPU" "$ratio" "$v")")
		if [[ $label == head && $v == FAIL ]]; then status=1; fi
	done
done

echo
echo "streamtap calls on gzip-bomb archives — best of $RUNS, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a), $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-8s %-12s %7s %4s %8s %7s %6s %8s %7s %5s %7s\n' build case 'file MB' exit 'elapsed' 'cpu s' gcs 'RSS MiB' budget mem '<5s,600M'
printf '%s\n' "${rows[@]}"
echo
echo "doubling the sessions (target: at most x2.2 the CPU):"
printf '%s\n' "${doubling[@]}"
echo
echo "budget = 64 MiB + 2 x the largest body read (${bomb_mib} MiB per bomb); exit 2 = a session refused (past a bound);"
echo "baseline = plain-har, the same number of sessions with ordinary bodies, in the same run."
echo "stderr of the commands (last refusal lines):"
grep -v '^==' "$TMP/cmd.err" | sort | uniq -c | sort -rn | head -n 4 | cut -c1-200 | sed 's/^/  /'
exit $status
