//go:build !unix

package cli

import "os"

// removeDetached removes dir, a temporary directory of this process (see
// remove_detached_unix.go; here it waits for the removal).
func removeDetached(dir string) { _ = os.RemoveAll(dir) }

// processGone cannot tell here: every process counts as alive.
func processGone(int) bool { return false }

// ownedByMe cannot tell here: no file counts as this user's.
func ownedByMe(os.FileInfo) bool { return false }
