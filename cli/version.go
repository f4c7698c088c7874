package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// versionAbout is the command's help under its usage line; the flags are
// listed from its flag set.
const versionAbout = `Prints the module version, the VCS revision (-dirty when the tree was
modified), the commit time and the Go version this binary was built with.
`

// versionCommand prints what this binary was built from.
func versionCommand() command {
	return command{name: "version", summary: "the version, VCS revision and Go version of this binary", about: versionAbout,
		flags: noFlags("version"), run: runVersion}
}

// runVersion prints versionString for this binary.
func runVersion(_ context.Context, args []string, _ *os.File, stdout, _ io.Writer) error {
	positional, err := parseInterspersed(noFlags("version")(), args)
	if err != nil {
		return usageError("version", err)
	}
	if len(positional) > 0 {
		return usageError("version", fmt.Errorf("version takes no arguments (got %s)", strings.Join(positional, " ")))
	}
	fmt.Fprintln(stdout, versionString(debug.ReadBuildInfo()))
	return nil
}

// versionString is one line naming what this binary was built from: the
// module version ("(devel)" for a build without one), the VCS revision
// ("-dirty" when the tree had changes), the commit time and the Go
// version. Parts the build did not record are left out, so a binary built
// without VCS information (go build -buildvcs=false, a tarball) still
// prints a clean line; ok is false when there is no build information at
// all.
func versionString(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "streamtap (unknown version: built without module information)"
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var revision, at string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	var parts []string
	if revision != "" {
		if len(revision) > 12 {
			revision = revision[:12]
		}
		if dirty {
			revision += "-dirty"
		}
		parts = append(parts, "rev "+revision)
	} else {
		parts = append(parts, "no VCS revision")
	}
	if at != "" {
		parts = append(parts, at)
	}
	if bi.GoVersion != "" {
		parts = append(parts, bi.GoVersion)
	}
	return "streamtap " + version + " (" + strings.Join(parts, ", ") + ")"
}

// moduleVersion is the version a HAR names its creator with.
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" {
		return "(devel)"
	}
	return bi.Main.Version
}
