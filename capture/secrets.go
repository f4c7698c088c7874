package capture

// This file is the one place that knows which names carry credentials:
// request and response headers and URL query parameters alike. Every
// writer redacts through it (recordings, HAR entries, the proxy's log
// line, the inspector's panes, the sessions list), and `request -L` drops
// the same headers on a hop to another origin, so a name added here is
// hidden and kept from other origins everywhere at once.
//
// A name is a credential when it is listed (credentialNames), or when it
// looks like one (credentialParts: *key, *token*, *auth*, *secret*,
// *signature* …) and is not a known non-secret (notCredentials:
// x-ratelimit-*-tokens, max_tokens, sec-websocket-key …). Guessing by
// shape errs on the side of hiding: a gateway we have never heard of
// names its key x-something-api-key, and a value hidden by mistake costs
// a --keep-secrets, where one shown by mistake is a leaked key.

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Redacted replaces the value of a secret header or query parameter.
const Redacted = "[redacted]"

// RedactedInURL stands for a credential in a URL: a query parameter's
// value or the userinfo (user:password@). It is Redacted escaped, so
// that the URL stays one.
var RedactedInURL = url.QueryEscape(Redacted)

// credentialNames are header and query parameter names, lower case, that
// carry credentials, by name: the providers' own and those of the
// gateways put in front of LLM APIs. Most also match credentialParts;
// they are listed so that the list says what is known, and so that no
// entry of notCredentials can unlist them.
var credentialNames = map[string]bool{
	// HTTP itself.
	"authorization": true, "proxy-authorization": true, "cookie": true, "set-cookie": true,
	// Providers: Anthropic, Azure OpenAI, Gemini (header and ?key=),
	// OpenAI-compatible servers that take ?api_key= or ?apikey=.
	"x-api-key": true, "api-key": true, "x-goog-api-key": true,
	"key": true, "api_key": true, "apikey": true, "access_token": true, "token": true,
	// Azure API Management: the header and its query form.
	"ocp-apim-subscription-key": true, "subscription-key": true,
	// Cloudflare AI Gateway (authenticated gateways), and Access service
	// tokens in front of one.
	"cf-aig-authorization": true, "cf-access-client-secret": true, "cf-access-token": true, "cf-access-jwt-assertion": true,
	// Helicone, Portkey (its config may hold the provider's keys inline,
	// and its Vertex header a service account's private key), LiteLLM,
	// Kong, Vercel.
	"helicone-auth": true, "x-portkey-api-key": true, "x-portkey-virtual-key": true,
	"x-portkey-config": true, "x-portkey-vertex-service-account-json": true,
	"x-litellm-api-key": true, "x-vercel-protection-bypass": true,
	// AWS Signature V4 (Bedrock): headers, and a presigned URL's query.
	"x-amz-security-token": true, "x-amz-signature": true, "x-amz-credential": true,
	// Google Cloud signed URLs and IAP; Azure shared access signatures.
	"x-goog-signature": true, "x-goog-credential": true, "x-goog-iap-jwt-assertion": true, "sig": true,
}

// credentialParts make a name a credential wherever they appear in it
// (lower case): x-auth-token, helicone-auth, client_secret,
// x-amz-signature, oauth_token, x-csrf-token, Set-Cookie…
var credentialParts = []string{"auth", "token", "secret", "signature", "password", "passwd", "credential", "cookie", "jwt"}

// notCredentials are names that credentialParts or the key rule would
// take for credentials but that carry none: a trailing * matches any
// rest, a leading * any start. "tokens", plural, counts what a model
// reads and writes.
var notCredentials = []string{
	"*tokens*",                               // max_tokens, x-ratelimit-remaining-tokens, anthropic-ratelimit-input-tokens-limit
	"x-ratelimit-*", "anthropic-ratelimit-*", // rate limits, however named
	"www-authenticate", "proxy-authenticate", // the challenge: which credentials to send, none itself
	"sec-websocket-key",                    // a WebSocket handshake's nonce
	"idempotency-key", "x-idempotency-key", // a retry's identity
	"cf-aig-cache-key",                                            // Cloudflare AI Gateway's cache key
	"page_token", "pagetoken", "next_page_token", "nextpagetoken", // a list's cursor
}

// Credential reports whether a header or query parameter named name
// carries a credential, whatever its case and surrounding spaces: one of
// credentialNames, or a name shaped like one (containing auth, token,
// secret, signature, password, credential, cookie or jwt, or ending a
// word in key: x-api-key, apikey, access-key-id) that is not a known
// non-secret (notCredentials).
func Credential(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	if credentialNames[n] {
		return true
	}
	if slices.ContainsFunc(notCredentials, func(p string) bool { return globMatch(p, n) }) {
		return false
	}
	if slices.ContainsFunc(credentialParts, func(p string) bool { return strings.Contains(n, p) }) {
		return true
	}
	return keyWord(n)
}

// keyWord reports whether "key" ends a word of n: at its end, or before
// '-', '_' or '.' (x-api-key, subscription_key, access-key-id, apikey),
// but not keyword or keep-alive.
func keyWord(n string) bool {
	for i := 0; ; {
		k := strings.Index(n[i:], "key")
		if k < 0 {
			return false
		}
		end := i + k + len("key")
		if end == len(n) || n[end] == '-' || n[end] == '_' || n[end] == '.' {
			return true
		}
		i = end
	}
}

// globMatch matches n against p, whose only wildcards are a leading and
// a trailing *.
func globMatch(p, n string) bool {
	pre, suf := strings.HasPrefix(p, "*"), strings.HasSuffix(p, "*")
	core := strings.TrimSuffix(strings.TrimPrefix(p, "*"), "*")
	switch {
	case pre && suf:
		return strings.Contains(n, core)
	case pre:
		return strings.HasSuffix(n, core)
	case suf:
		return strings.HasPrefix(n, core)
	}
	return n == p
}

// urlHeaders carry a URL, which may name a credential in its query or
// its userinfo (a redirect's Location to a URL with ?key=, a Referer of
// one).
var urlHeaders = map[string]bool{"location": true, "content-location": true, "referer": true}

// URLHeader reports whether a header carries a URL, whose query may hold
// credentials (SecretURLValues).
func URLHeader(name string) bool {
	return urlHeaders[strings.ToLower(strings.TrimSpace(name))]
}

// RedactHeaderValue is a header's value as streamtap shows or saves it:
// Redacted for a header that carries credentials (Credential), the URL
// with its credentials redacted (RedactURL) for one that carries a URL,
// else the value itself.
func RedactHeaderValue(name, value string) string {
	switch {
	case Credential(name):
		return Redacted
	case URLHeader(name):
		return RedactURL(value)
	}
	return value
}

// RedactHeaders returns a copy of h with every value as RedactHeaderValue
// gives it.
func RedactHeaders(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		vs = slices.Clone(vs)
		for i, v := range vs {
			vs[i] = RedactHeaderValue(k, v)
		}
		out[k] = vs
	}
	return out
}

// RedactURL hides the credentials of u: its userinfo (user:password@,
// or a key given as the user) and the values of its credential query
// parameters (SecretURLValues), each replaced by RedactedInURL; every
// other byte stays as it was, in order, also in a URL that does not
// parse.
func RedactURL(u string) string {
	return replaceSpans(u, SecretURLValues(u), RedactedInURL)
}

// replaceSpans replaces each span of s, in order and apart, by text.
func replaceSpans(s string, spans [][2]int, text string) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString(text)
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// SecretURLValues returns where, in u, its credentials are: [start, end)
// byte offsets, in order, of its userinfo (userinfoSpan) and of every
// value of a query pair (after the first '?' and before a '#', pairs
// split at '&' and ';') whose name, query-unescaped, is a credential's
// (Credential). A value that already reads RedactedInURL is left out.
// The raw view of a head redacts in place with them, so what it shows
// of a URL keeps every other byte.
func SecretURLValues(u string) [][2]int {
	var spans [][2]int
	qfrom := 0
	if s, e, ok := userinfoSpan(u); ok {
		if u[s:e] != RedactedInURL {
			spans = append(spans, [2]int{s, e})
		}
		qfrom = e
	}
	q := strings.IndexByte(u[qfrom:], '?')
	if q < 0 {
		return spans
	}
	q += qfrom
	end := len(u)
	if h := strings.IndexByte(u[q:], '#'); h >= 0 {
		end = q + h
	}
	for start := q + 1; start < end; {
		stop := start + strings.IndexAny(u[start:end]+"&", "&;")
		k, _, hasValue := strings.Cut(u[start:stop], "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if vs := start + len(k) + 1; hasValue && Credential(name) && u[vs:stop] != RedactedInURL {
			spans = append(spans, [2]int{vs, stop})
		}
		start = stop + 1
	}
	return spans
}

// userinfoSpan finds the userinfo of u (scheme://userinfo@host…, or
// //userinfo@host…): what stands before the last '@' of the authority,
// which ends at the first '/', '?', '#' or '\'. For a URL that does not
// parse, the authority is taken to run to the first '/' only, so that a
// password holding a bare '?' or '#' (which a client could never have
// sent) is still hidden whole.
func userinfoSpan(u string) (start, end int, ok bool) {
	i := strings.Index(u, "//")
	if i < 0 || (i > 0 && !schemeBefore(u[:i])) {
		return 0, 0, false
	}
	start = i + 2
	stops := "/?#\\"
	if _, err := url.Parse(u); err != nil {
		stops = "/\\"
	}
	auth := u[start:]
	if k := strings.IndexAny(auth, stops); k >= 0 {
		auth = auth[:k]
	}
	at := strings.LastIndexByte(auth, '@')
	if at < 0 {
		return 0, 0, false
	}
	return start, start + at, true
}

// schemeBefore reports whether s is a URL scheme and its colon ("https:"):
// a letter, then letters, digits, '+', '-' or '.'.
func schemeBefore(s string) bool {
	s, ok := strings.CutSuffix(s, ":")
	if !ok || s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// RedactText hides the credentials of every URL in a text meant for
// people, such as an error message that quotes the URL it failed on
// (net/http's `Post "https://user:pass@host/…?key=…": …`), as
// SecretTextValues finds them.
func RedactText(s string) string {
	return replaceSpans(s, SecretTextValues(s), RedactedInURL)
}

// SecretTextValues returns where the credentials of the URLs in text s
// are (SecretURLValues), as offsets into s: a URL is a run that starts
// with a scheme and "://" and ends at a space, a quote, '<', '>' or the
// end.
func SecretTextValues(s string) [][2]int {
	var spans [][2]int
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], "://")
		if k < 0 {
			break
		}
		k += i
		start := k
		for start > i && isSchemeByte(s[start-1]) {
			start--
		}
		end := k + 3
		for end < len(s) && !strings.ContainsRune(" \t\r\n\"'<>`", rune(s[end])) {
			end++
		}
		if start < k {
			for _, sp := range SecretURLValues(s[start:end]) {
				spans = append(spans, [2]int{start + sp[0], start + sp[1]})
			}
		}
		i = end
	}
	return spans
}

// SecretHeadLine returns where the credentials on one line of an HTTP
// head or of a recording's header block are, as offsets into line, and
// the text that stands for them: the value of a header that carries
// credentials (Redacted), those of a URL header's URL, of a recorded
// request's URL and of the URLs an error quotes (RedactedInURL). The raw
// view of a head shows every other byte.
func SecretHeadLine(line string) (spans [][2]int, text string) {
	header := func(off int, h string) ([][2]int, string) {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			return nil, ""
		}
		vs := off + len(name) + 1
		ve := vs + len(value)
		for vs < ve && (line[vs] == ' ' || line[vs] == '\t') {
			vs++
		}
		for ve > vs && (line[ve-1] == ' ' || line[ve-1] == '\t' || line[ve-1] == '\r') {
			ve--
		}
		switch {
		case Credential(name) && line[vs:ve] != Redacted:
			return [][2]int{{vs, ve}}, Redacted
		case Credential(name):
			return nil, "" // redacted already
		case URLHeader(name):
			return shift(SecretURLValues(line[vs:ve]), vs), RedactedInURL
		}
		return nil, ""
	}
	rest, comment := strings.CutPrefix(line, ": ")
	if !comment {
		if strings.HasPrefix(line, ":") {
			return nil, ""
		}
		return header(0, line)
	}
	key, value, _ := strings.Cut(rest, " ")
	off := len(": ") + len(key) + 1
	switch key {
	case "request-header", "response-header":
		return header(off, value)
	case "request":
		method, _, _ := strings.Cut(value, " ")
		off += len(method) + 1
		if off > len(line) {
			return nil, ""
		}
		return shift(SecretURLValues(line[off:]), off), RedactedInURL
	}
	return SecretTextValues(line), RedactedInURL
}

// shift moves spans by off.
func shift(spans [][2]int, off int) [][2]int {
	for i := range spans {
		spans[i][0] += off
		spans[i][1] += off
	}
	return spans
}

func isSchemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

// redactExchange hides the credentials of x's headers, URL and error
// unless keep: every writer of an exchange (a recording's header block,
// a HAR entry) and every reader of an archive goes through it.
func redactExchange(x *Exchange, keep bool) {
	if keep {
		return
	}
	x.URL = RedactURL(x.URL)
	x.RequestHeader = RedactHeaders(x.RequestHeader)
	x.ResponseHeader = RedactHeaders(x.ResponseHeader)
	x.Error = RedactText(x.Error)
}

// CredentialNames lists credentialNames, sorted: the names hidden by
// name. Tests run each through every writer, and the documentation
// lists them.
func CredentialNames() []string {
	names := make([]string, 0, len(credentialNames))
	for n := range credentialNames {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
