package capture

// This file holds what HAR files and cassettes (har.go, cassette.go) have in
// common: an archive of several HTTP exchanges, each read back as a stream
// of its own.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Entry is one exchange of an archive (a HAR file or a cassette): the
// request, the response head and the response body, decoded. Secrets in
// its headers and URL are already redacted unless the archive was read
// with KeepSecrets.
type Entry struct {
	Exchange
	// Body is the response body as the client saw it, cut at event
	// boundaries when each event's arrival time is known (Chunk.At), else
	// one chunk timed NoTime. It is nil for a compressed body, which is
	// inflated only when the entry is read (Source, Bytes).
	Body []Chunk
	// Dur is how long the whole exchange took, or NoTime.
	Dur time.Duration
	// Index is the entry's position in the archive, from 0: a HAR file's
	// entries that hold no stream are skipped, so it may differ from the
	// entry's position in Archive.Entries.
	Index int
	// Decoded says what was undone to get the body ("base64", "gzip",
	// "_eventSourceMessages"), for display; empty when it was kept as is.
	Decoded []string
	// Stream says the response is an event stream, by its media type
	// (HAR content.mimeType or Content-Type: text/event-stream, or NDJSON
	// as Ollama streams) or Chrome's _eventSourceMessages, whatever its
	// body holds.
	Stream bool
	// Note tells a problem met while decoding the body (an encoding
	// streamtap cannot undo, a broken gzip header: the body is then kept
	// as it was; a gzip stream cut short, found once the entry is read:
	// what inflated is kept).
	Note string

	// packed is the compressed body, when there is one (Body is nil).
	packed *packedBody
	// messages are the HAR entry's _eventSourceMessages that time a
	// compressed body once it is inflated.
	messages []harMessage
}

// Bytes returns the whole response body, inflated; nil when it inflates
// past a bound (Source says which).
func (e *Entry) Bytes() []byte {
	body, r, err := e.body("")
	if err != nil {
		return nil
	}
	if r != nil {
		r.Close()
		b, err := e.packed.bytes()
		if err != nil {
			return nil
		}
		return b
	}
	var n int
	for _, c := range body {
		n += len(c.Data)
	}
	b := make([]byte, 0, n)
	for _, c := range body {
		b = append(b, c.Data...)
	}
	return b
}

// body returns how to read the entry's body: chunks held in memory, or
// (for a compressed body without messages to time it) a reader that
// inflates it as it is read. A compressed body is measured first, once;
// past a bound it is refused with an *InflateError naming the session by
// name. Problems met inflating go to e.Note.
func (e *Entry) body(name string) ([]Chunk, io.ReadCloser, error) {
	p := e.packed
	if p == nil {
		return e.Body, nil, nil
	}
	p.measure()
	if p.note != "" {
		e.Note = p.note
	}
	switch {
	case p.refused != nil:
		err := *p.refused
		err.Entry = name
		return nil, nil, &err
	case p.broken:
		// Nothing inflates: the body reads as the file stores it.
		if n := len(e.Decoded); n > 0 && e.Decoded[n-1] == p.enc {
			e.Decoded = e.Decoded[:n-1]
		}
		return []Chunk{{At: NoTime, Data: p.data}}, nil, nil
	case e.messages != nil:
		out, err := p.bytes()
		if err != nil {
			return nil, nil, err
		}
		if len(out) == 0 {
			return messagesSSE(e.messages, e.messageTime(e.messages)), nil, nil
		}
		return timedBody(out, e.messages, e.messageTime(e.messages)), nil, nil
	}
	r, err := p.reader()
	return nil, r, err
}

// Archive is a file of several exchanges.
type Archive struct {
	Format  Format // FormatHAR or FormatCassette
	Entries []Entry
	// Skipped counts a HAR file's entries that hold no stream and no JSON
	// response, for a request that posts no JSON (pages, scripts, images).
	Skipped int
	// Own says streamtap wrote the HAR file (its log.creator): each entry
	// is then a session streamtap read or proxied, none skipped.
	Own bool
	// Cut says what was repaired of a HAR whose writer was stopped inside
	// an entry (see HAR), or is empty.
	Cut string

	// An archive OpenArchive indexed reads its entries from src when
	// asked: slots say where each is (archive_open.go). src is nil when
	// the entries are in Entries.
	src    io.ReaderAt
	ctx    context.Context // what OpenArchive was given: reading an entry gives way to it
	size   int64
	opt    ArchiveOptions
	budget *inflateBudget
	mu     sync.Mutex
	slots  []archiveSlot
}

// ArchiveOptions tune the reading of an archive.
type ArchiveOptions struct {
	// KeepSecrets keeps credentials in headers and URLs; without it they
	// are replaced by Redacted as the archive is read, so nothing later
	// can show them.
	KeepSecrets bool

	// Keep, when set, is asked about each entry as OpenArchive indexes
	// the archive, in the file's order (Entry.Index set): the entries it
	// refuses are left out of the archive (Len, Entry), but in a HAR file
	// streamtap wrote (Own), which keeps every entry. Each entry is read
	// once for the index, so a caller that filters the entries (the LLM
	// exchanges) costs no read more.
	Keep func(*Entry) bool

	// maxBody and maxFile replace MaxInflatedBody and MaxInflatedFile
	// when set, so that tests need no bomb of a gigabyte.
	maxBody, maxFile int64
}

// ErrNotArchive is returned by ReadArchive for input that is neither a HAR
// file nor a cassette.
var ErrNotArchive = errors.New("not a HAR file or a cassette")

// ReadArchive reads a whole archive held in memory: a HAR file or a
// cassette, as format says, or detected when format is FormatAuto, into
// its Entries. Errors name the place in the file (line and column, or the
// field's path). Compressed bodies are kept compressed: each is inflated
// when its entry is read, within MaxInflatedBody and, for all of them,
// MaxInflatedFile. OpenArchive reads an archive from a file instead,
// holding only where its entries are.
func ReadArchive(data []byte, format Format, opt ArchiveOptions) (*Archive, error) {
	a, err := OpenArchive(context.Background(), bytes.NewReader(data), int64(len(data)), format, opt)
	if err != nil {
		return nil, err
	}
	if a.src == nil {
		return a, nil // read whole already
	}
	entries := make([]Entry, a.Len())
	for i := range entries {
		e, err := a.Entry(i)
		if err != nil {
			return nil, err
		}
		entries[i] = *e
	}
	a.Entries, a.src, a.slots = entries, nil, nil
	return a, nil
}

// archivePeek is how much of a file DetectArchive needs at most: the
// first top-level key of a HAR file or a cassette comes within it.
const archivePeek = 64 << 10

// DetectArchive tells FormatHAR for a JSON object whose first key is "log",
// FormatCassette for a YAML or JSON document with a top-level
// "interactions" (vcrpy, go-vcr) or "http_interactions" (Ruby VCR) key,
// or a JSON object that is one interaction (a ddapm-test-agent cassette:
// "request", then "response"), FormatHTTPRR for a Go httprr trace (its
// first line, plain or gzipped), and FormatAuto for anything else, such as
// a stream. It looks at the first 64 KiB at most.
func DetectArchive(data []byte) Format {
	data = data[:min(len(data), archivePeek)]
	if isHTTPRR(data) {
		return FormatHTTPRR
	}
	data = bytes.TrimPrefix(data, bom)
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) > 0 && t[0] == '{' {
		return detectJSONArchive(t)
	}
	return detectYAMLCassette(t)
}

// detectJSONArchive reads the top-level keys of a JSON object until it
// knows.
func detectJSONArchive(t []byte) Format {
	dec := json.NewDecoder(bytes.NewReader(t))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return FormatAuto
	}
	for first := true; dec.More(); first = false {
		tok, err := dec.Token()
		if err != nil {
			return FormatAuto
		}
		key, _ := tok.(string)
		switch {
		case key == "log" && first:
			return FormatHAR
		case key == "interactions" || key == "http_interactions":
			return FormatCassette
		case key == "request" && first:
			return detectInteraction(dec)
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return FormatAuto
		}
	}
	return FormatAuto
}

// detectInteraction tells FormatCassette for the object dec is at when
// it opens with a request's method and url (strings, in either order), as
// a ddapm-test-agent cassette's request does: enough to know, before the
// body, which may be larger than what detection reads.
func detectInteraction(dec *json.Decoder) Format {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return FormatAuto
	}
	seen := 0
	for seen < 2 && dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return FormatAuto
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return FormatAuto
		}
		if (key == "method" || key == "url") && len(v) > 0 && v[0] == '"' {
			seen++
			continue
		}
		return FormatAuto
	}
	if seen == 2 {
		return FormatCassette
	}
	return FormatAuto
}

// detectYAMLCassette looks for the "interactions:" key at the start of a
// line among the document's leading top-level keys.
func detectYAMLCassette(t []byte) Format {
	for line := range bytes.Lines(t) {
		l := bytes.TrimRight(line, " \t\r\n")
		switch {
		case len(l) == 0, l[0] == '#', bytes.HasPrefix(l, []byte("---")), bytes.HasPrefix(l, []byte("%")):
			continue
		case bytes.HasPrefix(l, []byte("interactions:")), bytes.HasPrefix(l, []byte("http_interactions:")):
			return FormatCassette
		case l[0] == ' ' || l[0] == '-':
			continue // inside the value of a key before interactions
		case bytes.IndexByte(l, ':') > 0 && isYAMLKey(l[:bytes.IndexByte(l, ':')]):
			continue // another top-level key ("version: 2")
		}
		return FormatAuto
	}
	return FormatAuto
}

func isYAMLKey(k []byte) bool {
	for _, c := range k {
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// normalProto turns the protocol names archives use ("h2", "http/2.0",
// "HTTP/1.1") into the form a status line has; anything else is HTTP/1.1.
func normalProto(p string) string {
	switch s := strings.ToLower(strings.TrimSpace(p)); {
	case s == "h2" || s == "http/2" || s == "http/2.0":
		return "HTTP/2.0"
	case s == "h3" || s == "http/3" || s == "http/3.0":
		return "HTTP/3.0"
	case strings.HasPrefix(s, "http/1."):
		return "HTTP/1." + s[len("http/1."):]
	}
	return "HTTP/1.1"
}

// oneLine makes a header value or status text fit on one line of a head.
var oneLine = strings.NewReplacer("\r", " ", "\n", " ")

// Head is the response head as `curl -i` prints it: status line, headers
// (sorted by name; HTTP/2 pseudo-headers left out), blank line. It is
// empty when the exchange got no response.
func (x *Exchange) Head() []byte {
	if x.Status <= 0 {
		return nil
	}
	var b bytes.Buffer
	text := http.StatusText(x.Status)
	fmt.Fprintf(&b, "%s %d %s\r\n", normalProto(x.Proto), x.Status, text)
	for _, k := range slices.Sorted(maps.Keys(x.ResponseHeader)) {
		name := oneLine.Replace(strings.TrimSpace(k))
		if name == "" || strings.HasPrefix(name, ":") || strings.ContainsRune(name, ':') {
			continue
		}
		for _, v := range x.ResponseHeader[k] {
			b.WriteString(name + ": " + oneLine.Replace(v) + "\r\n")
		}
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

// Source returns the entry as a stream streamtap reads like `curl -i`
// output: the response head (timed at HeadAt), then the body, each chunk
// at its time. name names the source in messages; its Exchange is the
// entry's, request included.
//
// A compressed body is measured here (inflated into nothing, once per
// entry) and then inflated again as the source is read, never held
// whole, so such a source has no ReaderAt. A body past a bound makes Read
// fail at once with an *InflateError, before any frame.
func (e *Entry) Source(name string) *Source {
	src := &Source{Name: name, Kind: SourceFile, Exchange: &e.Exchange, archive: true}
	if head := e.Head(); head != nil {
		src.chunks = append(src.chunks, Chunk{At: e.HeadAt, Data: head})
	}
	body, r, err := e.body(name)
	switch {
	case err != nil:
		src.err = err
	case r != nil:
		src.r, src.closer = r, r
	default:
		src.chunks = append(src.chunks, body...)
		src.ra = newChunksAt(src.chunks)
	}
	return src
}

// chunksAt reads chunks back by offset as if they were one slice, without
// copying them into one.
type chunksAt struct {
	chunks []Chunk
	starts []int64 // the offset of each chunk
	size   int64
}

func newChunksAt(chunks []Chunk) *chunksAt {
	c := &chunksAt{chunks: chunks, starts: make([]int64, len(chunks))}
	for i, ch := range chunks {
		c.starts[i] = c.size
		c.size += int64(len(ch.Data))
	}
	return c
}

// ReadAt implements io.ReaderAt.
func (c *chunksAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	n := 0
	i := sort.Search(len(c.starts), func(i int) bool { return c.starts[i] > off }) - 1
	for ; i >= 0 && i < len(c.chunks) && n < len(p); i++ {
		at := off + int64(n) - c.starts[i]
		if at < int64(len(c.chunks[i].Data)) {
			n += copy(p[n:], c.chunks[i].Data[at:])
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// describe is the entry's one-line summary: method, URL, status.
func (e *Entry) describe() string {
	s := strings.TrimSpace(e.Method + " " + e.URL)
	if e.Status > 0 {
		s += " " + strconv.Itoa(e.Status)
	} else if e.Error != "" {
		s += " · no response: " + e.Error
	}
	return s
}

// String is the entry's one-line summary: method, URL and status, or why
// no response came.
func (e *Entry) String() string { return e.describe() }
