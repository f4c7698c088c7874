#!/usr/bin/env bash
# proxy-sessions.sh measures what a long-running `streamtap proxy` holds:
# it sends many sessions of one generated stream through the proxy on
# loopback, once with the sessions list on a terminal (tmux) and once with
# --no-tui (the baseline, in the same run), and reports resident memory
# after N and 2N sessions and how long the proxy takes to quit at 2N.
#
# usage: scripts/proxy-sessions.sh
#
# The upstream (scripts/proxyload) answers every request with a SIZE
# Responses stream (scripts/gencapture) in 4 KiB flushed writes; the
# client sends the sessions C at a time and checks each came back whole.
# With the sessions list, the script waits until the list counts every
# session, opens the first and the last one (g/G, enter) and checks the
# inspector shows their events, then quits with q; the baseline quits on
# SIGINT. Quit time is from the key (or signal) to the process's exit.
#
# Targets (issue 16 item 4), printed as PASS/FAIL:
#   memory  the sessions list at N sessions holds at most 300 MB RSS
#   quit    q at 2N sessions takes at most 200 ms
#
# With GAP the upstream waits GAP between its writes, so that C sessions
# are open at once (C=250 GAP=50ms: about 250, each open 2 s): the peak
# RSS columns then say what each session open costs with the sessions
# list, against --no-tui (issue 25 L4: 762 MB at 250-300 open, 144 MB
# without the list). BASE builds that git ref too and runs its sessions
# list the same way, after this tree's, for a before/after.
#
# Environment:
#   N      sessions in the first round (default 2000; the second doubles it)
#   SIZE   size of each session's stream (default 151KB)
#   C      sessions at a time (default 4)
#   KEEP_N when set, the proxy runs with --keep KEEP_N (at most N): the
#          list then holds the newest KEEP_N sessions
#   GAP    the upstream's wait between two 4 KiB writes (default 0)
#   BASE   a git ref to build and measure the same way (its sessions list)
#   SPILL_FAIL when set, the sessions list's spill directory is removed
#          once the proxy started, so that no session's copy can be
#          written (as when $TMPDIR is full): the list must stay within
#          the same bound, count the sessions "not kept" on screen, and
#          cannot open them (the script checks the count instead)
#
# Exit status: 0 when both targets pass, 1 when one fails, 2 on error.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

N=${N:-2000}
SIZE=${SIZE:-151KB}
C=${C:-4}
GAP=${GAP:-0}

command -v tmux >/dev/null || { echo "proxy-sessions.sh needs tmux" >&2; exit 2; }
source "$root/scripts/bench-lib.sh"
bench_setup proxy-sessions
bin=$TMP/streamtap
load=$TMP/proxyload
go build -o "$bin" .
go build -o "$load" ./scripts/proxyload
base_bin=
if [[ -n ${BASE:-} ]]; then
	echo "building $BASE as the baseline..." >&2
	bench_build_ref "$BASE" "$TMP/streamtap-base"
	base_bin=$TMP/streamtap-base
fi
"$TMP/gencapture" -dialect responses -size "$SIZE" -out "$TMP/body.sse" 2>/dev/null
sock=$TMP/tmux.sock
pids=()
stop_all() {
	tmux -S "$sock" kill-server 2>/dev/null || true
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	bench_cleanup
}
trap stop_all EXIT

"$load" upstream -body "$TMP/body.sse" -gap "$GAP" >"$TMP/up.addr" &
pids+=($!)
for _ in $(seq 100); do [[ -s $TMP/up.addr ]] && break; sleep 0.05; done
up=http://$(cat "$TMP/up.addr")
keep=()
[[ -n ${KEEP_N:-} ]] && keep=(--keep "$KEEP_N")
# listed N: the status line's count once n sessions went through (the
# line starts with it)
listed() {
	if [[ -n ${KEEP_N:-} ]] && (($1 > KEEP_N)); then
		echo "(^| )$KEEP_N sessions · $(($1 - KEEP_N)) older dropped"
	else
		echo "(^| )$1 sessions"
	fi
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }
rss_mb() { awk '/^VmRSS/ {printf "%.0f", $2/1024}' "/proc/$1/status"; }
peak_mb() { awk '/^VmHWM/ {printf "%.0f", $2/1024}' "/proc/$1/status"; }
wait_port() {
	for _ in $(seq 200); do
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		sleep 0.05
	done
	echo "the proxy did not listen on $1" >&2
	exit 2
}
screen() { tmux -S "$sock" capture-pane -p -t load; }
wait_screen() { # wait_screen REGEX: until the screen matches
	for _ in $(seq 600); do
		screen | grep -Eq "$1" && return 0
		sleep 0.1
	done
	echo "the screen never showed /$1/:" >&2
	screen >&2
	exit 2
}
wait_exit() { # wait_exit PID: until the process is gone
	while [[ -e /proc/$1 ]] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; do sleep 0.002; done
}

# run MODE [BIN]: sets rss0, rss1, rss2 and peak1, peak2 (MB) and quit
# (ms).
run() {
	local mode=$1 bin=${2:-$bin} port pid
	port=$("$load" port)
	if [[ $mode == tui ]]; then
		mkdir -p "$TMP/spilltmp"
		tmux -S "$sock" new-session -d -s load -x 160 -y 40 \
			"TMPDIR=$TMP/spilltmp exec $bin proxy --listen 127.0.0.1:$port --upstream $up ${keep[*]:-}"
		pid=$(tmux -S "$sock" list-panes -t load -F '#{pane_pid}')
	else
		"$bin" proxy --no-tui --listen "127.0.0.1:$port" --upstream "$up" "${keep[@]}" 2>"$TMP/notui.log" &
		pid=$!
		pids+=("$pid")
	fi
	wait_port "$port"
	if [[ $mode == tui && -n ${SPILL_FAIL:-} ]]; then
		rm -rf "$TMP"/spilltmp/streamtap-sessions-*
	fi
	rss0=$(rss_mb "$pid")
	"$load" drive -proxy "http://127.0.0.1:$port" -n "$N" -c "$C" >/dev/null
	[[ $mode == tui ]] && wait_screen "$(listed "$N")"
	peak1=$(peak_mb "$pid")
	sleep 1
	rss1=$(rss_mb "$pid")
	if [[ $mode == tui && -n ${SPILL_FAIL:-} ]]; then
		wait_screen "[0-9]+ not kept: spill directory gone"
	elif [[ $mode == tui ]]; then
		local first=1
		[[ -n ${KEEP_N:-} ]] && ((N > KEEP_N)) && first=$((N - KEEP_N + 1))
		tmux -S "$sock" send-keys -t load g Enter
		wait_screen "#$first POST /v1/responses"
		wait_screen "[0-9]+ events .* ended: completed"
		tmux -S "$sock" send-keys -t load Escape
		wait_screen "$(listed "$N")" # the list again (esc and G sent together would read as alt+G)
		tmux -S "$sock" send-keys -t load G Enter
		wait_screen "#$N POST /v1/responses"
		wait_screen "[0-9]+ events .* ended: completed"
		tmux -S "$sock" send-keys -t load Escape
		wait_screen "$(listed "$N")"
	fi
	"$load" drive -proxy "http://127.0.0.1:$port" -n "$N" -c "$C" >/dev/null
	[[ $mode == tui ]] && wait_screen "$(listed $((2 * N)))"
	peak2=$(peak_mb "$pid")
	sleep 1
	rss2=$(rss_mb "$pid")
	local t0
	t0=$(now_ms)
	if [[ $mode == tui ]]; then
		tmux -S "$sock" send-keys -t load q
	else
		kill -INT "$pid"
	fi
	wait_exit "$pid"
	quit=$(($(now_ms) - t0))
	[[ $mode == tui ]] && tmux -S "$sock" kill-session -t load 2>/dev/null || true
	return 0
}

echo "streamtap proxy, $N then $((2 * N)) sessions of $SIZE, $C at a time, gap $GAP — $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a)"
printf '%-14s %9s %12s %14s %12s %14s %8s\n' mode "start MB" "$N sess MB" "peak to $N" "$((2 * N)) sess MB" "peak to $((2 * N))" "quit ms"
row() { printf '%-14s %9s %12s %14s %12s %14s %8s\n' "$1" "$rss0" "$rss1" "$peak1" "$rss2" "$peak2" "$quit"; }
run notui
b0=$rss0 b1=$rss1 b2=$rss2 bq=$quit bp1=$peak1
row --no-tui
run tui
row sessions
tp1=$peak1
if [[ -n $base_bin ]]; then
	s0=$rss0 s1=$rss1 s2=$rss2 sq=$quit sp1=$peak1 sp2=$peak2
	run tui "$base_bin"
	row "sessions $BASE"
	echo "peak to $N: sessions list ${tp1} MB, $BASE's ${peak1} MB, --no-tui ${bp1} MB: ${BASE} x$(awk -v a="$peak1" -v b="$tp1" 'BEGIN{printf "%.2f", a/b}') this tree"
	rss0=$s0 rss1=$s1 rss2=$s2 quit=$sq peak1=$sp1 peak2=$sp2
fi
echo "sessions list vs --no-tui: RSS x$(awk -v a="$rss1" -v b="$b1" 'BEGIN{printf "%.2f", a/b}') at $N, x$(awk -v a="$rss2" -v b="$b2" 'BEGIN{printf "%.2f", a/b}') at $((2 * N)), peak x$(awk -v a="$peak1" -v b="$bp1" 'BEGIN{printf "%.2f", a/b}') to $N; quit $quit ms vs $bq ms"
status=0
if ((rss1 <= 300)); then echo "PASS memory: $rss1 MB at $N sessions (target <= 300 MB)"; else echo "FAIL memory: $rss1 MB at $N sessions (target <= 300 MB)"; status=1; fi
if ((quit <= 200)); then echo "PASS quit: $quit ms at $((2 * N)) sessions (target <= 200 ms)"; else echo "FAIL quit: $quit ms at $((2 * N)) sessions (target <= 200 ms)"; status=1; fi
exit $status
