package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/inject"
	"github.com/streamtap/streamtap/model/jsonscan"
	"github.com/streamtap/streamtap/termtext"
)

// injectAbout is the command's help under its usage line; the flags are
// listed from its flag set.
const injectAbout = `Writes INPUT (a recording, or any stream streamtap reads; sample:NAME for an
embedded sample, - for stdin) with the named protocol defects applied, one
after the other, to -o OUT or to stdout. Each defect names the rule of
'streamtap check' that reports it; events it does not touch keep their bytes.
Where each defect acted (event ordinals, as 'streamtap events' counts them
in the output) goes to stderr, or as JSON with --json or --report FILE.
--list lists the defects, the dialects each applies to and its rule.
docs/inject.md has the list and how to serve the result to a client's tests
('streamtap replay OUT --listen ADDR', or --inject on replay itself).
`

// maxInjectInput bounds the input inject holds in memory.
const maxInjectInput = 1 << 30

type injectOptions struct {
	list   bool
	json   bool
	out    string
	report string
	seed   uint64
	force  bool
}

func injectFlags(o *injectOptions) *flag.FlagSet {
	fs := newFlagSet("inject")
	fs.BoolVar(&o.list, "list", false, "list the defects: the dialects each applies to and the rule that reports it")
	fs.BoolVar(&o.json, "json", false, "print the report (or --list) as JSON; the report goes to stderr")
	fs.StringVar(&o.out, "o", "", "write the stream to `FILE` instead of stdout")
	fs.StringVar(&o.report, "report", "", "write the JSON report of where each defect acted to `FILE`")
	fs.Uint64Var(&o.seed, "seed", 0, "choose where each defect acts with `N`: 0 takes the first place it fits, any other N draws one, the same every time")
	fs.BoolVar(&o.force, "force", false, "overwrite a file that -o or --report names when it exists and is not empty (without it inject refuses)")
	return fs
}

// injectCommand applies protocol defects to a recording.
func injectCommand() command {
	return command{name: "inject", args: "DEFECT[,DEFECT…] INPUT | --list", summary: "write a recording with named protocol defects applied",
		about: injectAbout, flags: func() *flag.FlagSet { return injectFlags(new(injectOptions)) }, run: runInject,
		noSample: "inject takes no --sample: name it as INPUT, sample:NAME"}
}

func runInject(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	var o injectOptions
	positional, err := parseInterspersed(injectFlags(&o), args)
	if err != nil {
		return usageError("inject", err)
	}
	if o.list {
		if len(positional) > 0 {
			return usageError("inject", fmt.Errorf("--list takes no arguments (got %s)", strings.Join(positional, " ")))
		}
		return writeDefectList(stdout, o.json)
	}
	if len(positional) != 2 {
		return usageError("inject", errors.New("inject takes DEFECT[,DEFECT…] and INPUT ('streamtap inject --list' lists the defects)"))
	}
	defects, err := inject.ParseList(positional[0])
	if err != nil {
		return usageError("inject", err)
	}
	if o.out == "" && isTerminal(stdout) {
		return usageError("inject", errors.New("the output is a stream, not for a terminal: give -o FILE or redirect stdout"))
	}
	for _, out := range [][2]string{{"-o", o.out}, {"--report", o.report}} {
		if out[1] != "" && (sameFile(out[1], positional[1]) || out[0] == "--report" && sameFile(out[1], o.out)) {
			return usageError("inject", fmt.Errorf("%s %s: it is the input or the other output, which writing it would destroy", out[0], termtext.Safe(out[1])))
		}
	}
	if err := existingOutputs(o.force, [2]string{"-o", o.out}, [2]string{"--report", o.report}); err != nil {
		return usageError("inject", err)
	}
	// inject holds the input, its events and the output: let the heap
	// follow what it holds (1.5x) rather than double it (GOGC).
	keepHeapNear(headlessHeap)
	data, err := readInjectInput(ctx, positional[1], stdin)
	if err != nil {
		return commandError("inject", err)
	}
	out, rep, err := inject.Apply(data, defects, inject.Options{Seed: o.seed})
	if err != nil {
		return commandError("inject", err)
	}
	if o.out != "" {
		err = writeOutput(o.out, out, o.force)
	} else {
		_, err = stdout.Write(out)
	}
	if err != nil {
		return commandError("inject", err)
	}
	// The report's notes quote stream bytes (names, arguments): escape
	// what a terminal would obey, as every JSON output does.
	b, _ := json.Marshal(rep)
	b = jsonscan.AppendSafe(nil, b)
	if o.report != "" {
		if err := writeOutput(o.report, append(b, '\n'), o.force); err != nil {
			return commandError("inject", err)
		}
	}
	if o.json {
		fmt.Fprintf(stderr, "%s\n", b)
	} else {
		writeInjectReport(stderr, rep)
	}
	return nil
}

// writeOutput writes data to path through capture's one way of writing
// a file the user named: a failed write leaves nothing half written.
func writeOutput(path string, data []byte, force bool) error {
	f, err := capture.CreateOutput(path, capture.OutputOptions{Force: force})
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// readInjectInput reads INPUT whole: a file, sample:NAME, or - (stdin).
func readInjectInput(ctx context.Context, arg string, stdin *os.File) ([]byte, error) {
	if name, ok := strings.CutPrefix(arg, samplePrefix); ok {
		return openSample(name)
	}
	var r io.Reader
	if arg == "-" {
		if isTerminal(stdin) {
			return nil, errors.New("reading a stream from the terminal: pipe one in, or name a file")
		}
		r = stdin
	} else {
		f, err := os.Open(arg)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	r, done := capture.Interruptible(ctx, r)
	defer done()
	data, err := io.ReadAll(io.LimitReader(r, maxInjectInput+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxInjectInput {
		return nil, fmt.Errorf("%s: over %d MiB, more than inject holds in memory", termtext.Safe(arg), maxInjectInput>>20)
	}
	return data, nil
}

// writeInjectReport writes where each defect acted, a line each.
func writeInjectReport(w io.Writer, rep inject.Report) {
	for _, a := range rep.Defects {
		rule := a.Rule
		if rule == "" {
			rule = "legal, no rule"
		}
		var where []string
		for _, part := range []struct {
			word string
			ords []int
		}{{"changed", a.Changed}, {"added", a.Inserted}, {"dropped", a.Removed}} {
			if len(part.ords) > 0 {
				where = append(where, part.word+" "+ordinals(part.ords))
			}
		}
		fmt.Fprintf(w, "streamtap inject: %s (%s, %s): %s; %s\n", a.Defect, a.Dialect, rule,
			strings.Join(where, ", "), termtext.Safe(a.Note))
	}
}

// ordinals writes event ordinals as "event 3" or "events 3, 4, 7", the
// dropped ones in the input's numbering.
func ordinals(ords []int) string {
	parts := make([]string, len(ords))
	for i, o := range ords {
		parts[i] = strconv.Itoa(o)
	}
	if len(ords) == 1 {
		return "event " + parts[0]
	}
	if len(parts) > 12 {
		parts = append(parts[:12], fmt.Sprintf("… (%d in all)", len(ords)))
	}
	return "events " + strings.Join(parts, ", ")
}

// writeDefectList writes every defect: its summary, and for each dialect
// it applies to the rule that reports it there.
func writeDefectList(stdout io.Writer, asJSON bool) error {
	w := bufio.NewWriter(stdout)
	defects := inject.Defects()
	if asJSON {
		type variantJSON struct {
			Dialect string   `json:"dialect"`
			Rule    string   `json:"rule"`
			Also    []string `json:"also"`
		}
		type defectJSON struct {
			Name     string        `json:"name"`
			Summary  string        `json:"summary"`
			Rewrites bool          `json:"rewrites"`
			Variants []variantJSON `json:"variants"`
		}
		out := make([]defectJSON, len(defects))
		for i, d := range defects {
			out[i] = defectJSON{Name: d.Name, Summary: d.Summary, Rewrites: d.Rewrites}
			for _, v := range d.Variants {
				also := v.Also
				if also == nil {
					also = []string{}
				}
				out[i].Variants = append(out[i].Variants, variantJSON{v.Dialect.String(), v.Rule, also})
			}
		}
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
	} else {
		for _, d := range defects {
			fmt.Fprintf(w, "%s  %s\n", d.Name, d.Summary)
			if d.Rewrites {
				fmt.Fprintln(w, "    (rewrites the line endings of every event from the chosen one: framing, by nature)")
			}
			for _, v := range d.Variants {
				rule := v.Rule
				if rule == "" {
					rule = "— (legal: no rule reports it)"
				}
				if len(v.Also) > 0 {
					rule += " (check also reports " + strings.Join(v.Also, ", ") + ")"
				}
				fmt.Fprintf(w, "    %-18s %s\n", v.Dialect, rule)
			}
		}
		fmt.Fprintf(w, "\n%d defects. Events a defect does not name keep their bytes; 'streamtap check' of the output reports the rule.\n", len(defects))
	}
	if err := w.Flush(); err != nil {
		return exitStatus(statusError)
	}
	return nil
}

// defectValues completes one defect of a comma-separated list (replay
// --inject), after the ones already typed.
func defectValues(cur string) ([]string, string) {
	var names []string
	for _, d := range inject.Defects() {
		names = append(names, d.Name)
	}
	return listValues(cur, names), ""
}

// faultValues completes one fault of a comma-separated list (replay
// --fault): its name, with the colon of those that take arguments.
func faultValues(cur string) ([]string, string) {
	return listValues(cur, []string{"cut:", "reset:", "stall:", "stall-inside:", "drip:", "bytewise", "status:",
		"retry-after:", "content-type:", "gzip", "http10"}), ""
}

// listValues completes the last item of a comma-separated list from
// names, leaving out the items already in it.
func listValues(cur string, names []string) []string {
	done := ""
	if i := strings.LastIndexByte(cur, ','); i >= 0 {
		done, cur = cur[:i+1], cur[i+1:]
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, cur) && !slices.Contains(strings.Split(done, ","), n) {
			out = append(out, done+n)
		}
	}
	return out
}
