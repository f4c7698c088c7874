// Package fault breaks the transport of a served stream on purpose: it
// wraps an HTTP handler (streamtap replay's) and, request by request, cuts
// the connection after N events or bytes (cleanly or with a reset), stalls,
// drips, writes a byte at a time, answers with an error status instead of
// the stream, sends a wrong Content-Type, gzips the body, or answers as a
// close-delimited HTTP/1.0 response. A scenario gives each request number
// its own faults (and protocol defects, which package inject applies), so a
// client's retry loop is tested end to end.
//
// It counts events with capture's framer, so "after 3 events" means three
// events of the stream, whatever the writes that carried them. It knows
// nothing of recordings or of pacing: the handler it wraps does that.
package fault

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Kind is what a fault does.
type Kind uint8

const (
	// Cut closes the connection cleanly (FIN) after N events or bytes:
	// the body ends without its last chunk.
	Cut Kind = iota + 1
	// Reset closes the connection with a TCP reset (RST) after N events
	// or bytes.
	Reset
	// Stall waits before the event after the first N.
	Stall
	// StallInside waits in the middle of the event after the first N:
	// half of it is sent, then nothing.
	StallInside
	// Drip sends the body at Rate bytes a second.
	Drip
	// Bytewise sends the body one byte per write, each flushed.
	Bytewise
	// Status answers with Status and an error body instead of the stream.
	Status
	// RetryAfter sets the Retry-After header of a Status answer.
	RetryAfter
	// ContentType replaces the response's Content-Type.
	ContentType
	// Gzip sends the body gzip-encoded (Content-Encoding: gzip).
	Gzip
	// HTTP10 answers as HTTP/1.0: no chunked encoding, the body ends
	// when the connection closes.
	HTTP10
)

var kindNames = map[Kind]string{Cut: "cut", Reset: "reset", Stall: "stall", StallInside: "stall-inside", Drip: "drip",
	Bytewise: "bytewise", Status: "status", RetryAfter: "retry-after", ContentType: "content-type", Gzip: "gzip", HTTP10: "http10"}

func (k Kind) String() string { return kindNames[k] }

// Fault is one transport fault. Which fields count depends on Kind.
type Fault struct {
	Kind Kind
	// N is a count of the stream's events (comments and keep-alives not
	// counted) or, when Bytes is set, of its bytes: Cut and Reset act
	// after N, Stall and StallInside at the event after the first N.
	N     int64
	Bytes bool
	// Wait is how long Stall and StallInside wait.
	Wait time.Duration
	// Rate is Drip's bytes per second.
	Rate int
	// Status is the HTTP status of Status; First is how many requests it
	// answers, from the first (the command line's status:CODE:K; a
	// scenario gives each request its own).
	Status int
	First  int
	// Value is RetryAfter's and ContentType's header value.
	Value string
}

// Syntax is the faults' syntax, for the help of the flags that take them.
const Syntax = `cut:N (clean close after N events; cut:Nb after N bytes), reset:N|Nb (TCP reset), stall:N:SECONDS (after N events),
stall-inside:N:SECONDS (inside the event after N), drip:BYTES_PER_SECOND, bytewise (one byte a write), status:CODE[:K]
(answer CODE with an error body, to the first K requests, then the stream), retry-after:VALUE, content-type:TYPE, gzip, http10`

func (f Fault) String() string {
	n := strconv.FormatInt(f.N, 10)
	if f.Bytes {
		n += "b"
	}
	switch f.Kind {
	case Cut, Reset:
		return f.Kind.String() + ":" + n
	case Stall, StallInside:
		return f.Kind.String() + ":" + n + ":" + strconv.FormatFloat(f.Wait.Seconds(), 'f', -1, 64)
	case Drip:
		return "drip:" + strconv.Itoa(f.Rate)
	case Status:
		if f.First > 1 {
			return "status:" + strconv.Itoa(f.Status) + ":" + strconv.Itoa(f.First)
		}
		return "status:" + strconv.Itoa(f.Status)
	case RetryAfter, ContentType:
		return f.Kind.String() + ":" + f.Value
	}
	return f.Kind.String()
}

// Parse reads one fault: NAME[:ARG[:ARG]].
func Parse(s string) (Fault, error) {
	s = strings.TrimSpace(s)
	name, rest, _ := strings.Cut(s, ":")
	var args []string
	if rest != "" {
		args = strings.SplitN(rest, ":", 2)
	}
	var kind Kind
	for k, n := range kindNames {
		if n == name {
			kind = k
		}
	}
	f := Fault{Kind: kind}
	want := func(n int) error {
		if len(args) != n {
			return fmt.Errorf("fault %q: %s takes %d argument(s)", s, name, n)
		}
		return nil
	}
	var err error
	switch kind {
	case 0:
		return f, fmt.Errorf("unknown fault %q (faults: %s)", s, strings.ReplaceAll(Syntax, "\n", " "))
	case Cut, Reset:
		if err = want(1); err == nil {
			f.N, f.Bytes, err = count(args[0])
		}
	case Stall, StallInside:
		if err = want(2); err == nil {
			if f.N, f.Bytes, err = count(args[0]); err == nil && f.Bytes {
				err = fmt.Errorf("fault %q: a stall is after N events, not bytes", s)
			}
			if err == nil {
				f.Wait, err = seconds(args[1])
			}
		}
	case Drip:
		if err = want(1); err == nil {
			f.Rate, err = strconv.Atoi(args[0])
			if err == nil && f.Rate < 1 {
				err = errors.New("a rate under 1 byte a second")
			}
		}
	case Status:
		if len(args) < 1 || len(args) > 2 {
			return f, fmt.Errorf("fault %q: status takes CODE[:K]", s)
		}
		f.First = 1
		if f.Status, err = strconv.Atoi(args[0]); err == nil && (f.Status < 200 || f.Status > 599) {
			err = errors.New("a status from 200 to 599")
		}
		if err == nil && len(args) == 2 {
			if f.First, err = strconv.Atoi(args[1]); err == nil && f.First < 1 {
				err = errors.New("the requests it answers (K) from 1")
			}
		}
	case RetryAfter, ContentType:
		if err = want(1); err == nil {
			f.Value = args[0]
			if strings.ContainsAny(f.Value, "\r\n") || f.Value == "" {
				err = errors.New("an empty value, or one with a line break")
			}
		}
	default:
		err = want(0)
	}
	if err != nil {
		return f, fmt.Errorf("fault %q: %w", s, unwrapNum(err))
	}
	return f, nil
}

// ParseList reads a comma-separated list of faults.
func ParseList(s string) ([]Fault, error) {
	var out []Fault
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		f, err := Parse(part)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// count reads N or Nb.
func count(s string) (int64, bool, error) {
	bytes := strings.HasSuffix(s, "b")
	n, err := strconv.ParseInt(strings.TrimSuffix(s, "b"), 10, 64)
	if err == nil && n < 0 {
		err = errors.New("a count under 0")
	}
	return n, bytes, err
}

// seconds reads a wait: seconds (2, 0.5) or a Go duration (500ms).
func seconds(s string) (time.Duration, error) {
	var d time.Duration
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		d = time.Duration(v * float64(time.Second))
	} else if d, err = time.ParseDuration(s); err != nil {
		return 0, fmt.Errorf("%q is no number of seconds", s)
	}
	if d < 0 || d > maxWait {
		return 0, fmt.Errorf("a wait from 0 to %s", maxWait)
	}
	return d, nil
}

// maxWait bounds a stall: a client's timeout is tested well within it.
const maxWait = time.Hour

func unwrapNum(err error) error {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		return fmt.Errorf("%q is not a number", ne.Num)
	}
	return err
}

// statusText is the reason phrase of a status, 529 included.
func statusText(code int) string {
	if code == 529 {
		return "Site Overloaded"
	}
	if t := http.StatusText(code); t != "" {
		return t
	}
	return "Status " + strconv.Itoa(code)
}
