#!/usr/bin/env bash
# outputs.sh writes what every headless command prints for every input the
# project knows, one file per (command, input), so that two builds can be
# compared byte for byte: a refactoring must leave the directory identical.
#
# usage: scripts/outputs.sh BINARY OUTDIR
#        diff -r OUTDIR-before OUTDIR-after
#
# What it covers:
#   - every reading command (calls, calls --json, events, events --explain,
#     check, check --json, check --profile tolerant --json, timeline,
#     timeline --explain) on every embedded sample, every capture in
#     ../shared/captures and ../shared/captures-next, and bad inputs made
#     here (empty, binary, an HTTP 401 body, a cut stream, invalid UTF-8,
#     CR-only line ends);
#   - the archives in capture/testdata/import (cassettes, ddapm-test-agent
#     JSON cassettes, httprr traces) and a HAR written by
#     --save-har, whole and one session at a time;
#   - --save-har and --save-timed output (times replaced by a placeholder);
#   - diff (text, --json, --strict) and --diff off a terminal on pairs of
#     samples;
#   - every command's help, help COMMAND, rules, rules --json, samples,
#     the completion scripts and some completions; sample:NAME as a FILE;
#   - error paths: unknown command or flag, missing file, bad --session,
#     unknown sample, bad --format, overwriting the input, one diff operand.
# Each output file holds the command's stdout, then its stderr and exit
# code after a separator line. Paths of the made inputs are relative to a
# scratch directory, so no output depends on where it runs.
set -euo pipefail

bin=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/streamtap-outputs.XXXXXX")
trap 'rm -rf -- "$work" "$work.stderr"' EXIT

# run FILE ARGS... runs the binary in $work and writes stdout, then stderr
# and the exit code, to $out/FILE.
run() {
	local file=$out/$1 rc=0
	shift
	(cd "$work" && "$bin" "$@") >"$file" 2>"$work.stderr" </dev/null || rc=$?
	{ echo "--- stderr, exit $rc"; cat "$work.stderr"; } >>"$file"
}

# stable FILE prints FILE with what differs from run to run (wall-clock
# times, arrival offsets, the binary's version) replaced by placeholders.
stable() {
	sed -E \
		-e 's/"startedDateTime":"[^"]*"/"startedDateTime":"T"/g' \
		-e 's/"creator":\{"name":"streamtap","version":"[^"]*"\}/"creator":{"name":"streamtap","version":"V"}/g' \
		-e 's/^: t=[0-9.]+$/: t=T/' \
		-e 's/^: (started|recorded) .*/: \1 T/' \
		"$1"
}

inputs=()
for s in $("$bin" samples | awk '{print $1}'); do
	inputs+=("sample:$s")
done
# Inputs from outside are linked into $work/in and named relative to
# $work, so that outputs naming their input do not depend on where the
# checkout is.
mkdir -p "$work/in"
for d in captures captures-next; do
	if [[ -d $root/../shared/$d ]]; then
		for f in "$root"/../shared/$d/*; do
			[[ $f == */MANIFEST.tsv || $f == *.md ]] && continue
			ln -s "$f" "$work/in/"
			inputs+=("in/$(basename "$f")")
		done
	fi
done
for f in "$root"/capture/testdata/import/*.yaml "$root"/capture/testdata/import/*.chunks.txt "$root"/capture/testdata/import/*.json "$root"/capture/testdata/import/*.httprr*; do
	ln -s "$f" "$work/in/"
done
: >"$work/empty.sse"
perl -e 'srand(1); print map { chr(int(rand(256))) } 1 .. 4096' >"$work/binary.bin"
printf 'HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n\r\n{"error":{"message":"bad key","type":"invalid_request_error"}}' >"$work/http-401.txt"
printf 'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"r","status":"in_progress"}}\n\nevent: response.output_text.delta\ndata: {"type":"resp' >"$work/cut.sse"
printf 'data: {"choices":[{"index":0,"delta":{"content":"\xff\xfe ok"}}]}\n\n' >"$work/bad-utf8.sse"
printf 'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\r\rdata: [DONE]\r\r' >"$work/cr-only.sse"
# A whole, non-streaming Bedrock Converse response (text and a call).
printf '{"output":{"message":{"role":"assistant","content":[{"text":"Checking."},{"toolUse":{"toolUseId":"tooluse_1","name":"get_weather","input":{"city":"Paris"}}}]}},"stopReason":"tool_use","usage":{"inputTokens":40,"outputTokens":20,"totalTokens":60},"metrics":{"latencyMs":420}}\n' >"$work/converse-whole.json"
# Hostile text inside valid JSON: C0, C1, DEL, bidi overrides, an escape
# sequence, as a tool name, arguments and text.
printf 'data: {"choices":[{"index":0,"delta":{"content":"a\\u001b[31mred\\u0085\\u202e\\u007f","tool_calls":[{"index":0,"id":"c\\u009b1","type":"function","function":{"name":"n\\u0007x","arguments":"{\\"k\\":\\"\\u2066v\\"}"}}]},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n' >"$work/hostile.sse"
# The made inputs are named relative to $work, so that the outputs that
# name their input do not depend on the temporary directory.
for f in "$work"/*; do [[ -f $f ]] && inputs+=("made:$(basename "$f")"); done

commands=("calls" "calls --json" "events" "events --explain" "check" "check --json"
	"check --profile tolerant --json" "timeline" "timeline --explain")
for in in "${inputs[@]}"; do
	if [[ $in == sample:* ]]; then
		name=${in#sample:}; src=(--sample "$name")
	elif [[ $in == made:* ]]; then
		name=${in#made:}; src=("$name")
	else
		name=$(basename "$in"); src=("$in")
	fi
	for cmd in "${commands[@]}"; do
		# shellcheck disable=SC2086
		run "$name.${cmd// /_}" $cmd "${src[@]}"
	done
done

# Archives: every session, and one session at a time.
archives=()
for f in "$root"/capture/testdata/import/*.yaml "$root"/capture/testdata/import/*.chunks.txt "$root"/capture/testdata/import/*.json "$root"/capture/testdata/import/*.httprr*; do
	archives+=("in/$(basename "$f")")
done
(cd "$work" && "$bin" calls --sample responses-single-call --save-har made.har >/dev/null 2>&1) || true
(cd "$work" && "$bin" calls --sample chat-parallel-calls --save-timed made.timed >/dev/null 2>&1) || true
archives+=("made.har")
for a in "${archives[@]}"; do
	name=archive.$(basename "$a")
	for cmd in "calls" "calls --json" "check --json" "events" "timeline"; do
		# shellcheck disable=SC2086
		run "$name.${cmd// /_}" $cmd "$a"
	done
	run "$name.calls_--session_1" calls --session 1 "$a"
	run "$name.calls_--session_99" calls --session 99 "$a"
done
stable "$work/made.har" >"$out/save-har.responses-single-call.har"
stable "$work/made.timed" >"$out/save-timed.chat-parallel-calls.txt"
(cd "$work" && "$bin" check --json --save-har check.har in/gemini-iter-stream__pydantic-ai.yaml >/dev/null 2>&1) || true
stable "$work/check.har" >"$out/save-har.gemini-iter-stream.har"
run "timed.calls_--json" calls --json made.timed

# Comparing streams.
pairs=("responses-single-call gateway-responses-single-call"
	"chat-single-call chat-parallel-calls"
	"broken-done-args-differ responses-single-call"
	"anthropic-text-then-tool anthropic-text-then-tool")
for p in "${pairs[@]}"; do
	read -r a b <<<"$p"
	run "diff.$a.$b" diff "sample:$a" "sample:$b"
	run "diff.$a.$b.json" diff --json "sample:$a" "sample:$b"
	run "diff.$a.$b.strict" diff --strict "sample:$a" "sample:$b"
	run "diff-flag.$a.$b" --sample "$a" --diff "sample:$b"
done
run "diff.ignore" diff --ignore obfuscation,timing sample:chat-single-call sample:chat-parallel-calls
run "diff.ignore-unmatched" diff --ignore usgae,chunking sample:responses-single-call sample:gateway-responses-single-call

# Help, rules, samples.
run "help" --help
run "help.command" help
# Every command the help lists, so that a new one is covered as it lands.
for c in $("$bin" --help | awk '/^commands:/ { list = 1; next } list && /^  [a-z]/ { print $1; next } list { exit }'); do
	run "help.$c" "$c" --help
	run "help-command.$c" help "$c"
done
run "rules" rules
run "rules.json" rules --json
run "inject.list" inject --list
run "inject.list.json" inject --list --json
# inject: the stream on stdout, where each defect acted on stderr; one
# defect of each dialect's samples, and a recording.
run "inject.chat" inject stop-not-tool,done-doubled sample:chat-single-call
run "inject.responses.json" inject args-differ sample:responses-parallel-calls --json
run "inject.anthropic" inject midstream-error sample:anthropic-text-then-tool --seed 2
run "inject.bedrock" inject crc sample:bedrock-converse-text-then-tool
run "inject.recording" inject cut-terminal sample:responses-websocket-turns
run "inject.not-applicable" inject crc sample:chat-single-call
run "samples" samples
for shell in bash zsh fish; do
	run "completion.$shell" completion "$shell"
done
run "complete.sample" __complete --sample ""
run "complete.check-flags" __complete check --
# sample:NAME where a FILE goes.
run "sample-operand.calls" calls sample:chat-single-call
run "sample-operand.check" check sample:chat-single-call sample:broken-cut-before-terminal

# Error paths and their exit codes.
run "error.unknown-command" chek
run "error.unknown-flag" calls --no-such-flag --sample chat-single-call
run "error.missing-file" calls no-such-file.sse
run "error.missing-file-named-like-a-sample" calls gateway-responses-single-call
run "error.session-0" calls --session 0 made.har
run "error.unknown-sample" calls --sample nonexistent
run "error.bad-format" calls --format nonsense empty.sse
run "error.save-over-input" calls --save cut.sse cut.sse
run "error.diff-one-operand" diff sample:chat-single-call
run "error.diff-missing" diff sample:chat-single-call no-such-file.sse
run "error.bad-fail-on" check --fail-on nonsense --sample chat-single-call
run "error.bad-profile" check --profile nonsense --sample chat-single-call
run "error.request-missing" check --request no-such-request.json --sample chat-single-call
echo "wrote $(ls "$out" | wc -l) outputs to $out"
