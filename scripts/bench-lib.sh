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
