//go:build unix

package finance

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) the test process has
// used, so benchmarks can report work per CPU-second, which other loads on
// the machine do not distort as they do wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
