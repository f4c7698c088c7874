package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The proxy's sessions list keeps ended sessions' bytes in a private
// temporary directory (proxy.Options.Spill), removed at exit. A proxy
// killed with SIGKILL (or a crash) cannot remove it: the next proxy does,
// since it holds streams' bytes (prompts, answers) nobody will read.
//
// Which directories are left behind is told by a lock, not a pid: the
// owner holds an exclusive flock(2) on spillLock inside its directory for
// as long as it runs, and the kernel lets it go when the process ends, in
// whatever way. A pid in a name meant nothing to a proxy in another PID
// namespace (a container beside the host sharing /tmp): it took a running
// proxy's directory for a dead one's and deleted it, after which that
// proxy's ended sessions could not be opened.

// spillPrefix names the proxy's directories of spilled sessions: the
// prefix, the pid of the proxy that made it (for people: nothing trusts
// it), and a random part.
const spillPrefix = "streamtap-sessions-pid"

// spillMaking names a directory being made: it becomes a spillPrefix one
// (a rename) only once its lock is held, so that no other proxy ever sees
// one of ours unlocked.
const spillMaking = "streamtap-making-"

// spillLock is the lock file inside a spill directory.
const spillLock = ".lock"

// makeSpillDir makes this process's private directory of spilled
// sessions, after removing those that proxies no longer running left
// behind; it returns the directory and its lock file, to keep open until
// the process exits (closing it lets another proxy remove the directory).
// Where files cannot be locked (not unix), nothing is removed, and the
// directory has no lock (the lock is nil).
func makeSpillDir() (string, *os.File, error) {
	tmp := os.TempDir()
	if !canLockFiles {
		dir, err := os.MkdirTemp(tmp, spillPrefix+strconv.Itoa(os.Getpid())+"-")
		return dir, nil, err
	}
	removeOrphanedSpills(tmp)
	making, err := os.MkdirTemp(tmp, spillMaking)
	if err != nil {
		return "", nil, err
	}
	lock, err := os.OpenFile(filepath.Join(making, spillLock), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		err = lockFile(lock)
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		_ = os.RemoveAll(making)
		return "", nil, fmt.Errorf("lock %s: %w", making, err)
	}
	dir := filepath.Join(tmp, spillPrefix+strconv.Itoa(os.Getpid())+"-"+strings.TrimPrefix(filepath.Base(making), spillMaking))
	if err := os.Rename(making, dir); err != nil {
		lock.Close()
		_ = os.RemoveAll(making)
		return "", nil, err
	}
	return dir, lock, nil
}

// removeOrphanedSpills removes the spill directories under tmp that
// belong to this user and whose lock nobody holds: their proxy is gone.
// A directory whose lock is held, that has no lock (made by an older
// streamtap, which named its pid and nothing else), or that this platform
// cannot judge, is left alone.
func removeOrphanedSpills(tmp string) {
	matches, _ := filepath.Glob(filepath.Join(tmp, spillPrefix+"*"))
	for _, dir := range matches {
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || !ownedByMe(fi) {
			continue
		}
		lock, err := os.Open(filepath.Join(dir, spillLock)) // the directory is this user's alone (0700)
		if err != nil {
			continue
		}
		if free, err := tryLockFile(lock); err == nil && free {
			removeDetached(dir) // under the lock: no proxy can take it meanwhile
		}
		lock.Close()
	}
}
