package capture

import (
	"strings"
	"testing"
)

// A cassette as vcrpy's httpx support writes it, in the shape of
// DataDog/dd-trace-py's tests/contrib/openai/cassettes/v1/
// chat_completion_tool_call_streamed.yaml (and 39 more there; not copied):
// the response keeps its body under `content`, a string (not
// `body: {string: …}`), its status as `status_code`, its protocol as
// `http_version`, and the headers the server sent, Content-Encoding: gzip
// included, although the text is what httpx already inflated:
//
//	  response:
//	    content: 'data: {"id":"chatcmpl-…","object":"chat.completion.chunk",…}
//
//
//	      data: …
//	      '
//	    headers:
//	      Content-Encoding:
//	      - gzip
//	      Content-Type:
//	      - text/event-stream
//	    http_version: HTTP/1.1
//	    status_code: 200
//	version: 1
//
// Its error cassettes hold a JSON body the same way, double-quoted.
const contentCassette = `interactions:
- request:
    body: '{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Weather
      in Paris?"}], "stream": true}'
    headers:
      authorization:
      - Bearer sk-SECRET
      content-type:
      - application/json
    method: POST
    uri: https://api.openai.com/v1/chat/completions
  response:
    content: 'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}


      data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":null}]}


      data: [DONE]


      '
    headers:
      Content-Encoding:
      - gzip
      Content-Type:
      - text/event-stream; charset=utf-8
    http_version: HTTP/1.1
    status_code: 200
- request:
    body: '{"model": "gpt-4o-mini", "messages": []}'
    headers: {}
    method: POST
    uri: https://api.openai.com/v1/chat/completions
  response:
    content: "{\n    \"error\": {\n        \"message\": \"Incorrect API key provided\",\n
      \       \"code\": \"invalid_api_key\"\n    }\n}\n"
    headers:
      Content-Type:
      - application/json; charset=utf-8
    http_version: HTTP/1.1
    status_code: 401
version: 1
`

// TestCassetteContentBody reads that shape: both interactions, their
// bodies, statuses and protocol, the SSE body as the text it is (not
// inflated by its header, with no note). Before, the bodies and statuses
// were not read: two sessions with no stream and status 0.
func TestCassetteContentBody(t *testing.T) {
	t.Parallel()
	a := readArchive(t, []byte(contentCassette), ArchiveOptions{})
	if len(a.Entries) != 2 {
		t.Fatalf("%d entries; want 2", len(a.Entries))
	}
	sse, errJSON := a.Entries[0], a.Entries[1]
	body := string(sse.Bytes())
	if sse.Status != 200 || sse.Proto != "HTTP/1.1" || !strings.HasPrefix(body, `data: {"id":"chatcmpl-1"`) ||
		!strings.Contains(body, `"arguments":"{\"city\":\"Paris\"}"`) || !strings.HasSuffix(body, "data: [DONE]\n\n") || strings.Count(body, "\n\n") != 3 {
		t.Errorf("entry 0: %s %s, body %q", sse.String(), sse.Proto, body)
	}
	if sse.Note != "" || len(sse.Decoded) != 0 {
		t.Errorf("the content is text already: note %q, decoded %q; want neither", sse.Note, sse.Decoded)
	}
	if got := sse.RequestHeader.Get("Authorization"); got != Redacted {
		t.Errorf("authorization = %q; want it redacted", got)
	}
	if errJSON.Status != 401 || string(errJSON.Bytes()) != "{\n    \"error\": {\n        \"message\": \"Incorrect API key provided\",\n        \"code\": \"invalid_api_key\"\n    }\n}\n" {
		t.Errorf("entry 1: %s, body %q", errJSON.String(), errJSON.Bytes())
	}
}
