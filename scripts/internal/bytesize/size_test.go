package bytesize

import "testing"

func TestParse(t *testing.T) {
	for in, want := range map[string]int64{
		"100MB": 100e6, "8MiB": 8 << 20, "1500000": 1500000, "1.5 kb": 1500, "2GiB": 2 << 30, "7B": 7,
	} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "MB", "-1MB", "0", "ten"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) took it; want an error", bad)
		}
	}
}
