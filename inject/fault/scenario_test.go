package fault

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want Fault
		err  string
	}{
		{in: "cut:3", want: Fault{Kind: Cut, N: 3}},
		{in: "cut:120b", want: Fault{Kind: Cut, N: 120, Bytes: true}},
		{in: "reset:0", want: Fault{Kind: Reset}},
		{in: "stall:2:1.5", want: Fault{Kind: Stall, N: 2, Wait: 1500 * time.Millisecond}},
		{in: "stall-inside:0:250ms", want: Fault{Kind: StallInside, Wait: 250 * time.Millisecond}},
		{in: "drip:64", want: Fault{Kind: Drip, Rate: 64}},
		{in: "bytewise", want: Fault{Kind: Bytewise}},
		{in: "status:529", want: Fault{Kind: Status, Status: 529, First: 1}},
		{in: "status:429:3", want: Fault{Kind: Status, Status: 429, First: 3}},
		{in: "retry-after:30", want: Fault{Kind: RetryAfter, Value: "30"}},
		{in: "content-type:application/json", want: Fault{Kind: ContentType, Value: "application/json"}},
		{in: " gzip ", want: Fault{Kind: Gzip}},
		{in: "http10", want: Fault{Kind: HTTP10}},
		{in: "explode", err: `unknown fault "explode"`},
		{in: "cut", err: "cut takes 1 argument"},
		{in: "cut:x", err: `"x" is not a number`},
		{in: "cut:-1", err: "a count under 0"},
		{in: "stall:2b:1", err: "a stall is after N events, not bytes"},
		{in: "stall:1:forever", err: "no number of seconds"},
		{in: "stall:1:2h", err: "a wait from 0 to 1h0m0s"},
		{in: "drip:0", err: "a rate under 1"},
		{in: "status:99", err: "a status from 200 to 599"},
		{in: "status:429:0", err: "(K) from 1"},
		{in: "gzip:9", err: "gzip takes 0 argument"},
	} {
		got, err := Parse(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) = %v; want an error with %q", tc.in, err, tc.err)
			}
		case err != nil || got != tc.want:
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		default:
			if again, err := Parse(got.String()); err != nil || again != got {
				t.Errorf("Parse(%q.String() = %q) = %+v, %v", tc.in, got.String(), again, err)
			}
		}
	}
}

// TestPlanOf: status:CODE:K answers requests 1…K, with the Retry-After;
// the requests after get the other faults.
func TestPlanOf(t *testing.T) {
	t.Parallel()
	fs, err := ParseList("status:429:2,retry-after:3,cut:4")
	if err != nil {
		t.Fatal(err)
	}
	p := PlanOf(fs, []string{"done-doubled"})
	for n, want := range map[int]string{1: "status:429:2 retry-after:3", 2: "status:429:2 retry-after:3", 3: "cut:4 inject done-doubled", 9: "cut:4 inject done-doubled"} {
		if got := describe(p.For(n)); got != want {
			t.Errorf("request %d: %q; want %q", n, got, want)
		}
	}
}

func TestParseScenario(t *testing.T) {
	t.Parallel()
	yamlText := `
requests:
  - faults: [status:429, retry-after:2]
  - faults: ["cut:5"]
  - inject: [done-doubled]
then:
  faults: [drip:100]
`
	jsonText := `{"requests":[{"faults":["status:429","retry-after:2"]},{"faults":["cut:5"]},{"inject":["done-doubled"]}],"then":{"faults":["drip:100"]}}`
	for name, text := range map[string]string{"yaml": yamlText, "json": jsonText} {
		p, err := ParseScenario([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for n, want := range map[int]string{1: "status:429 retry-after:2", 2: "cut:5", 3: "inject done-doubled", 4: "drip:100"} {
			if got := describe(p.For(n)); got != want {
				t.Errorf("%s request %d: %q; want %q", name, n, got, want)
			}
		}
		if len(p.Steps()) != 2 {
			t.Errorf("%s: %d steps of distinct defects; want 2 (none, and done-doubled)", name, len(p.Steps()))
		}
	}
	for text, want := range map[string]string{
		"requests:\n  - faults: [explode]\n":   `request 1: unknown fault "explode"`,
		"requests:\n  - inject: [nothing]\n":   `request 1: unknown defect "nothing"`,
		"then:\n  faults: [status:429:2]\n":    "K is for the command line",
		"request: []\n":                        "field request not found",
		"requests:\n  - faults: [cut:1]\n\t x": "scenario:",
	} {
		if _, err := ParseScenario([]byte(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseScenario(%q) = %v; want %q", text, err, want)
		}
	}
}

// TestScenarioRetryLoop drives a client's retry loop through a scenario:
// request 1 is refused with 429, request 2 is cut after an event, request
// 3 gets the stream.
func TestScenarioRetryLoop(t *testing.T) {
	t.Parallel()
	p, err := ParseScenario([]byte("requests:\n  - faults: [status:429]\n  - faults: [cut:1]\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, p, dialect("openai-chat"))
	var log []string
	for attempt := 1; attempt <= 5; attempt++ {
		resp, body, err := get(t, srv.URL, nil)
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			log = append(log, "429 retry-after "+resp.Header.Get("Retry-After"))
			continue
		case errors.Is(err, io.ErrUnexpectedEOF):
			log = append(log, "cut after "+strings.TrimSpace(string(body)))
			continue
		case err != nil:
			t.Fatal(err)
		}
		log = append(log, "stream of "+strings.Trim(string(body[len(body)-8:]), "\n"))
		break
	}
	want := []string{"429 retry-after 1", `cut after data: {"n":1}`, "stream of [DONE]"}
	if strings.Join(log, "|") != strings.Join(want, "|") {
		t.Errorf("the client saw %q; want %q", log, want)
	}
}
