package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/inject"
	"github.com/streamtap/streamtap/inject/fault"
	"github.com/streamtap/streamtap/proxy"
	"github.com/streamtap/streamtap/termtext"
)

// replayInput reads replay's input whole, for inject: FILE, or the
// sample; and names it.
func replayInput(ctx context.Context, o replayOptions, stdin *os.File) (data []byte, name string, err error) {
	if o.sample != "" {
		data, err = openSample(o.sample)
		return data, "sample " + o.sample, err
	}
	data, err = readInjectInput(ctx, o.file, stdin)
	return data, o.file, err
}

// injectedSource is replay's input with --inject applied, to play in the
// inspector or the timeline.
func injectedSource(ctx context.Context, o replayOptions, stdin *os.File, stderr io.Writer) (*capture.Source, error) {
	data, name, err := replayInput(ctx, o, stdin)
	if err != nil {
		return nil, err
	}
	out, err := injectFor(data, o.inject, o.seed, stderr)
	if err != nil {
		return nil, err
	}
	return capture.FromReader(name+" (injected)", capture.SourceFile, bytes.NewReader(out), false), nil
}

// injectFor applies the defects named in list to data, saying where on
// stderr.
func injectFor(data []byte, list string, seed uint64, stderr io.Writer) ([]byte, error) {
	defects, err := inject.ParseList(list)
	if err != nil {
		return nil, usageError("replay", err)
	}
	out, rep, err := inject.Apply(data, defects, inject.Options{Seed: seed})
	if err != nil {
		return nil, commandError("replay", err)
	}
	writeInjectReport(stderr, rep)
	return out, nil
}

// serveBroken serves the recording of o with the faults and defects its
// flags or its scenario give each request: one stream is prepared for
// each set of defects the plan names, and package fault breaks the
// transport of each request around proxy's Replay.
func serveBroken(ctx context.Context, o replayOptions, stdin *os.File, stderr io.Writer) error {
	plan, err := replayPlan(o)
	if err != nil {
		return err
	}
	// The stream is held in memory only to apply defects to it; a file
	// served as it is is read from disk for each request, as replay does.
	name, head := o.file, []byte(nil)
	var data []byte
	if o.sample != "" || slices.ContainsFunc(plan.Steps(), func(s fault.Step) bool { return len(s.Inject) > 0 }) {
		if data, name, err = replayInput(ctx, o, stdin); err != nil {
			return commandError("replay", err)
		}
		head = data[:min(len(data), dialectPeek)]
	} else if head, err = fileHead(o.file, dialectPeek); err != nil {
		return commandError("replay", err)
	}
	ro := proxy.ReplayOptions{Speed: o.speed, Log: proxy.NewLog(stderr), BodyTimeout: o.clients.body, Limits: o.clients.limits()}
	handlers := map[string]http.Handler{}
	for _, step := range plan.Steps() {
		var rc *proxy.Recorded
		switch {
		case len(step.Inject) > 0:
			fmt.Fprintf(stderr, "streamtap replay: requests with %s:\n", strings.Join(step.Inject, ","))
			var body []byte
			if body, err = injectFor(data, step.Key(), o.seed, stderr); err != nil {
				return err
			}
			rc, err = proxy.ReplayData(name, body)
		case data != nil:
			rc, err = proxy.ReplayData(name, data)
		default:
			rc, err = proxy.LoadReplay(ctx, o.file)
		}
		if err != nil {
			return commandError("replay", err)
		}
		for _, w := range rc.Warnings() {
			fmt.Fprintf(stderr, "streamtap replay: %s\n", w)
		}
		if err := rc.Err(); err != nil {
			return commandError("replay", fmt.Errorf("%s: %w", name, err))
		}
		handlers[step.Key()] = proxy.Replay(rc, ro)
	}
	h := fault.Handler(plan, func(s fault.Step) http.Handler { return handlers[s.Key()] },
		fault.Options{Dialect: inject.Dialect(head), Log: ro.Log.Printf, Done: ctx.Done()})
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	warnExposed(stderr, ln, replayExposes)
	fmt.Fprintf(stderr, "streamtap: replaying %s on http://%s (any path, %sx)\n", termtext.Safe(name), ln.Addr(), trimFloat(o.speed))
	return proxy.ServeReplayHandler(ctx, ln, h, ro)
}

// replayPlan is what each request gets, from --scenario, or from --fault
// and --inject.
func replayPlan(o replayOptions) (fault.Plan, error) {
	if o.scenario != "" {
		text, err := os.ReadFile(o.scenario)
		if err != nil {
			return fault.Plan{}, commandError("replay", err)
		}
		plan, err := fault.ParseScenario(text)
		if err != nil {
			return fault.Plan{}, commandError("replay", fmt.Errorf("%s: %w", termtext.Safe(o.scenario), err))
		}
		return plan, nil
	}
	var faults []fault.Fault
	for _, list := range o.faults {
		fs, err := fault.ParseList(list)
		if err != nil {
			return fault.Plan{}, usageError("replay", err)
		}
		faults = append(faults, fs...)
	}
	var defects []string
	if o.inject != "" {
		if _, err := inject.ParseList(o.inject); err != nil {
			return fault.Plan{}, usageError("replay", err)
		}
		defects = strings.Split(o.inject, ",")
	}
	return fault.PlanOf(faults, defects), nil
}

// dialectPeek is how much of a stream tells its dialect for the error
// bodies of status faults.
const dialectPeek = 256 << 10

// fileHead reads the first n bytes of the file at path.
func fileHead(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}
