// Package sariftest validates SARIF logs against the published SARIF
// 2.1.0 schema, for the tests of suite (which writes them) and cli (which
// prints them): both hold the same log to the same schema, formats
// asserted.
package sariftest

import (
	"bytes"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema compiles the schema kept in file (suite/testdata's copy of the
// published one), whose $id is id.
func Schema(t testing.TB, file, id string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// Validate fails the test when out is not a SARIF 2.1.0 log.
func Validate(t testing.TB, sch *jsonschema.Schema, out []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("not valid SARIF 2.1.0: %v\n%s", err, out)
	}
}
