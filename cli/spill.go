package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// spillPrefix names the proxy's temporary directories of spilled
// sessions: the prefix, then the pid of the proxy that made it, so that a
// later proxy can tell the directory of a proxy that was killed (SIGKILL,
// a crash: no exit to remove it) from one still running.
const spillPrefix = "streamtap-sessions-pid"

// makeSpillDir makes this process's private directory of spilled
// sessions, after removing those that killed proxies of this user left
// behind: they hold streams' bytes (prompts, answers) nobody will read.
func makeSpillDir() (string, error) {
	removeOrphanedSpills(os.TempDir())
	return os.MkdirTemp("", spillPrefix+strconv.Itoa(os.Getpid())+"-")
}

// removeOrphanedSpills removes the spill directories under tmp whose proxy
// is gone and which belong to this user. A directory whose pid is alive,
// or which this platform cannot judge, is left alone.
func removeOrphanedSpills(tmp string) {
	matches, _ := filepath.Glob(filepath.Join(tmp, spillPrefix+"*-*"))
	for _, dir := range matches {
		pidText, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(dir), spillPrefix), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if fi, err := os.Lstat(dir); err == nil && fi.IsDir() && ownedByMe(fi) && processGone(pid) {
			removeDetached(dir)
		}
	}
}
