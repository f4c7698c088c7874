package suite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Extensions are the names of the files a directory's walk takes as
// inputs: what the proxy's --record writes (.sse; .eventstream, .ndjson
// and .datastream for Bedrock's, Ollama's and the AI SDK v4's bodies),
// --save-har (.har),
// JSON lines and whole responses, VCR cassettes, vercel/ai's chunk
// fixtures, `curl -i` output, AWS event streams and Go httprr traces
// (plain or gzipped). Other files (a README, a request body saved as .txt)
// are left alone; a file named on the command line is read whatever its
// name.
var Extensions = []string{".sse", ".jsonl", ".ndjson", ".json", ".har", ".yaml", ".yml", ".chunks.txt", ".http", ".eventstream", ".httprr", ".httprr.gz", ".datastream"}

// genericExtensions are the names of files that hold many things besides
// streams (a request body, a tool's config): found by a walk, they are
// skipped when they hold no LLM stream (IsGenericName).
var genericExtensions = []string{".json", ".yaml", ".yml"}

// IsGenericName says whether a file of this name may hold something other
// than a stream, so that a directory's walk skips it when it does (a
// .json request body beside its recording) instead of failing the run.
func IsGenericName(name string) bool {
	for _, ext := range genericExtensions {
		if strings.HasSuffix(strings.ToLower(name), ext) {
			return true
		}
	}
	return false
}

// Input is one input of a run.
type Input struct {
	// Path is the file as named on the command line or found under a
	// directory, "-" for standard input.
	Path string
	// Err is why it cannot be read as found (a directory that could not
	// be walked, one that holds no input, a link to nothing, a named pipe
	// or a device named like a recording); nil for a path to open.
	Err error
	// Skipped says why the walk found it and leaves it unread: a link to
	// a file outside the directory walked (ExpandOptions.FollowLinks reads
	// it); "" for an input to read.
	Skipped string
	// Found says the walk of a directory found it.
	Found bool
}

// ExpandOptions say how Expand walks a directory.
type ExpandOptions struct {
	// FollowLinks reads the files that links under a directory lead to
	// outside it; without it they are skipped, so that a link a pull
	// request adds (to ~/.aws/credentials) is not read into a CI log.
	FollowLinks bool
}

// Expand returns the inputs that args name, in order: a file (or "-") as
// it is, each directory as the files under it whose names end in one of
// Extensions, recursively and in lexical order, skipping hidden files and
// directories (.git, the config file). A path named twice is read once. A
// path that does not exist is returned as it is: opening it says so.
//
// Under a directory, a link to a regular file inside it is read; a link
// to a file outside it is skipped (unless opts.FollowLinks), a link to a
// directory is not followed, and a link to nothing, a named pipe, a
// socket or a device named like a recording is an input that cannot be
// read, with its error: none of them is passed over silently. A file
// named on the command line is read whatever it is.
func Expand(args []string, opts ExpandOptions) []Input {
	var out []Input
	seen := map[string]bool{}
	add := func(in Input) {
		key := in.Path
		if in.Path != "-" {
			key = filepath.Clean(in.Path)
		}
		if in.Err == nil && seen[key] {
			return
		}
		seen[key] = true
		out = append(out, in)
	}
	for _, arg := range args {
		st, err := os.Stat(arg)
		if arg == "-" || err != nil || !st.IsDir() {
			add(Input{Path: arg})
			continue
		}
		root, err := filepath.EvalSymlinks(arg) // "" when unknown: then every link leads out
		if err == nil {
			root = absPath(root)
		}
		n := len(out)
		top := arg
		if lst, err := os.Lstat(arg); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
			top = arg + string(filepath.Separator) // a link to a directory named: walk what it leads to
		}
		err = filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				add(Input{Path: path, Err: err})
				if d != nil && d.IsDir() && path != top {
					return fs.SkipDir
				}
				return nil
			}
			if path != top && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() || !IsInputName(d.Name()) {
				return nil
			}
			in := Input{Path: path, Found: true}
			switch t := d.Type(); {
			case t.IsRegular():
			case t&fs.ModeSymlink != 0:
				in.Skipped, in.Err = linkTarget(path, root, arg, opts)
			default:
				in.Err = fmt.Errorf("%s, not a file: not read", modeName(t))
			}
			add(in)
			return nil
		})
		if err != nil {
			add(Input{Path: arg, Err: err})
		}
		if len(out) == n {
			add(Input{Path: arg, Err: errNoInputs})
		}
	}
	return out
}

// linkTarget says whether the walk of dir (root, its real absolute path,
// "" when unknown) reads the link at path: a reason to skip it when it leads out of root
// or to a directory, an error when it leads to nothing or to what is not
// a file, neither to read it.
func linkTarget(path, root, dir string, opts ExpandOptions) (skip string, err error) {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", errors.New("a link to nothing (" + linkText(path) + "): not read")
	}
	st, err := os.Stat(target)
	switch {
	case err != nil:
		return "", err
	case st.IsDir():
		return "a link to a directory, not followed", nil
	case !st.Mode().IsRegular():
		return "", fmt.Errorf("a link to %s, not a file: not read", modeName(st.Mode().Type()))
	}
	if opts.FollowLinks {
		return "", nil
	}
	if root == "" || !within(root, absPath(target)) {
		return "a link to a file outside " + dir + ", not followed (--follow-links reads it)", nil
	}
	return "", nil
}

// absPath is path made absolute, or path when it cannot be (then it is
// under no root).
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// linkText is what a link says, for an error; "?" when unreadable.
func linkText(path string) string {
	t, err := os.Readlink(path)
	if err != nil {
		return "?"
	}
	return "to " + t
}

// within says whether path (absolute, clean) is root or under it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// modeName names a file type that is not a regular file.
func modeName(t fs.FileMode) string {
	switch {
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeDevice != 0:
		return "a device"
	case t.IsDir():
		return "a directory"
	}
	return "not a regular file"
}

var errNoInputs = errors.New("no recordings in it (files named *" + strings.Join(Extensions, ", *") + ")")

// IsInputName says whether a directory's walk takes a file of this name.
func IsInputName(name string) bool {
	lower := strings.ToLower(name)
	return slices.ContainsFunc(Extensions, func(ext string) bool {
		return strings.HasSuffix(lower, ext) && len(lower) > len(ext)
	})
}

// Many says whether args name more than one input or a directory: the
// reports then name each input, where one input alone reads exactly as it
// always has.
func Many(args []string) bool {
	if len(args) > 1 {
		return true
	}
	if len(args) == 1 && args[0] != "-" {
		st, err := os.Stat(args[0])
		return err == nil && st.IsDir()
	}
	return false
}

// InputError wraps why an input cannot be read with its path, once.
func InputError(path string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}
