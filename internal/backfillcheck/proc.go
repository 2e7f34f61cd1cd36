package backfillcheck

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// PeakRSS is the peak resident set of process pid in kB so far (VmHWM in /proc/PID/status),
// or 0 when it cannot be read (the process has exited). Sampled until the process ends, the
// last value is its peak up to the last sample.
func PeakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
