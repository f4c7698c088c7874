package capture

import (
	"bytes"
	"testing"
)

func TestFrameDetach(t *testing.T) {
	buf := []byte("event: x\nid: 7\ndata: {\"a\":1}\nfoo: bar\n\n")
	f := Frame{
		Kind: FrameEvent, Start: 3, End: 9, Raw: buf,
		Event: buf[7:8], HasEvent: true, ID: buf[13:14], HasID: true, Data: buf[21:28], HasData: true,
		Unknown: []Field{{Name: buf[29:32], Value: buf[34:37]}},
		Header:  []Field{{Name: []byte("Content-Type"), Value: []byte("text/event-stream")}},
	}
	g := f.Detach()
	for i := range buf {
		buf[i] = '#' // the framer reuses its buffer
	}
	tests := []struct {
		name      string
		got, want []byte
	}{
		{"event", g.Event, []byte("x")},
		{"id", g.ID, []byte("7")},
		{"data", g.Data, []byte(`{"a":1}`)},
		{"unknown name", g.Unknown[0].Name, []byte("foo")},
		{"unknown value", g.Unknown[0].Value, []byte("bar")},
		{"header", g.Header[0].Value, []byte("text/event-stream")},
	}
	for _, tt := range tests {
		if !bytes.Equal(tt.got, tt.want) {
			t.Errorf("Detach().%s = %q; want %q", tt.name, tt.got, tt.want)
		}
	}
	if g.Raw != nil || g.Start != 3 || g.End != 9 || !g.HasData {
		t.Errorf("Detach() = %+v; want Raw nil and scalars kept", g)
	}
	// Appending to one detached slice must not overwrite the next.
	_ = append(g.Event, 'Z')
	if !bytes.Equal(g.ID, []byte("7")) {
		t.Errorf("append to Event clobbered ID: %q", g.ID)
	}
}

func TestFrameDetachInto(t *testing.T) {
	buf := []byte("event: x\ndata: {\"a\":1}\nfoo: bar\n\n")
	joined := []byte("{\"b\":\n2}") // several data lines are joined outside Raw
	frames := []Frame{
		{Kind: FrameEvent, Raw: buf, Event: buf[7:8], HasEvent: true, Data: buf[15:22], HasData: true,
			Unknown: []Field{{Name: buf[23:26], Value: buf[28:31]}}},
		{Kind: FrameEvent, Raw: buf[:9], Data: joined, HasData: true},
	}
	for _, raw := range []bool{false, true} {
		arena := make([]byte, 0, 4) // too small: copies grow it
		var got []Frame
		for i := range frames {
			var g Frame
			arena = frames[i].DetachInto(&g, arena, raw)
			got = append(got, g)
		}
		wantArena := len("x") + len(`{"a":1}`) + len("foo") + len("bar") + len(joined)
		if raw {
			wantArena = len(buf) + len(buf[:9]) + len(joined) // fields within Raw point into its copy
		}
		if len(arena) != wantArena {
			t.Errorf("raw=%v: arena holds %d bytes; want %d", raw, len(arena), wantArena)
		}
		for i := range buf {
			buf[i] = '#'
		}
		for i := range joined {
			joined[i] = '#'
		}
		check := func(name string, got []byte, want string) {
			t.Helper()
			if string(got) != want {
				t.Errorf("raw=%v: %s = %q; want %q", raw, name, got, want)
			}
		}
		check("event", got[0].Event, "x")
		check("data", got[0].Data, `{"a":1}`)
		check("unknown", append(append([]byte{}, got[0].Unknown[0].Name...), got[0].Unknown[0].Value...), "foobar")
		check("joined data", got[1].Data, "{\"b\":\n2}")
		if raw {
			check("raw", got[0].Raw, "event: x\ndata: {\"a\":1}\nfoo: bar\n\n")
			check("raw 2", got[1].Raw, "event: x\n")
		} else if got[0].Raw != nil || got[1].Raw != nil {
			t.Errorf("raw=false kept Raw")
		}
		copy(buf, "event: x\ndata: {\"a\":1}\nfoo: bar\n\n")
		copy(joined, "{\"b\":\n2}")
	}
}

func TestWithin(t *testing.T) {
	a := []byte("0123456789")
	other := make([]byte, 10, 20)
	for _, tt := range []struct {
		b    []byte
		off  int
		want bool
	}{
		{a[3:5], 3, true},
		{a[:10], 0, true},
		{a[9:], 9, true},
		{a[4:4], 0, false},     // empty: nothing to share
		{other[2:4], 0, false}, // another array
		{a[3:5:5], 0, false},   // a capped slice cannot be placed
	} {
		off, ok := within(a, tt.b)
		if ok != tt.want || (ok && off != tt.off) {
			t.Errorf("within(a, %q) = %d, %v; want %d, %v", tt.b, off, ok, tt.off, tt.want)
		}
	}
	if _, ok := within(a[2:6], a[5:8]); ok {
		t.Error("a slice reaching past outer was placed within it")
	}
}
