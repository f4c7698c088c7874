package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/streamtap/streamtap/samples"
)

// samplesAbout is the command's help under its usage line; the flags are
// listed from its flag set.
const samplesAbout = `Lists the sample streams embedded in the binary, each with the lesson it
teaches. Open one with streamtap --sample NAME, with any command that reads a
stream, or play it with streamtap replay --sample NAME.
`

// samplesCommand lists the embedded samples.
func samplesCommand() command {
	return command{name: "samples", summary: "list the embedded sample streams", about: samplesAbout, flags: noFlags("samples"), run: runSamples,
		noSample: "samples takes no --sample: it lists the samples (open one with streamtap --sample NAME)"}
}

func runSamples(_ context.Context, args []string, _ *os.File, stdout, _ io.Writer) error {
	positional, err := parseInterspersed(noFlags("samples")(), args)
	if err != nil {
		return usageError("samples", err)
	}
	if len(positional) > 0 {
		return usageError("samples", fmt.Errorf("samples takes no arguments (got %s)", strings.Join(positional, " ")))
	}
	return listSamples(stdout)
}

// listSamples prints the embedded samples, one line each: name, lesson,
// the lessons in one column however long the longest name.
func listSamples(stdout io.Writer) error {
	w := bufio.NewWriter(stdout)
	list := samples.List()
	width := 0
	for _, s := range list {
		width = max(width, len(s.Name))
	}
	for _, s := range list {
		fmt.Fprintf(w, "%-*s  %s\n", width, s.Name, s.Lesson)
	}
	if err := w.Flush(); err != nil {
		return exitStatus(statusError) // stdout is gone: nowhere to say more
	}
	return nil
}
