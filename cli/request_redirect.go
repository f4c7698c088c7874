package cli

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/termtext"
)

// maxRedirects is how many redirects -L follows before it gives up,
// curl's default --max-redirs.
const maxRedirects = 50

// redirectPolicy decides, as curl does, which redirects `request`
// follows and what each hop sends. Without -L none is followed: the 3xx
// is the response. With -L, a hop to another origin (scheme, host or
// port), and every hop after it, gets none of the credential headers
// redaction knows (capture.Credential: Authorization, Cookie, x-api-key,
// the gateways' Ocp-Apim-Subscription-Key, cf-aig-authorization,
// Helicone-Auth, x-portkey-api-key, X-Amz-Security-Token, and any name
// shaped like a key or token); no hop gets a Referer, since the URL
// before it may hold a ?key=; and a 307 or 308 that would send the
// request body to another origin is not followed: an LLM request's body
// is the prompt.
// --location-trusted lifts both, as curl's does for credentials. Go's
// client alone keeps x-api-key and its kin on any host, and Authorization
// on another port.
type redirectPolicy struct {
	follow  bool // -L
	trusted bool // --location-trusted
	keep    bool // --keep-secrets: URLs printed unredacted
	// left is set once a hop went to another origin: from then on no
	// hop gets the credentials, back on the first origin included, as
	// net/http does for Authorization and Cookie.
	left bool
	// notes are the lines stderr gets about the hops, terminal-safe: one
	// per redirect followed, and why the last one was not.
	notes []string
}

// check is the client's CheckRedirect: req is the next hop, with the
// first request's headers copied by net/http; via the hops so far.
func (p *redirectPolicy) check(req *http.Request, via []*http.Request) error {
	first := via[0]
	status := req.Response.Status
	target := termtext.Safe(req.Method + " " + p.url(req.URL.String()))
	switch {
	case !p.follow:
		p.notes = append(p.notes, fmt.Sprintf("%s: redirect to %s not followed (add -L to follow it)", termtext.Safe(status), termtext.Safe(p.url(req.URL.String()))))
		return http.ErrUseLastResponse
	case len(via) >= maxRedirects:
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if first.Header.Get("Referer") == "" {
		req.Header.Del("Referer") // net/http sets it to the previous URL
	}
	if p.trusted {
		// net/http drops Authorization and Cookie for another host;
		// the user asked for them everywhere.
		for k, vs := range first.Header {
			if capture.Credential(k) {
				req.Header[k] = slices.Clone(vs)
			}
		}
		p.notes = append(p.notes, fmt.Sprintf("%s → %s", termtext.Safe(status), target))
		return nil
	}
	same := sameOrigin(first.URL, req.URL)
	if same && !p.left {
		p.notes = append(p.notes, fmt.Sprintf("%s → %s", termtext.Safe(status), target))
		return nil
	}
	if !same && req.ContentLength != 0 && req.Body != nil && req.Body != http.NoBody {
		p.notes = append(p.notes, fmt.Sprintf("%s: redirect to %s not followed: it would send the request body to another origin (add --location-trusted to send it)",
			termtext.Safe(status), termtext.Safe(p.url(req.URL.String()))))
		return http.ErrUseLastResponse
	}
	p.left = true
	var names []string // what the user gave that this hop does not get
	for k := range first.Header {
		if capture.Credential(k) {
			names = append(names, k)
		}
	}
	for k := range req.Header {
		if capture.Credential(k) {
			req.Header.Del(k)
		}
	}
	note := fmt.Sprintf("%s → %s", termtext.Safe(status), target)
	if len(names) > 0 {
		slices.Sort(names)
		note += " (not sent beyond the first origin: " + termtext.Safe(strings.Join(names, ", ")) + ")"
	}
	p.notes = append(p.notes, note)
	return nil
}

// url is u as streamtap shows it: credentials in the query redacted
// unless --keep-secrets.
func (p *redirectPolicy) url(u string) string {
	if !p.keep {
		u = capture.RedactURL(u)
	}
	return u
}

// sameOrigin reports whether a and b have the same scheme, host and port
// (the port a scheme implies counts as given).
func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if strings.EqualFold(u.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// redactURLError hides the credentials in the URL an error of net/http
// names (`Get "http://…?key=…": connection refused`), as every other URL
// streamtap prints; keep leaves it as it is.
func redactURLError(err error, keep bool) error {
	var ue *url.Error
	if keep || !errors.As(err, &ue) {
		return err
	}
	c := *ue
	c.URL = capture.RedactURL(c.URL)
	if ue == err {
		return &c
	}
	// Wrapped: say the same with the URL redacted.
	return errors.New(strings.ReplaceAll(err.Error(), ue.URL, c.URL))
}
