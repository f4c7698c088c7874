package checks

// This file compiles a tool's declared schema and validates a call's
// arguments against it. The validator is santhosh-tekuri/jsonschema (v6):
// drafts 4 to 2020-12, the full JSON-Schema-Test-Suite, maintained. It is
// given no way to read anything: a request is untrusted input, and a
// "$ref" to a file or URL must fail, not fetch.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/streamtap/streamtap/model"
)

// maxValidatedArgs bounds the arguments validated against a schema:
// decoding them into values for the validator takes several times their
// size, and a 50 MB call must not multiply the memory of a check. Larger
// arguments are not validated (docs/rules.md says so).
const maxValidatedArgs = 4 << 20

// maxProblems is the most schema failures one finding spells out; it
// counts the rest.
const maxProblems = 3

// errNoLoader refuses every "$ref" and "$schema" outside the schema itself
// and the drafts' own metaschemas, which the validator embeds.
var errNoLoader = errors.New("streamtap reads no schema from files or the network")

type noLoader struct{}

func (noLoader) Load(string) (any, error) { return nil, errNoLoader }

// toolCheck is a tool's declaration made ready to judge calls: compiled
// once per request, on the tool's first call.
type toolCheck struct {
	schema *jsonschema.Schema // nil when the tool declares none, or it failed
	err    string             // why the schema does not compile
	re     *regexp.Regexp     // a custom tool's regex grammar, when Go can run it
}

// compileTool readies a declaration. A panic inside the validator (a
// schema it cannot handle) is a compile error, not a crash.
func compileTool(d *model.ToolDecl) (tc toolCheck) {
	defer func() {
		if p := recover(); p != nil {
			tc = toolCheck{err: fmt.Sprintf("the validator failed on it: %v", p)}
		}
	}()
	switch {
	case d.Kind == model.ToolFunction && d.Schema != nil:
		sch, err := compileSchema(d)
		if err != nil {
			return toolCheck{err: oneLine(err.Error())}
		}
		return toolCheck{schema: sch}
	case d.Kind == model.ToolCustom && d.Grammar != nil && d.Grammar.Syntax == "regex":
		// OpenAI runs the Rust regex crate's syntax; RE2's is close. A
		// pattern Go cannot compile is left unchecked: it is not invalid.
		re, err := regexp.Compile(`^(?:` + d.Grammar.Definition + `)$`)
		if err == nil {
			return toolCheck{re: re}
		}
	}
	return toolCheck{}
}

// compileSchema compiles a declaration's schema: Gemini's OpenAPI subset
// translated to JSON Schema, and a strict tool's objects closed.
func compileSchema(d *model.ToolDecl) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.Schema))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if d.OpenAPI {
		doc = fromOpenAPI(doc)
	}
	if d.Strict {
		walkSchemas(doc, closeObject)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.UseRegexpEngine(lenientRegexp)
	c.DefaultDraft(jsonschema.Draft2020)
	const url = "streamtap:///tool-schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// lenientRegexp compiles a schema's pattern with Go's regexp; a pattern
// it cannot compile (ECMA-262 lookarounds, backreferences) matches
// everything, so that one such pattern does not leave a whole schema
// unchecked.
func lenientRegexp(s string) (jsonschema.Regexp, error) {
	if re, err := regexp.Compile(s); err == nil {
		return re, nil
	}
	return anything(s), nil
}

type anything string

func (a anything) String() string        { return string(a) }
func (anything) MatchString(string) bool { return true }

// schemaMaps and schemaLists name the keywords whose values hold schemas:
// by name (a map of schemas), as a list, or as one schema.
var (
	schemaMaps  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaLists = []string{"anyOf", "allOf", "oneOf", "prefixItems"}
	schemaOnes  = []string{"items", "additionalProperties", "not", "if", "then", "else", "contains",
		"propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems"}
)

// walkSchemas calls f on every schema object in doc, parents first,
// following only the keywords that hold schemas: a property named
// "properties" is a name, not a keyword.
func walkSchemas(doc any, f func(m map[string]any)) {
	m, ok := doc.(map[string]any)
	if !ok {
		return
	}
	f(m)
	for _, k := range schemaMaps {
		if sub, ok := m[k].(map[string]any); ok {
			for _, v := range sub {
				walkSchemas(v, f)
			}
		}
	}
	for _, k := range schemaLists {
		if list, ok := m[k].([]any); ok {
			for _, v := range list {
				walkSchemas(v, f)
			}
		}
	}
	for _, k := range schemaOnes {
		switch v := m[k].(type) {
		case map[string]any:
			walkSchemas(v, f)
		case []any: // draft 4-7 tuple items
			for _, e := range v {
				walkSchemas(e, f)
			}
		}
	}
}

// closeObject applies OpenAI's strict mode to an object schema: what it
// leaves unsaid is said the strict way, no other property and every
// property required. What it says is kept.
func closeObject(m map[string]any) {
	props, ok := m["properties"].(map[string]any)
	if !ok && m["type"] != "object" {
		return
	}
	if _, said := m["additionalProperties"]; !said {
		m["additionalProperties"] = false
	}
	if _, said := m["required"]; !said && len(props) > 0 {
		names := make([]any, 0, len(props))
		for _, k := range slices.Sorted(maps.Keys(props)) {
			names = append(names, k)
		}
		m["required"] = names
	}
}

// fromOpenAPI translates Gemini's schema (an OpenAPI 3.0 subset:
// https://ai.google.dev/api/caching#Schema) into JSON Schema: types are
// upper case ("OBJECT", "STRING"), "nullable": true adds null, and the
// proto encoding may write integer bounds as strings ("minItems": "1").
func fromOpenAPI(doc any) any {
	walkSchemas(doc, func(m map[string]any) {
		if t, ok := m["type"].(string); ok {
			switch t = strings.ToLower(t); t {
			case "", "type_unspecified":
				delete(m, "type")
			default:
				m["type"] = t
			}
		}
		for _, k := range []string{"minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"} {
			if s, ok := m[k].(string); ok {
				m[k] = jsonNumber(s)
			}
		}
		if m["nullable"] == true {
			if t, ok := m["type"].(string); ok {
				m["type"] = []any{t, "null"}
			}
			if enum, ok := m["enum"].([]any); ok {
				m["enum"] = append(enum, nil)
			}
		}
		delete(m, "nullable")
		delete(m, "propertyOrdering")
	})
	return doc
}

// validateArgs validates a call's arguments; it returns the failures,
// each naming the JSON pointer of the failing value, the message and the
// schema keyword, or nil when the arguments pass (or are not JSON: the
// dialect's rules report that). A failure of the schema itself, found
// only while validating (a "$ref" cycle), is invalid instead.
func validateArgs(sch *jsonschema.Schema, args string) (problems []string, invalid string) {
	defer func() {
		if p := recover(); p != nil {
			problems, invalid = nil, fmt.Sprintf("the validator failed on it: %v", p)
		}
	}()
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
	if err != nil {
		return nil, ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(sch.Validate(inst), &ve) {
		return nil, ""
	}
	for _, leaf := range leaves(ve, nil) {
		if _, cycle := leaf.ErrorKind.(*kind.RefCycle); cycle {
			return nil, oneLine(leaf.ErrorKind.LocalizedString(english))
		}
		problems = append(problems, describe(leaf))
	}
	if len(problems) == 0 {
		problems = []string{describe(ve)}
	}
	return problems, ""
}

// leaves collects the failures that explain an error: the innermost ones,
// except that an anyOf or oneOf that failed is one failure (its branches'
// reasons would only list what every branch wanted).
func leaves(e *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		return append(out, e)
	}
	if len(e.Causes) == 0 {
		if _, whole := e.ErrorKind.(*kind.Schema); whole {
			return out
		}
		return append(out, e)
	}
	for _, c := range e.Causes {
		out = leaves(c, out)
	}
	return out
}

var english = message.NewPrinter(language.English)

// describe writes one failure: `/units: value must be one of "c", "f"
// [enum]`.
func describe(e *jsonschema.ValidationError) string {
	s := pointer(e.InstanceLocation) + ": " + cut(oneLine(e.ErrorKind.LocalizedString(english)), 160)
	if kw := e.ErrorKind.KeywordPath(); len(kw) > 0 {
		s += " [" + strings.Join(kw, "/") + "]"
	}
	return s
}

// pointer writes a JSON pointer (RFC 6901); the whole value is "(root)",
// since its pointer, "", reads as nothing.
func pointer(tokens []string) string {
	if len(tokens) == 0 {
		return "(root)"
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return cut(b.String(), 120)
}

// oneLine keeps a message on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cut shortens s to at most n runes.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// jsonNumber reads a bound written as a string, as the validator's values
// hold numbers; anything else stays the string (and fails to compile).
func jsonNumber(s string) any {
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return json.Number(s)
	}
	return s
}
