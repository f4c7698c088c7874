package capture

import (
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
)

// gatewayCredentials are the names the second review found written
// verbatim (and sent to another origin by request -L): the gateways put
// in front of LLM APIs, as headers and as query parameters.
var gatewayCredentials = []string{
	"Ocp-Apim-Subscription-Key", "cf-aig-authorization", "Helicone-Auth", "x-portkey-api-key", "X-Amz-Security-Token",
	"api-key", "subscription-key", "sig", "token", "X-Amz-Signature",
}

// TestCredentialNames: every listed name, the gateways' among them, is a
// credential in any case and with spaces around it; so is every name
// shaped like one; the known non-secrets, and ordinary headers, are not.
func TestCredentialNames(t *testing.T) {
	t.Parallel()
	listed := CredentialNames()
	for _, n := range gatewayCredentials {
		if !slices.Contains(listed, strings.ToLower(n)) {
			t.Errorf("%s is not in the list of credential names", n)
		}
	}
	for _, n := range listed {
		for _, v := range []string{n, strings.ToUpper(n), http.CanonicalHeaderKey(n), " " + n + " "} {
			if !Credential(v) {
				t.Errorf("Credential(%q) = false; want true (listed)", v)
			}
		}
	}
	shaped := []string{
		"x-my-gateway-api-key", "X-Custom-Key", "apikey", "x-apikey", "access-key-id", "x_secret_key.v2", // key ending a word
		"x-auth-token", "X-Access-Token", "refresh_token", "id_token", "oauth_verifier", "x-forwarded-authorization",
		"client_secret", "X-Client-Secret", "x-goog-signature", "X-Amz-Credential", "password", "x-passwd",
		"x-session-cookie", "x-jwt-assertion",
	}
	for _, n := range shaped {
		if !Credential(n) {
			t.Errorf("Credential(%q) = false; want true (shaped like a credential)", n)
		}
	}
	notSecret := []string{
		"x-ratelimit-remaining-tokens", "x-ratelimit-limit-tokens", "x-ratelimit-reset-tokens",
		"anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-tokens-limit",
		"max_tokens", "max_output_tokens", "maxOutputTokens", "cache-control", "Content-Type", "Accept",
		"www-authenticate", "Sec-WebSocket-Key", "Idempotency-Key", "cf-aig-cache-key", "pageToken", "page_token",
		"keyword", "keep-alive", "alt", "model", "openai-organization", "anthropic-version", "x-request-id", "monkeys",
	}
	for _, n := range notSecret {
		if Credential(n) {
			t.Errorf("Credential(%q) = true; want false (a known non-secret)", n)
		}
	}
	// No known non-secret unlists a listed name.
	for _, n := range listed {
		for _, p := range notCredentials {
			if globMatch(p, n) {
				t.Errorf("listed %q is also matched by the non-secret %q", n, p)
			}
		}
	}
}

// TestRedactHeadersEveryCredential: each listed name, as a header, is
// redacted; the others pass.
func TestRedactHeadersEveryCredential(t *testing.T) {
	t.Parallel()
	h := http.Header{"Content-Type": {"application/json"}, "X-Ratelimit-Remaining-Tokens": {"99"}}
	for _, n := range CredentialNames() {
		h.Add(n, "SECRET-"+n)
	}
	got := RedactHeaders(h)
	for k, vs := range got {
		for _, v := range vs {
			if strings.Contains(v, "SECRET") {
				t.Errorf("header %s kept %q", k, v)
			}
		}
	}
	if got.Get("Content-Type") != "application/json" || got.Get("X-Ratelimit-Remaining-Tokens") != "99" {
		t.Errorf("ordinary headers changed: %v", got)
	}
	if h.Get("Authorization") == Redacted {
		t.Error("RedactHeaders changed its argument")
	}
}

func TestRedactURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"order kept", "/v1beta/models/g:stream?key=sk-1&alt=sse", "/v1beta/models/g:stream?key=%5Bredacted%5D&alt=sse"},
		{"no secret", "/v1/responses?alt=sse", "/v1/responses?alt=sse"},
		{"no query", "/v1/responses", "/v1/responses"},
		{"control characters", "/x\x1b[2J?key=sk-1&alt=sse", "/x\x1b[2J?key=%5Bredacted%5D&alt=sse"},
		{"semicolon", "/x?key=sk-1;b", "/x?key=%5Bredacted%5D;b"}, // every other byte kept
		{"upper case and fragment", "/x?API_KEY=sk-1#f", "/x?API_KEY=%5Bredacted%5D#f"},
		{"gateways", "/x?api-key=a&subscription-key=b&sig=c&token=d&X-Amz-Security-Token=e&X-Amz-Signature=f&max_tokens=9",
			"/x?api-key=%5Bredacted%5D&subscription-key=%5Bredacted%5D&sig=%5Bredacted%5D&token=%5Bredacted%5D" +
				"&X-Amz-Security-Token=%5Bredacted%5D&X-Amz-Signature=%5Bredacted%5D&max_tokens=9"},
		{"user and password", "https://user:pa55@api.test:8443/v1?alt=sse", "https://%5Bredacted%5D@api.test:8443/v1?alt=sse"},
		{"a key as the user", "https://sk-abc@api.test/v1", "https://%5Bredacted%5D@api.test/v1"},
		{"both", "http://u:p@h/x?key=k", "http://%5Bredacted%5D@h/x?key=%5Bredacted%5D"},
		{"@ in the path is no userinfo", "https://gw.test/v1/workers-ai/@cf/meta/llama?x=a@b", "https://gw.test/v1/workers-ai/@cf/meta/llama?x=a@b"},
		{"@ in the query is no userinfo", "https://h.test?email=a@b", "https://h.test?email=a@b"},
		{"@ in the password", "https://u:p@ss@h.test/", "https://%5Bredacted%5D@h.test/"},
		{"scheme-relative", "//u:p@h.test/x", "//%5Bredacted%5D@h.test/x"},
		{"a bare ? in the password (does not parse)", "https://u:pa?ss@h.test/x", "https://%5Bredacted%5D@h.test/x"},
		{"already redacted", "https://%5Bredacted%5D@h/?key=%5Bredacted%5D", "https://%5Bredacted%5D@h/?key=%5Bredacted%5D"},
		{"no scheme before //", "/a//u:p@h", "/a//u:p@h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := RedactURL(tt.in); got != tt.want {
				t.Errorf("RedactURL(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestSecretURLValues: where the credentials of a URL are, whatever the
// spelling of their names, and nowhere else.
func TestSecretURLValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string // the values at the spans
	}{
		{"/x?key=sk-1&alt=sse&API_KEY=sk-2", []string{"sk-1", "sk-2"}},
		{"/x?%6Bey=sk-1;access_token=t&&apikey=", []string{"sk-1", "t", ""}},
		{"/x?key&alt=key=sk-1", nil},                         // a name without a value; a value naming key
		{"/x?key=%5Bredacted%5D&key=sk-1", []string{"sk-1"}}, // already redacted: left out
		{"/x?alt=sse#key=sk-1", nil},                         // a fragment is no query
		{"/x/key=sk-1", nil},
		{"/x?%zz=1&key=sk-1", []string{"sk-1"}}, // a bad escape in another name
		{"https://u:p?w@h/?key=k", []string{"u:p?w", "k"}},
		{"https://u:p@h/x?q=1", []string{"u:p"}},
	}
	for _, tt := range tests {
		var got []string
		for _, sp := range SecretURLValues(tt.in) {
			got = append(got, tt.in[sp[0]:sp[1]])
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("SecretURLValues(%q) holds %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestRedactText: the URLs an error message quotes lose their
// credentials; the rest of the message stays.
func TestRedactText(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`Post "https://user:pw@api.test/v1/x?key=sk-1": dial tcp: connection refused`,
			`Post "https://%5Bredacted%5D@api.test/v1/x?key=%5Bredacted%5D": dial tcp: connection refused`},
		{"a http://u:p@a/ and ws://k@b/?token=t end", "a http://%5Bredacted%5D@a/ and ws://%5Bredacted%5D@b/?token=%5Bredacted%5D end"},
		{"no URL: key=sk-1 user:pw@host", "no URL: key=sk-1 user:pw@host"},
		{"://u:p@h", "://u:p@h"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := RedactText(tt.in); got != tt.want {
			t.Errorf("RedactText(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestCredentialNamesDocumented: docs/security.md names every listed
// credential and every known non-secret pattern, so that the list people
// read is the list the code uses.
func TestCredentialNamesDocumented(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../docs/security.md")
	if err != nil {
		t.Skip("no docs/security.md beside the package:", err)
	}
	doc := strings.ToLower(string(data))
	for _, n := range CredentialNames() {
		if !strings.Contains(doc, "`"+n+"`") && !strings.Contains(doc, "`?"+n+"=`") {
			t.Errorf("docs/security.md does not name the credential %s", n)
		}
	}
	for _, p := range notCredentials {
		if !strings.Contains(doc, strings.Trim(p, "*")) {
			t.Errorf("docs/security.md does not name the non-secret %s", p)
		}
	}
}
