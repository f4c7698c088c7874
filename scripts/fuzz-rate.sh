#!/usr/bin/env bash
# fuzz-rate.sh measures how many inputs a second the slow fuzz targets
# run: FuzzCompare (model/streamdiff), FuzzArchive (capture) and
# FuzzSpillCopy (proxy), each with an empty corpus cache of its own, so
# that a run starts from the seeds as a fresh clone does. A target that
# runs only a few inputs a second never gets past its seeds.
#
# usage: scripts/fuzz-rate.sh
#
# Each target is built once for fuzzing (go test -c -fuzz), then run for
# FUZZTIME with 2 workers; the count is the last "execs" the fuzzer
# printed (its count of inputs run, minimising not included), divided by
# the time. With BASE_REF the same targets of that git ref are built and
# run too, alternating with this tree's, for a before/after in one run.
# The fuzzer minimises each new input it finds (up to a minute), running
# the target on smaller copies without counting them: a target whose runs
# are slow or whose inputs are long spends its time there, and one run's
# count swings widely. RUNS runs of each are made, and the median kept.
#
# Target (issue 25): thousands of inputs a second for every target.
#
# Environment:
#   BASE_REF  also build this git ref (e.g. main) and run it the same way
#   FUZZTIME  how long each run fuzzes (default 30s)
#   RUNS      runs per target and build, the median kept (default 3)
#
# Exit status: 0 when every target of this tree runs at least 1000
# inputs a second, 1 when one does not, 2 on error.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
FUZZTIME=${FUZZTIME:-30s}
RUNS=${RUNS:-3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/streamtap-fuzz-rate.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT

targets=(model/streamdiff:FuzzCompare capture:FuzzArchive proxy:FuzzSpillCopy)
trees=("$root") labels=(head)
if [[ -n ${BASE_REF:-} ]]; then
	mkdir "$TMP/base"
	git archive "$BASE_REF" | tar -x -C "$TMP/base"
	trees+=("$TMP/base") labels+=("$BASE_REF")
fi

echo "building the fuzz targets..." >&2
for i in "${!trees[@]}"; do
	for t in "${targets[@]}"; do
		pkg=${t%%:*} fn=${t##*:}
		(cd "${trees[$i]}" && go test -c -fuzz "^$fn\$" -o "$TMP/$i-$fn.test" "./$pkg") || exit 2
	done
done

secs=$(awk -v d="$FUZZTIME" 'BEGIN { n = d + 0; if (d ~ /m$/) n *= 60; print n }')
rows=() status=0
for t in "${targets[@]}"; do
	pkg=${t%%:*} fn=${t##*:}
	declare -A counts=()
	for ((r = 0; r < RUNS; r++)); do
		for i in "${!trees[@]}"; do
			cache=$TMP/cache-$i-$fn-$r
			mkdir -p "$cache"
			out=$(cd "${trees[$i]}/$pkg" && timeout $((secs * 4 + 60)) "$TMP/$i-$fn.test" -test.run '^$' -test.fuzz "^$fn\$" \
				-test.fuzztime "$FUZZTIME" -test.fuzzcachedir "$cache" -test.parallel 2 2>&1) || {
				echo "$fn (${labels[$i]}) failed:" >&2
				echo "$out" | tail -n 20 >&2
				exit 2
			}
			execs=$(echo "$out" | grep -o 'execs: [0-9]*' | tail -n 1 | grep -o '[0-9]*')
			counts[$i]+="${execs:-0} "
		done
	done
	for i in "${!trees[@]}"; do
		median=$(echo ${counts[$i]} | tr ' ' '\n' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
		rate=$(awk -v n="$median" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')
		rows+=("$(printf '%-14s %-8s %10s %10s   %s' "$fn" "${labels[$i]}" "$median" "$rate" "${counts[$i]}")")
		if ((i == 0)) && ((rate < 1000)); then status=1; fi
	done
	unset counts
done

echo
echo "fuzz targets, $FUZZTIME each from the seeds, 2 workers — $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a), $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-14s %-8s %10s %10s   %s\n' target build 'median' 'execs/s' 'each run'
printf '%s\n' "${rows[@]}"
exit $status
