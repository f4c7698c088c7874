package capture

import (
	"errors"
	"io"
)

// WriteRecording writes the entry as a timed recording, what `streamtap
// proxy --record` writes of an exchange: the request, the response head
// and the body, each frame at its time (a body without times is written
// untimed). It is how `replay --listen` serves an archive's entries: as
// recordings, read and paced, defects applied and transport faults
// made, exactly as the proxy's. The body is the one the client saw, so
// Content-Encoding (which an archive keeps while its body is already
// decoded) is not written.
func (e *Entry) WriteRecording(w io.Writer, keepSecrets bool) error {
	body, r, err := e.body("")
	if err != nil {
		return err
	}
	if r != nil {
		defer r.Close()
	}
	x := e.Exchange
	if x.ResponseHeader != nil {
		x.ResponseHeader = x.ResponseHeader.Clone()
		x.ResponseHeader.Del("Content-Encoding")
	}
	format := HeadFormat(x.ResponseHeader)
	if format == FormatAuto && len(body) > 0 {
		format = DetectFormat(body[0].Data)
	}
	rec := NewRecorder(w, &x, RecordOptions{Format: RecordFormat(format), KeepSecrets: keepSecrets})
	end := NoTime
	for _, c := range body {
		if err := rec.Write(c.Data, c.At); err != nil {
			return err
		}
		end = c.At
	}
	if r != nil {
		buf := make([]byte, 64<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				if werr := rec.Write(buf[:n], NoTime); werr != nil {
					return werr
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
		}
	}
	return rec.Close(end)
}
