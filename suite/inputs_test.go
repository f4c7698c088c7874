package suite

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// tree makes files (slash-separated paths, relative to a new directory)
// and returns the directory.
func tree(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("data: {}\n\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func paths(dir string, ins []Input) []string {
	var out []string
	for _, in := range ins {
		rel, err := filepath.Rel(dir, in.Path)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = in.Path
		}
		s := filepath.ToSlash(rel)
		if in.Err != nil {
			s += " !"
		}
		out = append(out, s)
	}
	return out
}

// TestExpand: a directory is its recordings, recursively and in lexical
// order (the proxy's --record DIR output, nested suites, archives),
// without hidden entries or files of other kinds; files named on the
// command line are read whatever their name, each path once.
func TestExpand(t *testing.T) {
	t.Parallel()
	dir := tree(t,
		"recordings/20261121T200105-0002-POST-v1-responses.sse",
		"recordings/20261121T200105-0001-POST-v1-responses.sse",
		"recordings/nested/deeper/a.jsonl",
		"recordings/nested/b.har",
		"recordings/nested/c.yaml",
		"recordings/nested/d.chunks.txt",
		"recordings/nested/e.EVENTSTREAM",
		"recordings/README.md",
		"recordings/notes.txt",
		"recordings/.streamtap.yaml",
		"recordings/.git/objects/x.json",
		"recordings/.hidden.sse",
		"other/named.bin",
		"empty/README.md",
	)
	rec := filepath.Join(dir, "recordings")
	got := paths(dir, Expand([]string{rec, filepath.Join(dir, "other/named.bin"), filepath.Join(rec, "nested/b.har"), "-", filepath.Join(dir, "nope.sse"), filepath.Join(dir, "empty")}, ExpandOptions{}))
	want := []string{
		"recordings/20261121T200105-0001-POST-v1-responses.sse",
		"recordings/20261121T200105-0002-POST-v1-responses.sse",
		"recordings/nested/b.har",
		"recordings/nested/c.yaml",
		"recordings/nested/d.chunks.txt",
		"recordings/nested/deeper/a.jsonl",
		"recordings/nested/e.EVENTSTREAM",
		"other/named.bin",
		"-",
		"nope.sse",
		"empty !",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Expand =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ins := Expand([]string{filepath.Join(dir, "empty")}, ExpandOptions{})
	if len(ins) != 1 || !errors.Is(ins[0].Err, errNoInputs) || !strings.Contains(ins[0].Err.Error(), "*.sse") {
		t.Errorf("an empty directory: %+v; want one input saying it holds no recordings", ins)
	}
}

// TestExpandUnreadable: a directory that cannot be read is an input with
// its error, and the walk goes on.
func TestExpandUnreadable(t *testing.T) {
	t.Parallel()
	if os.Getuid() == 0 {
		t.Skip("root reads every directory")
	}
	dir := tree(t, "a/x.sse", "b/y.sse")
	if err := os.Chmod(filepath.Join(dir, "a"), 0o000); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "a"), 0o755) })
	got := paths(dir, Expand([]string{dir}, ExpandOptions{}))
	if !slices.Equal(got, []string{"a !", "b/y.sse"}) {
		t.Errorf("Expand = %v", got)
	}
}

// TestMany: one file or stdin reads as it always has; several inputs or
// a directory name each input.
func TestMany(t *testing.T) {
	t.Parallel()
	dir := tree(t, "a.sse")
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"-"}, false},
		{[]string{filepath.Join(dir, "a.sse")}, false},
		{[]string{filepath.Join(dir, "missing.sse")}, false},
		{[]string{dir}, true},
		{[]string{filepath.Join(dir, "a.sse"), filepath.Join(dir, "a.sse")}, true},
	} {
		if got := Many(tt.args); got != tt.want {
			t.Errorf("Many(%q) = %v; want %v", tt.args, got, tt.want)
		}
	}
}

// TestLocateAcrossChunks: lines are counted through reads of many
// chunks, and an event's length runs to the next event.
func TestLocateAcrossChunks(t *testing.T) {
	t.Parallel()
	var data bytes.Buffer
	pad := strings.Repeat("x", 100<<10) // one event of 100 KiB: its successors start past the first chunk
	data.WriteString(": " + pad + "\n\n")
	for range 3 {
		data.WriteString("data: {\"a\":1}\n\n")
	}
	pos := new(Positions)
	s := model.Assemble(data.Bytes(), capture.FormatSSE, model.Options{Observer: pos, KeepEvents: true})
	if s.Len() != 4 {
		t.Fatalf("%d events; want 4", s.Len())
	}
	places, err := pos.Locate(bytes.NewReader(data.Bytes()), s.Bytes(), []int{3, 1, 0, 7, -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(places) != 3 {
		t.Fatalf("places %v; want events 0, 1 and 3", places)
	}
	for _, ord := range []int{0, 1, 3} {
		ev := s.Events.At(ord)
		want := Place{Offset: ev.Offset, Len: int64(ev.Len), Line: 1 + bytes.Count(data.Bytes()[:ev.Offset], []byte("\n"))}
		if places[ord] != want {
			t.Errorf("event %d: %+v; want %+v", ord, places[ord], want)
		}
	}
	if _, err := pos.Locate(bytes.NewReader(data.Bytes()[:10]), s.Bytes(), []int{3}); err == nil {
		t.Error("a short input located event 3")
	}
}
