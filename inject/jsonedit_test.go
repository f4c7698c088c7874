package inject

import "testing"

func TestJSONEdits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    func(doc []byte) ([]byte, bool)
		in   string
		want string
	}{
		{"set keeps the rest", func(d []byte) ([]byte, bool) { return setString(d, "x", "a", "b") },
			`{"a": {"b": "y", "c": 1}, "d": [1, 2]}`, `{"a": {"b": "x", "c": 1}, "d": [1, 2]}`},
		{"set in an array", func(d []byte) ([]byte, bool) { return setInt(d, 9, "d", 1) },
			`{"d":[1,2,3]}`, `{"d":[1,9,3]}`},
		{"del first member", func(d []byte) ([]byte, bool) { return del(d, "a") }, `{"a":1, "b":2}`, `{"b":2}`},
		{"del middle member", func(d []byte) ([]byte, bool) { return del(d, "b") }, `{"a":1,"b":2,"c":3}`, `{"a":1,"c":3}`},
		{"del last member", func(d []byte) ([]byte, bool) { return del(d, "c") }, `{"a":1, "c":3 }`, `{"a":1 }`},
		{"del only member", func(d []byte) ([]byte, bool) { return del(d, "a") }, `{"a":{"x":[1]}}`, `{}`},
		{"del element", func(d []byte) ([]byte, bool) { return del(d, "o", 1) }, `{"o":[{"i":0},{"i":1}]}`, `{"o":[{"i":0}]}`},
		{"del escaped key", func(d []byte) ([]byte, bool) { return del(d, `k\"q`) }, `{"k\"q":1,"z":2}`, `{"z":2}`},
		{"del absent", func(d []byte) ([]byte, bool) { return del(d, "q") }, `{"a":1}`, `{"a":1}`},
		{"add to empty", func(d []byte) ([]byte, bool) { return add(d, "k", []byte("true"), "o") }, `{"o":{}}`, `{"o":{"k":true}}`},
		{"add first", func(d []byte) ([]byte, bool) { return add(d, "k", []byte("1")) }, `{"a":2}`, `{"k":1,"a":2}`},
		{"add replaces", func(d []byte) ([]byte, bool) { return add(d, "a", []byte("3")) }, `{"a":2}`, `{"a":3}`},
		{"append", func(d []byte) ([]byte, bool) { return appendElem(d, []byte("3"), "l") }, `{"l":[1,2]}`, `{"l":[1,2,3]}`},
		{"append to empty", func(d []byte) ([]byte, bool) { return appendElem(d, []byte("3"), "l") }, `{"l":[ ]}`, `{"l":[ 3]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, _ := tc.f([]byte(tc.in))
			if string(got) != tc.want {
				t.Errorf("%s(%s) = %s; want %s", tc.name, tc.in, got, tc.want)
			}
		})
	}
}

func TestChangedValue(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`"a"`:                `"a (changed)"`,
		`41`:                 `42`,
		`true`:               `false`,
		`{}`:                 `{"changed":true}`,
		`[]`:                 `[true]`,
		`{"a":null,"b":"x"}`: `{"a":null,"b":"x (changed)"}`,
		`{"a":{"b":[1]}}`:    `{"a":{"b":[2]}}`,
	} {
		if got := string(changedValue([]byte(in))); got != want {
			t.Errorf("changedValue(%s) = %s; want %s", in, got, want)
		}
	}
	if got := changedArgs("not json"); got != `{"changed":true}` {
		t.Errorf("changedArgs(not json) = %s", got)
	}
}
