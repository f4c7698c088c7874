// Package cli is streamtap's command line: one file per command (the
// inspector, calls, events, check, diff, rules, samples, timeline, proxy,
// replay, request, version, help), their flags, choosing and opening the
// source a command reads, wiring the capture into the model and the model
// into a view, and mapping what went wrong to an exit status.
//
// It must not hold logic another package could own: framing and sources
// belong to capture, meaning to model and its checks, rendering (text,
// JSON, the inspector) to ui, serving HTTP to proxy. A function here that
// is worth testing on its own, apart from the command it serves, is in
// the wrong package.
package cli

import (
	"context"
	"io"
	"os"
)

// Main runs the command line args (without the program name) on the
// process's standard streams until it ends or a shutdown signal stops it
// (notifyShutdown), and returns the exit status.
func Main(args []string) int {
	ctx, stop := notifyShutdown(os.Stderr)
	defer stop()
	debugReports(os.Stderr)
	return run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
}

// run dispatches a command line and returns the exit status. Flags may
// come before the command (`streamtap --json calls x.sse`): they are
// handed to it as if they followed it.
func run(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == completeCommand {
		return runComplete(args[1:], stdout)
	}
	name, rest := splitCommand(args)
	if name == "" {
		if err := mistypedCommand(rest); err != nil {
			return exit(err, stdout, stderr)
		}
	}
	c, _ := lookupCommand(name)
	return exit(c.run(ctx, rest, stdin, stdout, stderr), stdout, stderr)
}
