package cli

// The request a stream answers, for the checks that hold its calls to the
// tools, tool_choice and parallel flag the request declared (the
// request/… rules). It comes from --request FILE, or from the exchange
// the source carries (an archive's entry, `streamtap request`); a timed
// recording's header carries its own, which the checks read themselves.

import (
	"fmt"
	"net/http"
	"net/url"
	"os"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

// loadRequest reads --request FILE, once, before any stream is read. A
// file that is not a JSON object is bad input: it cannot be a request.
func (o *options) loadRequest() error {
	if o.request == "" {
		return nil
	}
	body, err := os.ReadFile(o.request)
	if err != nil {
		return fmt.Errorf("--request: %w", err)
	}
	if !model.ParseRequest(body, "").Parsed {
		return fmt.Errorf("--request %s: not a JSON object (want the request body: model, tools, tool_choice …)", o.request)
	}
	o.requestBody = body
	return nil
}

// requestOf returns the request the stream from src answers: --request
// FILE, else the exchange the source carries; nil when neither is a JSON
// request.
func requestOf(src *capture.Source, o options) *model.Request {
	body, path := o.requestBody, ""
	if body == nil && src.Exchange != nil {
		body = src.Exchange.RequestBody
		if u, err := url.Parse(src.Exchange.URL); err == nil {
			path = u.Path
		}
	}
	if len(body) == 0 {
		return nil
	}
	r := model.ParseRequest(body, path)
	if !r.Parsed {
		return nil
	}
	return &r
}

// exchangeOf returns the exchange the stream from src answers, for the
// session (model.Options.Exchange): the source's (an archive's entry,
// `streamtap request`), with --request FILE as its request body; nil when
// neither is known. A dialect whose stream says less than its request
// (MCP: the tools/call is in the request body) reads it there.
func exchangeOf(src *capture.Source, o options) *capture.Exchange {
	if o.requestBody == nil {
		return src.Exchange
	}
	x := &capture.Exchange{Method: http.MethodPost, HeadAt: capture.NoTime}
	if src.Exchange != nil {
		*x = *src.Exchange
	}
	x.RequestBody, x.RequestBodySize = o.requestBody, 0
	return x
}

// attachChecks returns opts with a new Checker observing, given the
// request src answers when it is known, and that exchange for the session.
func attachChecks(opts model.Options, src *capture.Source, o options) (model.Options, *checks.Checker) {
	opts.Exchange, opts.Earlier = exchangeOf(src, o), o.earlier
	opts, c := checks.Attach(opts)
	if r := requestOf(src, o); r != nil {
		c.SetRequest(r)
	}
	return opts, c
}
