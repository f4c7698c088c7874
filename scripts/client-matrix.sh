#!/usr/bin/env bash
# client-matrix.sh runs real clients against every protocol defect and
# transport fault streamtap can serve them, and writes what each did to
# docs/clients.md (scripts/clientmatrix/main.go does the running). It
# installs pinned versions of the clients, and of Node (they want Node 22),
# with npm into a temporary folder, builds streamtap there, and removes
# the folder at the end. Not run by CI: it needs the npm registry and takes
# a few minutes.
#
#   bash scripts/client-matrix.sh [-hang SECONDS] [-jobs N] [-only REGEXP]
#
# Flags after the script's name go to scripts/clientmatrix (see its -help).
set -euo pipefail

# The versions of record: bump them here, run the script, commit
# docs/clients.md.
NODE_VERSION=22.23.3
OPENAI=7.60.0
ANTHROPIC=1.17.0
AI=7.0.185
AI_OPENAI=4.0.126
AI_ANTHROPIC=4.0.112
MCP_SDK=1.32.2

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/streamtap-clients.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "installing the clients into $tmp" >&2
cd "$tmp"
npm init -y >/dev/null
npm install --no-audit --no-fund --save-exact --loglevel=error \
	"node@$NODE_VERSION" "openai@$OPENAI" "@anthropic-ai/sdk@$ANTHROPIC" \
	"ai@$AI" "@ai-sdk/openai@$AI_OPENAI" "@ai-sdk/anthropic@$AI_ANTHROPIC" "@modelcontextprotocol/sdk@$MCP_SDK" >&2
node="$tmp/node_modules/.bin/node"
"$node" --version >/dev/null
cp "$root/scripts/clientmatrix/driver.mjs" "$tmp/"

echo "building streamtap" >&2
cd "$root"
go build -o "$tmp/streamtap" .

versions="openai $OPENAI, @anthropic-ai/sdk $ANTHROPIC, ai $AI with @ai-sdk/openai $AI_OPENAI and @ai-sdk/anthropic $AI_ANTHROPIC, @modelcontextprotocol/sdk $MCP_SDK, on Node $("$node" --version | tr -d v)"
go run ./scripts/clientmatrix -bin "$tmp/streamtap" -node "$node" -dir "$tmp" \
	-out docs/clients.md -notes scripts/clientmatrix/notes.md \
	-versions "$versions" -cmdline "bash scripts/client-matrix.sh $*" "$@"
echo "wrote docs/clients.md" >&2
