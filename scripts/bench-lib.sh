# bench-lib.sh is sourced by the benchmark scripts: a scratch directory,
# the captures' directory and their cleanup, and the gencapture build.
#
# bench_setup NAME makes $TMP (scratch, always removed) and $dir (where
# captures go: $BENCH_DIR, or a temporary directory removed when empty),
# and arms the EXIT trap that removes the captures listed in $generated
# unless KEEP=1. It builds scripts/gencapture into $TMP/gencapture.

bench_setup() {
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/streamtap-$1.XXXXXX")
	own_dir=0
	if [[ -n ${BENCH_DIR:-} ]]; then
		dir=$BENCH_DIR
		mkdir -p "$dir"
	else
		dir=$(mktemp -d "${TMPDIR:-/tmp}/streamtap-captures.XXXXXX")
		own_dir=1
	fi
	generated=()
	trap bench_cleanup EXIT
	echo "building gencapture and streamtap..." >&2
	go build -o "$TMP/gencapture" ./scripts/gencapture
}

# bench_build_ref REF BIN builds git revision REF of this repository (its
# committed tree, taken with git archive) into BIN: the baseline a script
# measures in the same run as this tree. A failed build exits 2.
bench_build_ref() {
	local src
	src=$(mktemp -d "$TMP/ref.XXXXXX")
	git archive "$1" | tar -x -C "$src"
	(cd "$src" && go build -o "$2" .) || exit 2
}

bench_cleanup() {
	rm -rf -- "$TMP"
	if [[ ${KEEP:-0} == 1 ]]; then
		if ((${#generated[@]})); then echo "kept: ${generated[*]}" >&2; fi
	else
		if ((${#generated[@]})); then rm -f -- "${generated[@]}"; fi
		if ((own_dir)); then rmdir -- "$dir" 2>/dev/null || true; fi
	fi
	return 0
}

# bench_edit IN OUT EVENTS PATTERN writes IN with a few edits to OUT: the
# event at EVENTS/3 dropped, the first PATTERN at or after event EVENTS/2
# given an X, a keep-alive comment before event 2*EVENTS/3. diff of the two
# then has one event only in A, one field that differs, and a keep-alive
# it ignores by default.
bench_edit() {
	awk -v drop=$(($3 / 3)) -v change=$(($3 / 2)) -v ping=$((2 * $3 / 3)) -v pat="$4" '
		BEGIN { RS = ""; ORS = "\n\n"; done = 0 }
		NR == drop { next }
		NR == ping { print ": gateway keep-alive" }
		NR >= change && !done && index($0, pat) > 0 {
			i = index($0, pat) + length(pat)
			$0 = substr($0, 1, i - 1) "X" substr($0, i)
			done = 1
		}
		{ print }' "$1" >"$2"
}

# bench_index BIN FILE runs the inspector (BIN FILE) in a tmux terminal
# until its status line leaves "indexing" (polled every 20 ms), and sets
# index_t (seconds from its start) and index_u (the CPU seconds the
# process had used by then, from /proc); both are empty when it did not
# get there.
bench_index() {
	local sock=$TMP/tmux.sock sess=bench-$$ pid start now st
	tmux -S "$sock" new-session -d -s "$sess" -x 120 -y 40 "exec $1 $2"
	pid=$(tmux -S "$sock" list-panes -t "$sess" -F '#{pane_pid}')
	start=$(date +%s.%N)
	index_t= index_u=
	while sleep 0.02; do
		if ! kill -0 "$pid" 2>/dev/null; then break; fi
		if tmux -S "$sock" capture-pane -p -t "$sess" | grep -q 'ended:'; then
			now=$(date +%s.%N)
			read -r -a st <"/proc/$pid/stat"
			index_t=$(awk -v a="$now" -v b="$start" 'BEGIN { printf "%.3f", a - b }')
			index_u=$(awk -v u="${st[13]}" -v s="${st[14]}" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (u + s) / hz }')
			break
		fi
	done
	tmux -S "$sock" kill-server 2>/dev/null || true
}
