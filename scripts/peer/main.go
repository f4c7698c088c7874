//go:build goexperiment.jsonv2

// Command peer is the yardstick scripts/bench.sh measures streamtap calls
// --json against: the least a program must do to report the tool calls of
// a stream, written the way a fast hand-written reader would be. It frames
// SSE by hand (lines, event: and data: fields, a blank line ends an event),
// decodes every event with encoding/json/v2 into a struct made for its
// event type (so each event is validated and only the members the calls
// need are kept), concatenates each call's argument fragments and writes
// the calls as JSON lines. It knows one dialect at a time (-dialect) and
// none of streamtap's checks, indexes or views.
//
//	GOEXPERIMENT=jsonv2 go build -o /tmp/peer ./scripts/peer
//	/tmp/peer -dialect anthropic FILE >/dev/null
//
// Its exit status is 1 when an event did not decode (it goes on), 2 on
// error; the last line on stderr says how many events and calls it read.
package main

import (
	"bufio"
	"bytes"
	"encoding/json/jsontext"
	json "encoding/json/v2"
	"flag"
	"fmt"
	"io"
	"os"
)

// call is one tool call, as the peer reports it.
type call struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	args      []byte
}

// calls assembles the calls of one stream, keyed as its dialect keys them:
// by item id (Responses), by message or completion and block or choice and
// index (Anthropic, Chat).
type calls struct {
	open map[key]*call
	all  []*call
}

type key struct {
	id      string
	n, a, b int
}

func (c *calls) start(key key, id, name string, initial []byte) *call {
	cl := &call{ID: id, Name: name, args: append([]byte(nil), initial...)}
	c.open[key] = cl
	c.all = append(c.all, cl)
	return cl
}

func (c *calls) add(key key, frag string) {
	if cl := c.open[key]; cl != nil {
		cl.args = append(cl.args, frag...)
	}
}

// The events of each dialect the peer reads, one struct per event type.
type (
	respItemAdded struct {
		Item struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			CallID    string `json:"call_id"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"item"`
	}
	respArgsDelta struct {
		ItemID string `json:"item_id"`
		Delta  string `json:"delta"`
	}
	anthBlockStart struct {
		Index        int `json:"index"`
		ContentBlock struct {
			Type string `json:"type"`
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"content_block"`
	}
	anthBlockDelta struct {
		Index int `json:"index"`
		Delta struct {
			Type        string `json:"type"`
			PartialJSON string `json:"partial_json"`
			Text        string `json:"text"`
		} `json:"delta"`
	}
	anthMessageStart struct {
		Message struct {
			ID string `json:"id"`
		} `json:"message"`
	}
	chatChunk struct {
		ID      string `json:"id"`
		Choices []struct {
			Index int `json:"index"`
			Delta struct {
				Content   *string `json:"content"`
				ToolCalls []struct {
					Index    int    `json:"index"`
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
	}
	// typed is every other event: decoded (and so validated) for its type.
	typed struct {
		Type string `json:"type"`
	}
)

// reader holds one stream's state: the calls and, for Anthropic and Chat,
// the message or completion the indexes belong to.
type reader struct {
	dialect string
	calls   calls
	message int // messages (Anthropic) or completions (Chat) so far
	lastID  string
	events  int
	bad     int
}

func (r *reader) keyOf(a, b int) key { return key{n: r.message, a: a, b: b} }

// event handles one event's name and data.
func (r *reader) event(name, data []byte) {
	if len(data) == 0 || bytes.Equal(data, []byte("[DONE]")) {
		return
	}
	r.events++
	var err error
	switch r.dialect {
	case "responses":
		switch string(name) {
		case "response.output_item.added":
			var e respItemAdded
			if err = json.Unmarshal(data, &e); err == nil && e.Item.Type == "function_call" {
				r.calls.start(key{id: e.Item.ID}, e.Item.CallID, e.Item.Name, []byte(e.Item.Arguments))
			}
		case "response.function_call_arguments.delta":
			var e respArgsDelta
			if err = json.Unmarshal(data, &e); err == nil {
				r.calls.add(key{id: e.ItemID}, e.Delta)
			}
		default:
			var e typed
			err = json.Unmarshal(data, &e)
		}
	case "anthropic":
		switch string(name) {
		case "message_start":
			var e anthMessageStart
			err = json.Unmarshal(data, &e)
			r.message++
		case "content_block_start":
			var e anthBlockStart
			if err = json.Unmarshal(data, &e); err == nil && e.ContentBlock.Type == "tool_use" {
				r.calls.start(r.keyOf(e.Index, 0), e.ContentBlock.ID, e.ContentBlock.Name, nil)
			}
		case "content_block_delta":
			var e anthBlockDelta
			if err = json.Unmarshal(data, &e); err == nil && e.Delta.Type == "input_json_delta" {
				r.calls.add(r.keyOf(e.Index, 0), e.Delta.PartialJSON)
			}
		default:
			var e typed
			err = json.Unmarshal(data, &e)
		}
	case "chat":
		var e chatChunk
		if err = json.Unmarshal(data, &e); err == nil {
			if e.ID != r.lastID {
				r.message++
				r.lastID = e.ID
			}
			for _, ch := range e.Choices {
				for _, tc := range ch.Delta.ToolCalls {
					if tc.ID != "" {
						r.calls.start(r.keyOf(ch.Index, tc.Index), tc.ID, tc.Function.Name, []byte(tc.Function.Arguments))
					} else {
						r.calls.add(r.keyOf(ch.Index, tc.Index), tc.Function.Arguments)
					}
				}
			}
		}
	}
	if err != nil {
		r.bad++
	}
}

// read frames in by hand: a field line is "name: value" (one space after
// the colon dropped), data lines join with "\n", a blank line dispatches.
func (r *reader) read(in io.Reader) error {
	br := bufio.NewReaderSize(in, 256<<10)
	var name, data []byte
	hasData := false
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: gather it whole.
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) == 0 && err != nil {
			if err == io.EOF {
				if hasData {
					r.event(name, data)
				}
				return nil
			}
			return err
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		switch {
		case len(line) == 0:
			if hasData {
				r.event(name, data)
			}
			name, data, hasData = name[:0], data[:0], false
		case line[0] == ':':
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "event":
				name = append(name[:0], value...)
			case "data":
				if hasData {
					data = append(data, '\n')
				}
				data, hasData = append(data, value...), true
			}
		}
		if err == io.EOF {
			if hasData {
				r.event(name, data)
			}
			return nil
		}
	}
}

func main() {
	dialect := flag.String("dialect", "", "the stream's dialect: responses, chat or anthropic")
	flag.Parse()
	if flag.NArg() != 1 || (*dialect != "responses" && *dialect != "chat" && *dialect != "anthropic") {
		fmt.Fprintln(os.Stderr, "usage: peer -dialect responses|chat|anthropic FILE")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "peer:", err)
		os.Exit(2)
	}
	defer f.Close()
	r := &reader{dialect: *dialect, calls: calls{open: map[key]*call{}}}
	if err := r.read(f); err != nil {
		fmt.Fprintln(os.Stderr, "peer:", err)
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	for _, c := range r.calls.all {
		c.Arguments = string(c.args)
		if err := json.MarshalWrite(w, c); err != nil {
			fmt.Fprintln(os.Stderr, "peer:", err)
			os.Exit(2)
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "peer:", err)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "peer: dialect=%s events=%d calls=%d undecoded=%d\n", *dialect, r.events, len(r.calls.all), r.bad)
	if r.bad > 0 {
		os.Exit(1)
	}
}

var _ jsontext.Value // the v2 module's text layer, which Unmarshal validates with
