package capture

// This file reads Go httprr traces, the record/replay files Go projects
// keep in their testdata (golang.org/x/oscar/internal/httprr, from which
// tmc/langchaingo and others copied it): a header line, then for each
// exchange a line of two decimal lengths and that many bytes of the raw
// HTTP/1.1 request (as http.Request.WriteProxy writes it) and response
// (as http.Response.Write writes it). Bodies keep the transfer coding the
// server used (chunked), which is undone here. A trace may be kept
// gzip-compressed (.httprr.gz), inflated within MaxInflatedFile.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"strconv"
	"strings"
)

// httprrMagic is the first line of every httprr trace.
const httprrMagic = "httprr trace v1\n"

// isHTTPRR reports whether data starts an httprr trace, plain or gzipped
// (only the gzip stream's first bytes are inflated).
func isHTTPRR(data []byte) bool {
	if bytes.HasPrefix(data, []byte(httprrMagic)) {
		return true
	}
	if !isGzip(data) {
		return false
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return false
	}
	head := make([]byte, len(httprrMagic))
	_, err = io.ReadFull(zr, head)
	return err == nil && string(head) == httprrMagic
}

func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// errHTTPRRTooBig refuses a gzipped trace that inflates past the bound
// for one file.
type errHTTPRRTooBig struct{ bound int64 }

func (e errHTTPRRTooBig) Error() string {
	return fmt.Sprintf("httprr: the file inflates past %s, the bound for one file (a gzip bomb?)", sizeName(e.bound))
}

// readHTTPRR reads an httprr trace: each exchange an entry, its request
// and response taken apart as net/http would, its response body undone of
// its chunked transfer coding and kept compressed when its
// Content-Encoding says so (inflated when read, within the bounds of
// every archive). Errors name the record and the byte they are at.
func readHTTPRR(data []byte, opt ArchiveOptions) (*Archive, error) {
	budget := newInflateBudget(opt)
	if isGzip(data) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("httprr: %w", err)
		}
		var out bytes.Buffer
		n, err := io.Copy(&out, io.LimitReader(zr, budget.file+1))
		switch {
		case n > budget.file:
			return nil, errHTTPRRTooBig{budget.file}
		case err != nil:
			return nil, fmt.Errorf("httprr: gzip: %w", err)
		}
		data = out.Bytes()
	}
	rest, ok := bytes.CutPrefix(data, []byte(httprrMagic))
	if !ok {
		return nil, errors.New("httprr: the file does not start with \"httprr trace v1\"")
	}
	a := &Archive{Format: FormatHTTPRR}
	at := len(httprrMagic)
	for i := 0; len(rest) > 0; i++ {
		line, after, ok := bytes.Cut(rest, []byte("\n"))
		if !ok {
			return nil, fmt.Errorf("httprr: record %d at byte %d: no line of lengths", i+1, at)
		}
		reqLen, respLen, err := httprrLengths(string(line))
		if err != nil {
			return nil, fmt.Errorf("httprr: record %d at byte %d: %w", i+1, at, err)
		}
		at += len(line) + 1
		if int64(len(after)) < reqLen+respLen {
			return nil, fmt.Errorf("httprr: record %d at byte %d: the lengths say %d bytes; %d are left", i+1, at, reqLen+respLen, len(after))
		}
		e, err := httprrEntry(after[:reqLen], after[reqLen:reqLen+respLen], budget)
		if err != nil {
			return nil, fmt.Errorf("httprr: record %d at byte %d: %w", i+1, at, err)
		}
		e.Index = i
		redactExchange(&e.Exchange, opt.KeepSecrets)
		a.Entries = append(a.Entries, e)
		rest = after[reqLen+respLen:]
		at += int(reqLen + respLen)
	}
	return a, nil
}

// httprrLengths reads a record's line: the request's and the response's
// lengths in bytes.
func httprrLengths(line string) (req, resp int64, err error) {
	f := strings.Fields(strings.TrimSuffix(line, "\r"))
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("want two lengths, found %q", truncateText(line, 40))
	}
	req, err1 := strconv.ParseInt(f[0], 10, 64)
	resp, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || req < 0 || resp < 0 {
		return 0, 0, fmt.Errorf("want two lengths, found %q", truncateText(line, 40))
	}
	return req, resp, nil
}

// truncateText cuts s to at most n bytes, for an error message.
func truncateText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// httprrEntry takes one exchange apart: the request line, headers and
// body; the status line, headers and body.
func httprrEntry(req, resp []byte, budget *inflateBudget) (Entry, error) {
	e := Entry{Exchange: Exchange{HeadAt: NoTime}, Dur: NoTime}
	first, header, body, err := httpMessage(req)
	if err != nil {
		return e, fmt.Errorf("request: %w", err)
	}
	f := strings.Fields(first)
	if len(f) < 2 {
		return e, fmt.Errorf("request: want a request line, found %q", truncateText(first, 40))
	}
	e.Method, e.URL = strings.ToUpper(f[0]), f[1]
	if !strings.Contains(e.URL, "://") {
		if host := header.Get("Host"); host != "" {
			e.URL = "//" + host + e.URL // written by Request.Write: no scheme to tell
		}
	}
	e.RequestHeader, e.RequestBody = header, body
	if len(resp) == 0 {
		return e, nil // a request that got no response
	}
	first, header, body, err = httpMessage(resp)
	if err != nil {
		return e, fmt.Errorf("response: %w", err)
	}
	proto, status, _ := strings.Cut(first, " ")
	code, _, _ := strings.Cut(strings.TrimSpace(status), " ")
	n, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/") || err != nil || n < 100 || n > 999 {
		return e, fmt.Errorf("response: want a status line, found %q", truncateText(first, 40))
	}
	e.Proto, e.Status, e.ResponseHeader = proto, n, header
	if te := header.Get("Transfer-Encoding"); strings.EqualFold(strings.TrimSpace(te), "chunked") {
		var out bytes.Buffer
		_, err := io.Copy(&out, httputil.NewChunkedReader(bytes.NewReader(body)))
		e.Decoded = append(e.Decoded, "chunked")
		if err != nil {
			e.Note = "chunked body: " + err.Error() + " (what decoded is kept)"
		}
		body = out.Bytes()
	}
	packed, note := packBody(body, header, budget)
	if packed != nil {
		e.Decoded = append(e.Decoded, packed.enc)
		e.packed = packed
	} else {
		e.Body = []Chunk{{At: NoTime, Data: body}}
	}
	if note != "" {
		e.Note = strings.TrimPrefix(e.Note+"; "+note, "; ")
	}
	return e, nil
}

// httpMessage splits a raw HTTP/1.x message into its first line, its
// headers and its body. Lines may end in CRLF or LF alone (a recorder's
// scrubber may have rewritten one); the head ends at the first empty line.
func httpMessage(m []byte) (first string, header http.Header, body []byte, err error) {
	r := bufio.NewReader(bytes.NewReader(m))
	tp := textproto.NewReader(r)
	if first, err = tp.ReadLine(); err != nil {
		return "", nil, nil, errors.New("no first line")
	}
	mh, err := tp.ReadMIMEHeader()
	if err != nil && !errors.Is(err, io.EOF) {
		return "", nil, nil, fmt.Errorf("headers: %w", err)
	}
	header = http.Header(mh)
	body, _ = io.ReadAll(r) // from memory: no error
	return first, header, body, nil
}

// indexHTTPRR reads an httprr trace whole, its entries kept (those
// ArchiveOptions.Keep takes): a trace is a test's few exchanges, often
// gzipped, which has no place to read an entry from again.
func (a *Archive) indexHTTPRR() error {
	data, err := io.ReadAll(io.NewSectionReader(a.src, 0, a.size))
	if err != nil {
		return err
	}
	whole, err := readHTTPRR(data, a.opt)
	if err != nil {
		return err
	}
	a.src, a.slots = nil, nil
	for _, e := range whole.Entries {
		if a.opt.Keep == nil || a.opt.Keep(&e) {
			a.Entries = append(a.Entries, e)
		}
	}
	return nil
}
