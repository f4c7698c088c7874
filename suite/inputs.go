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
// fixtures, `curl -i` output and AWS event streams. Other files (a
// README, a request body saved as .txt) are left alone; a file named on
// the command line is read whatever its name.
var Extensions = []string{".sse", ".jsonl", ".ndjson", ".json", ".har", ".yaml", ".yml", ".chunks.txt", ".http", ".eventstream", ".datastream"}

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
	// be walked, one that holds no input); nil for a path to open.
	Err error
	// Found says the walk of a directory found it.
	Found bool
}

// Expand returns the inputs that args name, in order: a file (or "-") as
// it is, each directory as the files under it whose names end in one of
// Extensions, recursively and in lexical order, skipping hidden files and
// directories (.git, the config file). A path named twice is read once. A
// path that does not exist is returned as it is: opening it says so.
func Expand(args []string) []Input {
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
		n := len(out)
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				add(Input{Path: path, Err: err})
				if d != nil && d.IsDir() && path != arg {
					return fs.SkipDir
				}
				return nil
			}
			if path != arg && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() || !IsInputName(d.Name()) {
				return nil
			}
			// A link to a regular file is read; to a directory, not followed.
			if d.Type()&fs.ModeSymlink != 0 && !isRegularFile(path) || d.Type()&fs.ModeSymlink == 0 && !d.Type().IsRegular() {
				return nil
			}
			add(Input{Path: path, Found: true})
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

// isRegularFile says whether path leads to a regular file (through links).
func isRegularFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
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
