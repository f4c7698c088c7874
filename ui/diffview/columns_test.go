package diffview

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/streamdiff"

	tea "charm.land/bubbletea/v2"
)

// timedRecording is sample name as a live read records it: each line
// with the time it arrived, 10 ms apart.
func timedRecording(t *testing.T, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	rec := capture.NewRecorder(&buf, &capture.Exchange{Source: "stdin", HeadAt: capture.NoTime}, capture.RecordOptions{Format: capture.FormatAuto})
	lines := bytes.SplitAfter(sampleBytes(t, name), []byte("\n"))
	for i, l := range lines {
		if err := rec.Write(l, time.Duration(i+1)*10*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(time.Duration(len(lines)+1) * 10 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDiffSameColumns: a timed A (read live) beside an untimed B (a file)
// gets the same columns: no time or gap column on A's side only, so that
// each row lines up with its counterpart.
func TestDiffSameColumns(t *testing.T) {
	sa, recA := diffSideOfBytes(timedRecording(t, diffOfficial))
	m := NewDiff(sa, recA, Options{Source: "stdin", Checks: StrictChecks}, Config{B: "sample b", Compare: streamdiff.DefaultOptions()})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	_, cmd := m.Update(sideRead(t, diffGateway))
	drain(t, m, cmd)
	if !m.dv.side[0].tl.Timed() || m.dv.side[1].tl.Timed() {
		t.Fatal("A should be timed and B not")
	}
	v := plainView(m)
	var headers []string
	for _, l := range strings.Split(v, "\n") {
		for _, part := range strings.Split(l, "│") { // side by side from 110 columns
			if strings.Contains(part, " type ") && strings.Contains(part, "summary") {
				headers = append(headers, strings.TrimSpace(part))
			}
		}
	}
	if len(headers) != 2 {
		t.Fatalf("want both sides' column headers:\n%s", v)
	}
	if headers[0] != headers[1] || strings.Contains(headers[0], "gap") {
		t.Errorf("the sides' columns differ:\nA %s\nB %s", headers[0], headers[1])
	}
}
