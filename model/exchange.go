package model

import (
	"sync"
	"time"

	"github.com/streamtap/streamtap/capture"
)

// Exchange is one request/response pair the proxy carried, as the
// sessions list shows it and the log line tells it. The embedded
// capture.Exchange holds what went over the wire (what a recording's
// header block says); the fields here are what the proxy learnt from it.
//
// It is a plain value: the proxy makes a new one for every update and
// never changes one it has handed out; the slices and maps in it (the
// request's headers and body, Request, Unanswered) are shared between
// copies and must not be changed.
type Exchange struct {
	capture.Exchange
	ID int
	// Path is the request URI as the client sent it. Shown, it must have
	// its credential query parameters hidden (capture.RedactURL) unless
	// the user keeps secrets.
	Path  string
	Model string
	// Dur is the exchange's duration: so far while it runs, in total once
	// Outcome is set.
	Dur time.Duration
	// TTFB and TFE are the times to the first body byte and to the first
	// event, or capture.NoTime.
	TTFB, TFE time.Duration
	// Outcome is "" while the exchange runs, then how it ended:
	// "completed", "failed", "client-canceled", "unreachable"…
	Outcome string
	Err     string
	// TurnOf is the exchange whose tool calls this request answers, or 0;
	// Unanswered lists that exchange's calls the request has no output
	// for.
	TurnOf     int
	Unanswered []string
	// LegOf is the application exchange this provider exchange was a
	// model call of, and Step which (from 1); Legs lists an application
	// exchange's provider exchanges, step by step, and LegsBy what linked
	// each ("call ids", "text", "time"; a provider's one entry for
	// itself). A proxy serving two listeners links them (model.Legs).
	LegOf, Step int
	Legs        []int
	LegsBy      []string
	// Link says what the request does to TurnOf's exchange when it is no
	// turn of it but continues it by what it carries
	// (Turns.LinkExchange): "resumes", "cancels", "answers"; "" for a
	// turn.
	Link string
	// Request is the request body read; nil when it was not JSON.
	Request *Request
	Record  string // the recording's path, if any
}

// Live is the Session of an exchange that is still being modelled while
// others read it: the proxy adds its frames on one goroutine, and the
// sessions list and the inspector panes read it on the UI's. A Session is
// not safe for concurrent use, so every use of it, reads included,
// happens between Lock and Unlock. Hold the lock briefly: the writer for
// one batch of frames, a reader for one update or one drawing of the
// screen. Nobody waits for anything else while holding it.
type Live struct {
	mu sync.Mutex
	s  *Session
}

// NewLive shares s. Its creator must not use s directly from then on.
func NewLive(s *Session) *Live { return &Live{s: s} }

// Lock locks the session and returns it, for use until Unlock.
func (l *Live) Lock() *Session {
	l.mu.Lock()
	return l.s
}

// Unlock ends a use of the session that Lock began.
func (l *Live) Unlock() { l.mu.Unlock() }

// Session returns the session without locking it, for a holder that
// keeps the pointer (a pane) and uses it only while holding the lock.
func (l *Live) Session() *Session { return l.s }
