package model

import (
	"bytes"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// verdict is the JSON validation of a frame's data, done ahead of Add.
type verdict struct {
	isObject bool
	err      error
}

// Pipeline limits: a batch is handed over when it holds pipeBatchFrames
// frames or pipeBatchBytes bytes; frames over pipeDirect bytes are not
// copied at all but added by the caller once the assembler is idle, so a
// 50 MB event costs no extra copies.
const (
	pipeBatchFrames = 512
	pipeBatchBytes  = 512 << 10
	pipeDepth       = 4
	pipeDirect      = 512 << 10
	// pipeBufCap holds a full batch plus one more frame's raw bytes and
	// data, so a batch's buffer never grows.
	pipeBufCap = pipeBatchBytes + 2*pipeDirect
)

type pipeBatch struct {
	frames   []capture.Frame
	verdicts []verdict
	buf      []byte
}

// Pipeline adds frames to a session using two cores: the goroutine that
// calls Add frames the input and validates each event's JSON (the costliest
// step), and a second goroutine assembles. Frames are copied into batches to
// cross over. The session must not be touched until Close returns.
//
// Use it where throughput matters and nothing reads the session while it
// grows: the headless commands. Observers run on the assembling goroutine.
type Pipeline struct {
	s     *Session
	full  chan *pipeBatch
	free  chan *pipeBatch
	idle  chan struct{} // receives once the assembler has drained a flush
	done  chan struct{}
	cur   *pipeBatch
	bytes int
}

// NewPipeline starts the assembling goroutine for s.
func NewPipeline(s *Session) *Pipeline {
	p := &Pipeline{s: s, full: make(chan *pipeBatch, pipeDepth), free: make(chan *pipeBatch, pipeDepth+1),
		idle: make(chan struct{}), done: make(chan struct{})}
	for range pipeDepth + 1 {
		p.free <- &pipeBatch{buf: make([]byte, 0, pipeBufCap)}
	}
	p.cur = <-p.free
	go p.assemble()
	return p
}

func (p *Pipeline) assemble() {
	defer close(p.done)
	for b := range p.full {
		if b == nil { // a flush: the caller waits for the session to be idle
			p.idle <- struct{}{}
			continue
		}
		for i := range b.frames {
			p.s.verdict = &b.verdicts[i]
			p.s.Add(&b.frames[i])
		}
		p.s.verdict = nil
		b.frames, b.verdicts, b.buf = b.frames[:0], b.verdicts[:0], b.buf[:0]
		p.free <- b
	}
}

// Add validates f and queues it for assembly. f need not outlive the call.
func (p *Pipeline) Add(f *capture.Frame) {
	if len(f.Raw) > pipeDirect {
		p.flush()
		p.full <- nil
		<-p.idle
		p.s.Add(f) // the assembler is idle: the caller may use the session
		return
	}
	var v verdict
	if f.Kind == capture.FrameEvent && f.HasData && string(bytes.TrimSpace(f.Data)) != "[DONE]" {
		v.isObject, v.err = jsonscan.ScanObject(f.Data, nil)
	}
	b := p.cur
	b.frames = append(b.frames, detach(f, &b.buf))
	b.verdicts = append(b.verdicts, v)
	p.bytes += len(f.Raw) + len(f.Data)
	if len(b.frames) >= pipeBatchFrames || p.bytes >= pipeBatchBytes {
		p.flush()
	}
}

// flush hands the current batch to the assembler.
func (p *Pipeline) flush() {
	if len(p.cur.frames) == 0 {
		return
	}
	p.full <- p.cur
	p.cur = <-p.free
	p.bytes = 0
}

// Close assembles what is queued and stops the assembling goroutine.
func (p *Pipeline) Close() {
	p.flush()
	close(p.full)
	<-p.done
}

// detach copies a frame's slices into buf, which was made large enough
// never to grow (and bytes once written are never changed until the batch
// is recycled), so the copies stay valid while the batch is assembled.
func detach(f *capture.Frame, buf *[]byte) capture.Frame {
	g := *f
	g.Raw = appendCopy(buf, f.Raw)
	g.Event = appendCopy(buf, f.Event)
	g.ID = appendCopy(buf, f.ID)
	g.Data = appendCopy(buf, f.Data)
	if f.Unknown != nil {
		g.Unknown = make([]capture.Field, len(f.Unknown))
		for i, u := range f.Unknown {
			g.Unknown[i] = capture.Field{Name: bytes.Clone(u.Name), Value: bytes.Clone(u.Value)}
		}
	}
	if f.Header != nil {
		g.Header = make([]capture.Field, len(f.Header))
		for i, h := range f.Header {
			g.Header[i] = capture.Field{Name: bytes.Clone(h.Name), Value: bytes.Clone(h.Value)}
		}
	}
	return g
}

func appendCopy(buf *[]byte, b []byte) []byte {
	if b == nil {
		return nil
	}
	start := len(*buf)
	*buf = append(*buf, b...)
	return (*buf)[start:len(*buf):len(*buf)]
}
