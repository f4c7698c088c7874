package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/termtext"
)

// samplePrefix names an embedded sample where a FILE goes: `streamtap
// calls sample:NAME` is `streamtap calls --sample NAME`, and diff's
// operands and --diff B take it too.
const samplePrefix = "sample:"

// sampleOperand reports whether the operand arg names an embedded sample
// (sample:NAME), and which.
func sampleOperand(arg string) (string, bool) { return strings.CutPrefix(arg, samplePrefix) }

// operandError adds to err, the error of opening the operand arg, the
// operand that opens the sample of that name when there is no such file:
// `--diff gateway-responses-single-call` means the sample.
func operandError(arg string, err error) error {
	if !errors.Is(err, fs.ErrNotExist) || strings.ContainsAny(arg, `/\`) {
		return err
	}
	name := strings.TrimSuffix(arg, ".sse")
	if _, sampleErr := openSample(name); sampleErr != nil {
		return err
	}
	return fmt.Errorf("%w (did you mean %s%s, the embedded sample?)", err, samplePrefix, name)
}

// knownIgnores are the names --ignore takes that are not JSON members,
// or that every stream of some dialect has: the kinds of difference, the
// aspects streamdiff names, and the default names.
func knownIgnores() []string {
	names := append(streamdiff.DefaultIgnore(), streamdiff.IgnoreSeq, streamdiff.IgnoreKeepalive, streamdiff.IgnoreTiming, streamdiff.IgnoreChunking, streamdiff.IgnoreEventLines)
	for k := streamdiff.Kind(0); k.String() != "unknown"; k++ {
		names = append(names, k.String())
	}
	return names
}

// jsonMember matches a JSON member name, for suggestions.
var jsonMember = regexp.MustCompile(`"([A-Za-z_][A-Za-z0-9_.-]{0,63})"\s*:`)

// maxSuggestNames bounds the member names kept to suggest from.
const maxSuggestNames = 4096

// warnUnmatchedIgnores says on stderr which names of --ignore match
// nothing: neither a kind of difference nor an aspect, and found nowhere
// in either operand's bytes, so that `--ignore usgae` no longer ignores
// nothing in silence; it names the nearest member the streams do hold.
// Standard input cannot be read twice: with it, nothing is said. It
// returns what it said, for a screen that hides stderr.
func warnUnmatchedIgnores(cmd string, ignore []string, operands []string, stderr io.Writer) (warnings []string) {
	known := knownIgnores()
	var unknown []string
	for _, n := range ignore {
		if !slices.Contains(known, n) && !slices.Contains(unknown, n) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) == 0 || slices.Contains(operands, "-") {
		return
	}
	found := map[string]bool{}
	members := map[string]bool{}
	for _, op := range operands {
		if err := scanOperand(op, unknown, found, members); err != nil {
			return // opening it will say what is wrong
		}
	}
	for _, n := range known {
		members[n] = true
	}
	names := slices.Sorted(maps.Keys(members))
	for _, n := range unknown {
		if found[n] {
			continue
		}
		msg := fmt.Sprintf("warning: --ignore %s matches nothing: no kind of difference, and no member of either stream", n)
		if near := nearest(n, names); len(near) > 0 {
			msg += " (did you mean " + orList(near) + "?)"
		}
		fmt.Fprintf(stderr, "%s: %s\n", cmd, termtext.Safe(msg))
		warnings = append(warnings, msg)
	}
	return warnings
}

// scanOperand marks in found each of names that the operand's bytes
// hold, and collects the member names it holds into members (up to
// maxSuggestNames). A file is read a piece at a time.
func scanOperand(op string, names []string, found, members map[string]bool) error {
	var r io.Reader
	if name, ok := sampleOperand(op); ok {
		data, err := openSample(name)
		if err != nil {
			return err
		}
		r = bytes.NewReader(data)
	} else {
		f, err := os.Open(op)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	const piece, overlap = 1 << 20, 128
	buf := make([]byte, 0, piece+overlap)
	for {
		n, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		for _, name := range names {
			if bytes.Contains(buf, []byte(name)) {
				found[name] = true
			}
		}
		for _, m := range jsonMember.FindAllSubmatch(buf, -1) {
			if len(members) < maxSuggestNames {
				members[string(m[1])] = true
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			return err
		}
		// Keep the end, where a name may start that the next piece ends.
		keep := min(overlap, len(buf))
		copy(buf, buf[len(buf)-keep:])
		buf = buf[:keep]
	}
}
