//go:build unix

package cli

import (
	"os"
	"os/exec"
	"syscall"
)

// removeDetached removes dir, a temporary directory of this process, in
// a process of its own that outlives this one, so that quitting does not
// wait for the disk: deleting the proxy's 4,000 spilled sessions took
// 0.1-0.6 s on a disk mounted with online discard. The remover runs in a
// session of its own (setsid), so the terminal's hangup or ^C does not
// stop it. When it cannot start, dir is removed here.
func removeDetached(dir string) {
	if rm, err := exec.LookPath("rm"); err == nil {
		cmd := exec.Command(rm, "-rf", "--", dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if cmd.Start() == nil {
			_ = cmd.Process.Release()
			return
		}
	}
	_ = os.RemoveAll(dir)
}

// processGone reports whether no process has the id pid.
func processGone(pid int) bool { return syscall.Kill(pid, 0) == syscall.ESRCH }

// ownedByMe reports whether this process's user owns the file.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
