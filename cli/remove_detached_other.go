//go:build !unix

package cli

import "os"

// removeDetached removes dir, a temporary directory of this process (see
// remove_detached_unix.go; here it waits for the removal).
func removeDetached(dir string) { _ = os.RemoveAll(dir) }
