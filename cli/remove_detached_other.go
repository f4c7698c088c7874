//go:build !unix

package cli

import (
	"errors"
	"os"
)

// removeDetached removes dir, a temporary directory of this process (see
// remove_detached_unix.go; here it waits for the removal).
func removeDetached(dir string) { _ = os.RemoveAll(dir) }

// canLockFiles says that lockFile and tryLockFile do nothing here.
const canLockFiles = false

// errNoLocks is what tryLockFile says where files cannot be locked.
var errNoLocks = errors.New("file locks are not supported here")

// lockFile cannot lock here: the directory goes without a lock (and is
// never taken for another proxy's, see ownedByMe).
func lockFile(*os.File) error { return nil }

// tryLockFile cannot tell here: every lock counts as held.
func tryLockFile(*os.File) (bool, error) { return false, errNoLocks }

// ownedByMe cannot tell here: no file counts as this user's.
func ownedByMe(os.FileInfo) bool { return false }
