//go:build unix

package cli

import (
	"syscall"
	"time"
)

// busy reports whether the process used the CPU for at least a tenth of
// the span d, which it waits: a command finishing its files works, a
// wedged one sleeps.
func busy(d time.Duration) bool {
	before, ok := cpuTime()
	time.Sleep(d)
	after, ok2 := cpuTime()
	return ok && ok2 && after-before >= d/10
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
