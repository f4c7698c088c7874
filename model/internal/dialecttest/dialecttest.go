// Package dialecttest holds what the tests of the dialects' packages
// (model/dialect/<d>) share that works on a session or a report: the
// invariants the core keeps for any stream (events tile the input, a
// call's arguments as of any event are consistent, items are in output
// order, the batched path equals Add), the shapes each event got, and the
// runner of the rules' trigger and near-miss cases. It uses only the
// exported API of model and model/checks, so the core's external tests
// (package model_test) use it too; what they check of the core's
// unexported state comes through its export_test.go (model.HoldsBatch, a
// Held). The core's internal tests cannot import it (it imports the
// core). What needs no session is in model/internal/modeltest. Only tests
// import it.
package dialecttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime/debug"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// assembleDeadline bounds AssembleWithin: a stream that takes longer hangs.
const assembleDeadline = 20 * time.Second

// maxPathPad is the model's bound on the nulls one render of Gemini's
// partialArgs may pad an array with (pathargs.go).
const maxPathPad = 1 << 16

// AssembleWithin assembles data on another goroutine and fails the test
// if that panics or does not finish within a deadline.
func AssembleWithin(t *testing.T, data []byte, opts model.Options) *model.Session {
	t.Helper()
	type result struct {
		s     *model.Session
		panic any
		stack []byte
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{panic: p, stack: debug.Stack()}
			}
		}()
		done <- result{s: model.Assemble(data, capture.FormatAuto, opts)}
	}()
	select {
	case r := <-done:
		if r.panic != nil {
			t.Fatalf("Assemble(%q) panicked: %v\n%s", data, r.panic, r.stack)
		}
		return r.s
	case <-time.After(assembleDeadline):
		t.Fatalf("Assemble(%q) did not finish within %v", data, assembleDeadline)
	}
	return nil
}

// CheckTiling asserts that the session's events tile data: contiguous, in
// order, every byte in exactly one event, and each readable back (the
// session needs Options.Raw and KeepEvents).
func CheckTiling(t *testing.T, s *model.Session, data []byte) {
	t.Helper()
	if s.Events.Len() != s.Len() {
		t.Fatalf("%d events kept; Len() = %d", s.Events.Len(), s.Len())
	}
	var at int64
	for i := range s.Events.All() {
		ev := s.Events.At(i)
		if ev.Offset != at {
			t.Fatalf("event %d starts at %d; previous ended at %d", i, ev.Offset, at)
		}
		if ev.Len < 0 {
			t.Fatalf("event %d has length %d", i, ev.Len)
		}
		at = ev.Offset + int64(ev.Len)
		raw, err := s.Raw(ev)
		if err != nil || !bytes.Equal(raw, data[ev.Offset:at]) {
			t.Fatalf("Raw(event %d) = %q, %v; want %q", i, raw, err, data[ev.Offset:at])
		}
	}
	if at != int64(len(data)) {
		t.Fatalf("events cover %d of %d bytes", at, len(data))
	}
	if s.Bytes() != int64(len(data)) {
		t.Fatalf("Bytes() = %d; want %d", s.Bytes(), len(data))
	}
}

// CheckArgsAsOf asserts that every call's arguments as of each event are
// a consistent view: growing by appending (or, for Gemini partialArgs,
// valid JSON at every step, and not much larger than the input they came
// from) and ending at what FinalArgs and Args report.
func CheckArgsAsOf(t *testing.T, s *model.Session, inputLen int) {
	t.Helper()
	last := s.Len() - 1
	// Rendering may escape each input byte (\ufffd) and pads arrays with at
	// most maxPathPad nulls.
	maxRender := 8*inputLen + 6*maxPathPad
	for _, it := range s.Calls() {
		streamed := it.PathArgs() != nil
		var prev []byte
		for ord := -1; ord <= last; ord++ {
			cur := it.ArgsAsOf(ord)
			if streamed {
				if !json.Valid(cur) {
					t.Fatalf("call %d: Gemini ArgsAsOf(%d) = %q is not JSON", it.Index, ord, cur)
				}
				if len(cur) > maxRender {
					t.Fatalf("call %d: Gemini ArgsAsOf(%d) is %d bytes from %d bytes of input", it.Index, ord, len(cur), inputLen)
				}
				continue
			}
			if !bytes.HasPrefix(cur, prev) {
				t.Fatalf("call %d: ArgsAsOf(%d) = %q does not extend ArgsAsOf(%d) = %q", it.Index, ord, cur, ord-1, prev)
			}
			prev = cur
		}
		final := it.ArgsAsOf(last)
		if streamed {
			if got := it.FinalArgs(); string(final) != got {
				t.Fatalf("call %d: Gemini ArgsAsOf(last) = %q; FinalArgs = %q", it.Index, final, got)
			}
		} else if !bytes.Equal(final, it.Args.Bytes()) {
			t.Fatalf("call %d: ArgsAsOf(last) = %q; Args = %q", it.Index, final, it.Args.Bytes())
		}
	}
}

// CheckSourcesAsOf holds the as-of queries to the whole-stream ones: as
// of the last event they answer what FinalArgs, SourcesDisagree and
// TextSourcesDisagree answer, and no statement as of an event was made
// after it.
func CheckSourcesAsOf(t *testing.T, s *model.Session) {
	t.Helper()
	last := s.Len() - 1
	for _, it := range s.Items {
		if got, want := it.FinalArgsAsOf(last), it.FinalArgs(); got != want {
			t.Fatalf("item %d: FinalArgsAsOf(last) = %q; FinalArgs() = %q", it.Index, got, want)
		}
		_, want := it.SourcesDisagree()
		if _, got := it.SourcesAsOf(-1); got != want {
			t.Fatalf("item %d: SourcesAsOf(-1) disagree = %v; SourcesDisagree() = %v", it.Index, got, want)
		}
		_, want = it.TextSourcesDisagree()
		if _, got := it.TextSourcesAsOf(-1); got != want {
			t.Fatalf("item %d: TextSourcesAsOf(-1) disagree = %v; TextSourcesDisagree() = %v", it.Index, got, want)
		}
		for _, ord := range []int{it.First, (it.First + it.Last) / 2, it.Last} {
			stmts, _ := it.SourcesAsOf(ord)
			texts, _ := it.TextSourcesAsOf(ord)
			for _, st := range append(stmts, texts...) {
				if st.Ordinal > ord {
					t.Fatalf("item %d: as of %d, %s was stated at event %d", it.Index, ord, st.Name, st.Ordinal)
				}
			}
			it.FinalArgsAsOf(ord)
			it.FinalTextAsOf(ord)
		}
	}
}

// SameReportJSON holds Session.WriteReportJSON, which streams, to the
// report it stands for.
func SameReportJSON(t *testing.T, s *model.Session, rep model.CallsReport) {
	t.Helper()
	var want, got bytes.Buffer
	if err := rep.WriteJSON(&want); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteReportJSON(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("WriteReportJSON wrote\n%s\nReport().WriteJSON wrote\n%s", got.Bytes(), want.Bytes())
	}
}

// Shaped is one event of an assembled stream with the shapes it got when
// it was added (as the headless commands see it), with and without its
// data.
type Shaped struct {
	Ord            int
	Ev             model.Event
	WithData, Bare model.Shape
	Data           []byte
}

// ShapeStream assembles data and shapes each event as it is added.
func ShapeStream(data []byte, format capture.Format) (*model.Session, []Shaped) {
	s := model.NewSession(model.Options{KeepEvents: true})
	var out []Shaped
	fr := capture.NewFramer(format)
	emit := func(f *capture.Frame) {
		ev := s.Add(f)
		ord := s.Len() - 1
		d := append([]byte(nil), f.Data...)
		out = append(out, Shaped{Ord: ord, Ev: *ev, WithData: s.Shape(ev, ord, f.Data), Bare: s.Shape(ev, ord, nil), Data: d})
	}
	fr.Feed(data, capture.NoTime, emit)
	fr.Finish(capture.NoTime, emit)
	s.End(nil)
	return s, out
}

// Explained reports whether shape sh has an explanation.
func Explained(sh model.Shape) bool {
	_, ok := model.Explain(sh)
	return ok
}

// Dialect is the registered dialect named name; it fails the test when
// there is none (the test package must import model/dialects).
func Dialect(t testing.TB, name string) model.Dialect {
	t.Helper()
	d, ok := model.Lookup(name)
	if !ok {
		t.Fatalf("no dialect %q registered", name)
	}
	return d
}

// AssembleChunked frames and assembles data fed in reads of
// modeltest.BenchChunk bytes, as capture.Source.Read feeds a file.
func AssembleChunked(data []byte) *model.Session {
	s := model.NewSession(model.Options{})
	fr := capture.NewFramer(capture.FormatAuto)
	emit := func(f *capture.Frame) { s.Add(f) }
	for p := data; len(p) > 0; {
		n := min(modeltest.BenchChunk, len(p))
		fr.Feed(p[:n], capture.NoTime, emit)
		p = p[n:]
	}
	fr.Finish(capture.NoTime, emit)
	s.End(nil)
	return s
}

// AssembleInBatches assembles data as the headless commands' reader and
// session do, on one goroutine: reads of modeltest.BenchChunk bytes,
// every frame validated by a Batch, each Batch added after its read.
func AssembleInBatches(data []byte) *model.Session {
	s := model.NewSession(model.Options{})
	fr := capture.NewFramer(capture.FormatAuto)
	var bt model.Batch
	emit := func(f *capture.Frame) {
		bt.Add(f, false)
		bt.ValidateLast()
	}
	flush := func() {
		_ = s.AddBatch(&bt, nil)
		bt.Reset()
	}
	for p := data; len(p) > 0; {
		n := min(modeltest.BenchChunk, len(p))
		fr.Feed(p[:n], capture.NoTime, emit)
		flush()
		p = p[n:]
	}
	fr.Finish(capture.NoTime, emit)
	flush()
	s.End(nil)
	return s
}

// CheckBenchStream makes sure a generated stream assembles to the calls
// it was built from, so a benchmark never times a misparse.
func CheckBenchStream(b *testing.B, data []byte, want []modeltest.Call) {
	b.Helper()
	rep := AssembleChunked(data).Report()
	if len(rep.Calls) != len(want) {
		b.Fatalf("assembled %d calls; want %d", len(rep.Calls), len(want))
	}
	for i, w := range want {
		g := rep.Calls[i]
		if g.Name != w.Name || g.Arguments != w.Args || g.ArgumentsJSON != "complete" || g.Sources != nil {
			b.Fatalf("call %d = %s %q (%s, sources %v); want %s %q", i, g.Name, g.Arguments, g.ArgumentsJSON, g.Sources, w.Name, w.Args)
		}
	}
	if rep.Outcome.State != "completed" {
		b.Fatalf("outcome = %+v; want completed", rep.Outcome)
	}
}

// Held reports whether a session still holds bytes of the batch it was
// last handed: it must not once AddBatch returns, for the batch's memory is
// reused. Only the core's own tests can tell (model.HoldsBatch, in its
// export_test.go); nil checks nothing.
type Held func(*model.Session) bool

// AssembleBatched assembles data as a pipelined reader does: reads of
// chunk bytes, one Batch per read, the frames picked by validate validated
// by the batch and the rest by the session, and Batch memory reused. Each
// frame the session adds is checked against the one the framer emitted,
// and the session after each AddBatch against held.
func AssembleBatched(t *testing.T, data []byte, opts model.Options, chunk int, validate func(i int) bool, held Held) *model.Session {
	t.Helper()
	s := model.NewSession(opts)
	fr := capture.NewFramer(capture.FormatAuto)
	var spare, b *model.Batch = &model.Batch{KeepRaw: true}, &model.Batch{KeepRaw: true}
	var framed []capture.Frame // detached copies, to compare with what AddBatch hands on
	n := 0
	emit := func(f *capture.Frame) {
		b.Add(f, len(f.Raw) > 64) // borrowing is safe here: the batch is added before the next read
		if validate(n) {
			b.ValidateLast()
		}
		n++
		g := f.Detach()
		g.Raw = bytes.Clone(f.Raw)
		framed = append(framed, g)
	}
	flush := func() {
		err := s.AddBatch(b, func(ev *model.Event, ord int, f *capture.Frame) error {
			want := &framed[ord]
			if !bytes.Equal(f.Raw, want.Raw) || !bytes.Equal(f.Data, want.Data) || !bytes.Equal(f.Event, want.Event) ||
				f.Start != want.Start || f.End != want.End || f.Kind != want.Kind || f.Flags != want.Flags {
				t.Fatalf("frame %d reached the session as %+v; framed as %+v", ord, f, want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if held != nil && held(s) {
			t.Fatal("the session holds a batch's bytes after AddBatch")
		}
		b.Reset()
		b, spare = spare, b
	}
	for p := data; len(p) > 0; {
		k := min(chunk, len(p))
		fr.Feed(p[:k], capture.NoTime, emit)
		p = p[k:]
		flush()
	}
	fr.Finish(capture.NoTime, emit)
	flush()
	s.End(nil)
	return s
}

// SameSession fails when two sessions of the same stream differ in any
// event or in their report.
func SameSession(t *testing.T, got, want *model.Session) {
	t.Helper()
	if got.Len() != want.Len() || got.Events.Len() != want.Events.Len() {
		t.Fatalf("%d events (%d kept); want %d (%d)", got.Len(), got.Events.Len(), want.Len(), want.Events.Len())
	}
	for i := range want.Events.All() {
		if g, w := got.Events.At(i), want.Events.At(i); !reflect.DeepEqual(g, w) {
			t.Fatalf("event %d = %+v; want %+v", i, g, w)
		}
	}
	var g, w bytes.Buffer
	if err := got.WriteReportJSON(&g); err != nil {
		t.Fatal(err)
	}
	if err := want.WriteReportJSON(&w); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(g.Bytes(), w.Bytes()) {
		t.Fatalf("report:\n%s\nwant:\n%s", g.Bytes(), w.Bytes())
	}
	if !reflect.DeepEqual(got.Errors, want.Errors) || !reflect.DeepEqual(got.Heads, want.Heads) {
		t.Fatalf("errors %+v, heads %+v; want %+v, %+v", got.Errors, got.Heads, want.Errors, want.Heads)
	}
}

// BatchMatchesAdd holds the batched path (Batch, AddBatch) to Add on
// data, for every way a reader may split validation with the session and
// reads of several sizes (held as in AssembleBatched).
func BatchMatchesAdd(t *testing.T, data []byte, held Held) {
	t.Helper()
	shares := []struct {
		name     string
		validate func(int) bool
	}{
		{"batch validates all", func(int) bool { return true }},
		{"session validates all", func(int) bool { return false }},
		{"every other", func(i int) bool { return i%2 == 0 }},
	}
	opts := model.Options{KeepEvents: true}
	want := model.Assemble(data, capture.FormatAuto, opts)
	for _, share := range shares {
		for _, chunk := range []int{7, 4096, len(data) + 1} {
			got := AssembleBatched(t, data, opts, chunk, share.validate, held)
			t.Run(fmt.Sprintf("%s/reads of %d", share.name, chunk), func(t *testing.T) { SameSession(t, got, want) })
		}
	}
}
