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
