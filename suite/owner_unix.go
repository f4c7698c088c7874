//go:build unix

package suite

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByOther says whether another user than the one running streamtap
// (and than root, who could change any file anyway) owns the file st
// describes, and who.
func ownedByOther(st fs.FileInfo) (uid int, other bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	uid = int(sys.Uid)
	return uid, uid != 0 && uid != os.Getuid()
}
