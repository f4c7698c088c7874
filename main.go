// Command streamtap inspects LLM tool-call streams: OpenAI Responses and
// Chat Completions, Anthropic Messages, Gemini, Ollama and Bedrock, as
// Server-Sent Events, JSON lines, AWS event streams, `curl -i` output,
// whole JSON responses or archives (HAR files, VCR cassettes); it records
// them through a proxy and replays them.
//
// main only hands the command line to package cli, which holds the
// commands.
package main

import (
	"os"

	"github.com/streamtap/streamtap/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
