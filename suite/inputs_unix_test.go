//go:build unix

package suite

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestExpandLinksAndSpecialFiles: under a directory, a link to a file
// inside it is read; a link out of it is skipped with its reason (read
// with FollowLinks); a link to a directory is skipped; a link to nothing,
// a named pipe and a link to one are inputs that cannot be read: none of
// them is passed over silently (they were, and the link out was read).
func TestExpandLinksAndSpecialFiles(t *testing.T) {
	t.Parallel()
	outside := tree(t, "secret.sse", "dir/x.sse")
	dir := tree(t, "a.sse")
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	link("a.sse", "inside.sse")
	link(filepath.Join(outside, "secret.sse"), "out.sse")
	link(filepath.Join(outside, "dir"), "dir.sse")
	link(filepath.Join(dir, "nowhere"), "dangling.sse")
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.sse"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link("pipe.sse", "to-pipe.sse")
	describe := func(ins []Input) []string {
		var out []string
		for _, in := range ins {
			s := filepath.Base(in.Path)
			switch {
			case in.Err != nil:
				s += " ! " + in.Err.Error()
			case in.Skipped != "":
				s += " skipped: " + in.Skipped
			}
			out = append(out, s)
		}
		return out
	}
	got := describe(Expand([]string{dir}, ExpandOptions{}))
	want := []string{
		"a.sse",
		"dangling.sse ! a link to nothing (to " + filepath.Join(dir, "nowhere") + "): not read",
		"dir.sse skipped: a link to a directory, not followed",
		"inside.sse",
		"out.sse skipped: a link to a file outside " + dir + ", not followed (--follow-links reads it)",
		"pipe.sse ! a named pipe, not a file: not read",
		"to-pipe.sse ! a link to a named pipe, not a file: not read",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Expand =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got = describe(Expand([]string{dir}, ExpandOptions{FollowLinks: true}))
	if !slices.Contains(got, "out.sse") {
		t.Errorf("with FollowLinks the link out is not read: %q", got)
	}
	// Through a link to the directory itself, a link inside stays inside.
	via := filepath.Join(t.TempDir(), "via")
	if err := os.Symlink(dir, via); err != nil {
		t.Fatal(err)
	}
	if got := describe(Expand([]string{via}, ExpandOptions{})); !slices.Contains(got, "inside.sse") {
		t.Errorf("through a link to the directory: %q", got)
	}
}
