//go:build !unix

package suite

import "io/fs"

// ownedByOther says whether another user owns the file: unknown here (no
// owner in fs.FileInfo), so no.
func ownedByOther(fs.FileInfo) (uid int, other bool) { return 0, false }
