// Package bytesize reads the sizes the capture generators take on their
// command lines ("100MB", "8MiB", "1500000"), one parser for all of them.
package bytesize

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse reads a size in bytes: a positive number, optionally with a unit.
// KB, MB and GB are decimal, as throughput in MB/s is; KiB, MiB and GiB
// binary. Units are matched without regard to case.
func Parse(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1},
	}
	mult := int64(1)
	num := strings.TrimSpace(s)
	for _, u := range units {
		if strings.HasSuffix(strings.ToUpper(num), strings.ToUpper(u.suffix)) {
			num, mult = strings.TrimSpace(num[:len(num)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return int64(n * float64(mult)), nil
}
