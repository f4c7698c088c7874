package capture

// This file reads VCR cassettes: YAML (or JSON) files of recorded HTTP
// interactions, as test suites keep them. One reader takes the shapes of
// the common recorders, which agree on the outline (a list of
// interactions, each a request and a response) and differ in the details:
//
//   - vcrpy and pytest-recording (https://vcrpy.readthedocs.io): request
//     {method, uri, body, headers}; response {status: {code, message},
//     headers, body: {string: …}}, the string a `!!binary` base64 scalar
//     when the body is not text (gzip). pydantic-ai's serializer writes a
//     JSON body as YAML under `parsed_body` instead.
//   - go-vcr v1 (`version: 1`) and v2/v3/v4 (`version: 2`)
//     (https://github.com/dnaeon/go-vcr): request {method, url, body,
//     headers}; response {body, headers, status: "200 OK", code, proto,
//     duration}.
//   - Ruby VCR (https://benoittgt.github.io/vcr/): `http_interactions`,
//     bodies {encoding, string} or {base64_string}, `recorded_at`.
//   - vcrpy's httpx support, as DataDog/dd-trace-py's cassettes keep it
//     (tests/contrib/openai/cassettes/v1/*.yaml): response {content: "…",
//     headers, http_version, status_code}. The content is the text httpx
//     had already inflated, while the headers still say Content-Encoding:
//     gzip, so a content body is inflated only when it starts like gzip.
//   - ddapm-test-agent's JSON cassettes, as the Datadog tracers' test
//     suites keep them (one file per interaction,
//     https://github.com/DataDog/dd-apm-test-agent, vcr_proxy.py): the
//     interaction itself at the top, {request: {method, url, headers,
//     body}, response: {status: {code, message}, headers, body}}, each
//     header one string, a body text or "base64:" and the base64 of bytes
//     that are not text (an AWS event stream). The response body is what
//     the requests library had already inflated, so it too is inflated
//     only when it starts like gzip.
//
// Headers are maps from a name to a list of values (or one value).

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// maxYAMLNodes bounds how many nodes a parsed_body may expand to, and the
// JSON written for it may be at most yamlGrowth times the cassette's size
// plus yamlSlack: YAML aliases can make a small file describe a huge tree
// ("billion laughs"), while a body written out plainly turns into JSON of
// about its own size.
const (
	maxYAMLNodes = 1 << 22
	yamlGrowth   = 4
	yamlSlack    = 1 << 20
)

// errYAMLTooBig is returned for a parsed_body past those bounds.
var errYAMLTooBig = errors.New("parsed_body expands too far (aliases?)")

func readCassette(data []byte, opt ArchiveOptions) (a *Archive, err error) {
	defer func() {
		// The YAML parser is not ours: whatever it does on hostile input,
		// a cassette that breaks it is an error, never a crash.
		if r := recover(); r != nil {
			a, err = nil, fmt.Errorf("cassette: unreadable YAML: %v", r)
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	root := deref(&doc)
	if root != nil && root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = deref(root.Content[0])
	}
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("cassette: line %d: want a mapping with an interactions list", line(root))
	}
	list := get(root, "interactions")
	if list == nil {
		list = get(root, "http_interactions")
	}
	one := false
	if list == nil && isMapping(get(root, "request")) && isMapping(get(root, "response")) {
		// ddapm-test-agent: the file is one interaction.
		list, one = &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{root}}, true
	}
	if list == nil || list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("cassette: line %d: no interactions list, and no request and response of one interaction", line(root))
	}
	a = &Archive{Format: FormatCassette}
	budget := newInflateBudget(opt)
	for i, it := range list.Content {
		e, err := cassetteEntry(deref(it), opt, budget, yamlGrowth*len(data)+yamlSlack, one)
		if err != nil {
			return nil, fmt.Errorf("cassette: interactions[%d] (line %d): %w", i, line(it), err)
		}
		e.Index = i
		a.Entries = append(a.Entries, e)
	}
	return a, nil
}

func isMapping(n *yaml.Node) bool { return n != nil && n.Kind == yaml.MappingNode }

// cassetteEntry reads one interaction; ddapm says it is a
// ddapm-test-agent cassette's (bodies "base64:"-prefixed when binary, the
// response's already inflated).
func cassetteEntry(it *yaml.Node, opt ArchiveOptions, budget *inflateBudget, limit int, ddapm bool) (Entry, error) {
	e := Entry{Exchange: Exchange{HeadAt: NoTime}, Dur: NoTime}
	if it == nil || it.Kind != yaml.MappingNode {
		return e, errors.New("want a mapping with request and response")
	}
	req, resp := get(it, "request"), get(it, "response")
	if req == nil || req.Kind != yaml.MappingNode {
		return e, fmt.Errorf("line %d: no request mapping", line(it))
	}
	e.Method = strings.ToUpper(scalar(get(req, "method")))
	e.URL = scalar(get(req, "uri"))
	if e.URL == "" {
		e.URL = scalar(get(req, "url"))
	}
	e.RequestHeader = cassetteHeaders(get(req, "headers"))
	body, _, _, err := cassetteBody(req, limit, ddapm)
	if err != nil {
		return e, fmt.Errorf("request body: %w", err)
	}
	e.RequestBody = body
	if t, err := time.Parse(time.RFC1123, scalar(get(it, "recorded_at"))); err == nil {
		e.Started = t
	}
	if resp == nil || resp.Kind != yaml.MappingNode {
		redactExchange(&e.Exchange, opt.KeepSecrets)
		return e, nil // a request that got no response
	}
	e.Status, e.Proto = cassetteStatus(resp), scalar(get(resp, "proto"))
	if e.Proto == "" {
		e.Proto = scalar(get(resp, "http_version")) // vcrpy's httpx support
	}
	e.ResponseHeader = cassetteHeaders(get(resp, "headers"))
	if d, ok := cassetteDuration(get(resp, "duration")); ok {
		e.Dur = d
	}
	body, decoded, inflated, err := cassetteBody(resp, limit, ddapm)
	if err != nil {
		return e, fmt.Errorf("response body: %w", err)
	}
	inflated = inflated || ddapm
	if decoded != "" {
		e.Decoded = append(e.Decoded, decoded)
	}
	encoding := e.ResponseHeader
	if inflated {
		encoding = nil // what the header says was undone: only gzip's magic counts
	}
	packed, note := packBody(body, encoding, budget)
	if packed != nil {
		e.Decoded = append(e.Decoded, packed.enc)
		e.packed = packed
	} else {
		e.Body = []Chunk{{At: NoTime, Data: body}}
	}
	e.Note = note
	redactExchange(&e.Exchange, opt.KeepSecrets)
	return e, nil
}

// cassetteStatus reads vcrpy's {code, message}, go-vcr's code, vcrpy's
// httpx status_code, or a status line such as "200 OK".
func cassetteStatus(resp *yaml.Node) int {
	st := get(resp, "status")
	if st != nil && st.Kind == yaml.MappingNode {
		st = get(st, "code")
	}
	for _, n := range []*yaml.Node{get(resp, "code"), st, get(resp, "status_code")} {
		f := strings.Fields(scalar(n))
		if len(f) > 0 {
			if c, err := strconv.Atoi(f[0]); err == nil && c > 0 && c < 1000 {
				return c
			}
		}
	}
	return 0
}

// cassetteDuration reads go-vcr's duration: "83.984896ms" (v2 and later)
// or a number of nanoseconds.
func cassetteDuration(n *yaml.Node) (time.Duration, bool) {
	s := scalar(n)
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return d, true
	}
	if ns, err := strconv.ParseInt(s, 10, 64); err == nil && ns >= 0 {
		return time.Duration(ns), true
	}
	return 0, false
}

// cassetteBody reads a request's or response's body: `parsed_body` (YAML
// standing for JSON), a string, a `!!binary` scalar, or a mapping with
// `string` or `base64_string`; or, with no `body`, vcrpy's httpx
// `content`, a string or `!!binary`, which inflated says is already
// inflated whatever the headers say. decoded is "base64" when the body
// was; with prefixed, a string body that starts "base64:" is base64 after
// it (ddapm-test-agent's binary bodies).
func cassetteBody(m *yaml.Node, limit int, prefixed bool) (body []byte, decoded string, inflated bool, err error) {
	if pb := get(m, "parsed_body"); pb != nil {
		b, err := yamlJSON(pb, limit)
		return b, "", false, err
	}
	n := get(m, "body")
	if n == nil {
		if n = get(m, "content"); n != nil {
			inflated = true
		}
	}
	if n != nil && n.Kind == yaml.MappingNode {
		if b64 := get(n, "base64_string"); b64 != nil {
			b, err := decodeBase64(scalar(b64))
			if err != nil {
				return nil, "", false, fmt.Errorf("line %d: base64_string: %w", line(b64), err)
			}
			return b, "base64", false, nil
		}
		n = get(n, "string")
	}
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return nil, "", inflated, nil
	}
	if n.ShortTag() == "!!binary" {
		b, err := decodeBase64(n.Value)
		if err != nil {
			return nil, "", false, fmt.Errorf("line %d: !!binary: %w", line(n), err)
		}
		return b, "base64", inflated, nil
	}
	if b64, ok := strings.CutPrefix(n.Value, "base64:"); ok && prefixed {
		b, err := decodeBase64(b64)
		if err != nil {
			return nil, "", false, fmt.Errorf("line %d: base64: body: %w", line(n), err)
		}
		return b, "base64", inflated, nil
	}
	return []byte(n.Value), "", inflated, nil
}

// decodeBase64 reads base64 as YAML and Ruby write it: wrapped over lines,
// padded or not.
func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, s)
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}

// cassetteHeaders reads a map of header names to a list of values or one.
func cassetteHeaders(n *yaml.Node) http.Header {
	h := http.Header{}
	if n == nil || n.Kind != yaml.MappingNode {
		return h
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, v := scalar(n.Content[i]), deref(n.Content[i+1])
		if name == "" || v == nil {
			continue
		}
		if v.Kind == yaml.SequenceNode {
			for _, x := range v.Content {
				h.Add(name, scalar(x))
			}
		} else {
			h.Add(name, scalar(v))
		}
	}
	return h
}

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// get returns the value of key in mapping m, or nil.
func get(m *yaml.Node, key string) *yaml.Node {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := deref(m.Content[i]); k != nil && k.Value == key {
			return deref(m.Content[i+1])
		}
	}
	return nil
}

// scalar is a scalar node's value, "" for anything else.
func scalar(n *yaml.Node) string {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return ""
	}
	return n.Value
}

func line(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	return n.Line
}

// yamlJSON writes a YAML tree as the JSON it stands for: mappings as
// objects (keys in file order), sequences as arrays, scalars by their
// resolved tag. A number is written as the file spells it when that is
// JSON, so `temperature: 1.0` stays 1.0. The JSON may be at most limit
// bytes.
func yamlJSON(n *yaml.Node, limit int) ([]byte, error) {
	b := &jsonBuf{limit: limit}
	budget := maxYAMLNodes
	err := writeYAMLJSON(b, n, &budget, 0)
	return b.Bytes(), err
}

// jsonBuf is a buffer that knows its limit.
type jsonBuf struct {
	bytes.Buffer
	limit int
}

func (b *jsonBuf) full() bool { return b.Len() > b.limit }

// maxYAMLDepth bounds the nesting of a parsed_body.
const maxYAMLDepth = 10000

func writeYAMLJSON(b *jsonBuf, n *yaml.Node, budget *int, depth int) error {
	if *budget--; *budget < 0 || b.full() {
		return errYAMLTooBig
	}
	if depth > maxYAMLDepth {
		return fmt.Errorf("line %d: parsed_body nested deeper than %d", line(n), maxYAMLDepth)
	}
	n = deref(n)
	if n == nil {
		b.WriteString("null")
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			b.WriteString("null")
			return nil
		}
		return writeYAMLJSON(b, n.Content[0], budget, depth+1)
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(&b.Buffer, scalar(n.Content[i]))
			b.WriteByte(':')
			if err := writeYAMLJSON(b, n.Content[i+1], budget, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeYAMLJSON(b, c, budget, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		writeYAMLScalar(&b.Buffer, n)
	}
	return nil
}

func writeYAMLScalar(b *bytes.Buffer, n *yaml.Node) {
	switch n.ShortTag() {
	case "!!null":
		b.WriteString("null")
		return
	case "!!bool":
		var v bool
		if n.Decode(&v) == nil {
			b.WriteString(strconv.FormatBool(v))
			return
		}
	case "!!int", "!!float":
		if json.Valid([]byte(n.Value)) {
			b.WriteString(n.Value)
			return
		}
		var f float64
		if n.Decode(&f) == nil {
			if s := strconv.FormatFloat(f, 'g', -1, 64); json.Valid([]byte(s)) {
				b.WriteString(s)
				return
			}
		}
	}
	writeJSONString(b, n.Value)
}

// writeJSONString writes s as a JSON string, without the HTML escaping
// encoding/json adds by default.
func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // the newline Encode adds
}
