package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/ui"
)

// runDiffView runs `streamtap A --diff B`. On a terminal it opens the
// inspector's diff page: A is read as the inspector reads any input (a
// file, a sample, or a live pipe), B beside it, whole, and the page
// compares them once both are in. Otherwise it prints what `streamtap diff
// A B` prints, with its exit status. B is a file or sample:NAME: standard
// input is A's, when it is anything's.
func runDiffView(ctx context.Context, o options, stdin *os.File, stdout, stderr io.Writer) error {
	a, err := diffOperandA(o, stdin)
	if err == nil && o.diff == "-" {
		err = errors.New("--diff -: B must be a FILE or sample:NAME; standard input can only be A (curl -N … | streamtap --diff B.sse)")
	}
	if err == nil && o.session > 0 {
		err = errors.New("--session N chooses a session of a HAR file or a cassette; --diff compares two streams")
	}
	if err != nil {
		return usageError("", err)
	}
	warned := warnUnmatchedIgnores("streamtap", o.compare.ignore, []string{a, o.diff}, stderr)
	if !isTerminal(stdout) {
		return diffStreams(ctx, [2]string{a, o.diff}, o.format, o.compare.options(), false, stdin, stdout, stderr)
	}
	if a == "-" && isTerminal(stdin) {
		return usageError("", errors.New("--diff: A would be read from the terminal; pipe a stream in or give a FILE"))
	}
	ar, err := loadArchive(ctx, o, stdin)
	if err == nil {
		err = diffPageOperands(ctx, ar, o, stdin)
	}
	var src *capture.Source
	switch {
	case err != nil:
	case ar != nil:
		src = ar.source(0, ar.name)
	default:
		src, err = openSource(ctx, o, stdin, stderr, false)
	}
	if err != nil {
		return readError(err)
	}
	defer src.Close()
	for _, save := range []struct {
		on   bool
		open func() (func(), error)
	}{
		{o.saveHAR != "", func() (func(), error) { return saveHAR(ctx, src, nil, o, stderr) }},
		{o.saveTimed != "", func() (func(), error) { return saveTimed(src, o) }},
	} {
		if !save.on {
			continue
		}
		closeSave, err := save.open()
		if err != nil {
			return err
		}
		defer closeSave()
	}
	cmp := o.compare.options()
	mk := func(mo model.Options, uo ui.Options) *ui.Model {
		if len(warned) > 0 { // the screen hides the lines on stderr
			uo.Warning = warned[0]
			if n := len(warned) - 1; n > 0 {
				uo.Warning += fmt.Sprintf(" (and %d more)", n)
			}
		}
		mo, rec := streamdiff.Attach(mo, cmp.Ignore)
		return ui.NewDiff(model.NewSession(mo), rec, uo, ui.Diff{B: diffOperandName(o.diff), Compare: cmp})
	}
	readB := func(ctx context.Context, send func(tea.Msg)) {
		base, c := checks.Attach(model.Options{KeepEvents: true})
		if o.requestBody != nil {
			// Both streams answer one request: --request holds B too.
			r := model.ParseRequest(o.requestBody, "")
			c.SetRequest(&r)
		}
		sd, closeB, err := readDiffSide(ctx, o.diff, o.format, base, cmp.Ignore, true, stdin, stderr)
		if errors.Is(err, context.Canceled) {
			return // the user quit
		}
		send(ui.SideRead(sd, err))
		if closeB != nil {
			// B's events are read back from its file while the page
			// shows them: it stays open until the program ends.
			<-ctx.Done()
			closeB()
		}
	}
	return runInspector(ctx, src, o, stdout, mk, readB)
}

// diffPageOperands says why A (ar, when A is an archive) or B cannot be
// shown on the diff page, before it opens: each must be one stream, as
// for `streamtap diff` (an archive of one session is its stream).
func diffPageOperands(ctx context.Context, ar *archiveInput, o options, stdin *os.File) error {
	if ar != nil && ar.len() != 1 {
		return severalSessions(ar)
	}
	if _, ok := sampleOperand(o.diff); ok {
		return nil
	}
	src, _, err := openDiffOperand(ctx, o.diff, o.format, stdin)
	if err != nil {
		return err
	}
	return src.Close()
}

// diffOperandA is stream A of --diff as an operand of `streamtap diff`:
// the sample, the file, or - for the standard input, named or piped.
func diffOperandA(o options, stdin *os.File) (string, error) {
	switch {
	case o.sample != "":
		return samplePrefix + o.sample, nil
	case o.input != "":
		return o.input, nil
	case capture.IsPipe(stdin):
		return "-", nil
	}
	return "", fmt.Errorf("--diff %s compares a stream A with it: give A as a FILE, --sample NAME, or pipe it in", o.diff)
}

// diffOperandName names an operand of diff as its side will once read:
// "sample NAME", or the path.
func diffOperandName(arg string) string {
	if name, ok := strings.CutPrefix(arg, samplePrefix); ok {
		return "sample " + strings.TrimSuffix(name, ".sse")
	}
	return arg
}
