package model

import (
	"runtime"
	"strings"
	"testing"
)

// A call whose arguments come in one big delta holds them in room of
// their decoded length. The room was sized by the escaped length, a
// sixth more for JSON arguments (a quote escaped every few bytes), and
// trim copied them whole when the call closed: the 50 MB delta of
// scripts/proxy-stream.sh took 47.7 MiB for 41.4 MiB of arguments, then
// 89 MiB for a moment. Here 9 MiB of arguments (12 MiB escaped) allocate
// 9 MiB and a bit, not 21 MiB.
// Not parallel: it counts the process's allocations.
func TestBigDeltaAllocatesItsArgumentsOnce(t *testing.T) {
	row := `{\"path\":\"a/b.txt\",\"line\":\"x\\ty\"},`
	v := []byte(`"[` + strings.Repeat(row, 8<<20/28) + `{}]"`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var b Buffer
	b.AddString(1, v)
	b.trim() // as Item.Close does
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > uint64(b.Len())+64<<10 {
		t.Errorf("a delta of %d MiB of arguments (%d MiB escaped) allocated %d MiB; want their decoded length once", b.Len()>>20, len(v)>>20, n>>20)
	}
	if !strings.HasPrefix(b.String(), `[{"path":"a/b.txt","line":"x\ty"},`) {
		t.Fatalf("decoded %.40q", b.String())
	}
}
