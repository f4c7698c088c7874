#!/usr/bin/env bash
# outputs.sh writes what every headless command prints for every input the
# project knows, one file per (command, input), so that two builds can be
# compared byte for byte: a refactoring must leave the directory identical.
#
# usage: scripts/outputs.sh BINARY OUTDIR
#        diff -r OUTDIR-before OUTDIR-after
#
# Inputs: every embedded sample, every capture in ../shared/captures, the
# AWS event streams in ../shared/captures-next, and a
# few bad inputs made here (empty, binary, an HTTP 401 body, a cut stream,
# invalid UTF-8, CR-only line ends). Each output file holds the command's
# stdout, then its stderr and exit code after a separator line.
set -euo pipefail

bin=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/streamtap-outputs.XXXXXX")
trap 'rm -rf -- "$work" "$work.stderr"' EXIT

inputs=()
for s in $("$bin" samples | awk '{print $1}'); do
	inputs+=("sample:$s")
done
if [[ -d $root/../shared/captures ]]; then
	for f in "$root"/../shared/captures/*.sse; do inputs+=("$f"); done
fi
if [[ -d $root/../shared/captures-next ]]; then
	for f in "$root"/../shared/captures-next/*.eventstream; do inputs+=("$f"); done
fi
: >"$work/empty.sse"
perl -e 'srand(1); print map { chr(int(rand(256))) } 1 .. 4096' >"$work/binary.bin"
printf 'HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n\r\n{"error":{"message":"bad key","type":"invalid_request_error"}}' >"$work/http-401.txt"
printf 'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"r","status":"in_progress"}}\n\nevent: response.output_text.delta\ndata: {"type":"resp' >"$work/cut.sse"
printf 'data: {"choices":[{"index":0,"delta":{"content":"\xff\xfe ok"}}]}\n\n' >"$work/bad-utf8.sse"
printf 'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\r\rdata: [DONE]\r\r' >"$work/cr-only.sse"
# The made inputs are named relative to $work, so that the outputs that
# name their input do not depend on the temporary directory.
for f in "$work"/*; do inputs+=("made:$(basename "$f")"); done

commands=("calls" "calls --json" "events" "check" "check --json" "check --profile tolerant --json" "timeline")
for in in "${inputs[@]}"; do
	if [[ $in == sample:* ]]; then
		name=${in#sample:}; src=(--sample "$name")
	elif [[ $in == made:* ]]; then
		name=${in#made:}; src=("$name")
	else
		name=$(basename "$in"); src=("$in")
	fi
	for cmd in "${commands[@]}"; do
		file="$out/$name.${cmd// /_}"
		rc=0
		# shellcheck disable=SC2086
		(cd "$work" && "$bin" $cmd "${src[@]}") >"$file" 2>"$work.stderr" || rc=$?
		{ echo "--- stderr, exit $rc"; cat "$work.stderr"; } >>"$file"
	done
done
echo "wrote $(ls "$out" | wc -l) outputs to $out"
