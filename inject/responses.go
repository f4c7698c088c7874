package inject

import (
	"slices"
	"strconv"

	"github.com/streamtap/streamtap/model"
)

// responsesDefects are the defects of OpenAI Responses streams.
var responsesDefects = append(sseFraming(), []variant{
	{"event-name-mismatch", "framing/event-name-mismatch", nameMismatch(&dResponses), nil},
	{"keepalive-flood", "", commentFlood(": keepalive"), nil},
	{"midstream-error", "framing/error-payload", respError, nil},
	{"start-late", "responses/first-not-created", respStartLate, nil},
	{"cut-terminal", "responses/no-terminal", respCutTerminal, nil},
	// The model reads a snapshot after a terminal event as a response of
	// its own (a WebSocket's next turn), which lacks response.created.
	{"terminal-twice", "responses/terminal-repeated", respTerminalTwice, nil},
	{"after-terminal", "responses/events-after-terminal", respAfterTerminal, nil},
	{"done-sentinel", "responses/done-sentinel", respDoneSentinel, nil},
	{"done-before-terminal", "responses/done-before-terminal", respDoneBefore, nil},
	{"status-mismatch", "responses/terminal-status-mismatch", respStatusMismatch, nil},
	{"status-regress", "responses/response-status", respStatusRegress, nil},
	{"response-id-switch", "responses/response-id-changed", respIDSwitch, nil},
	{"output-empty", "responses/terminal-output-empty", respOutputEmpty, nil},
	{"output-drop", "responses/terminal-output-mismatch", respOutputDrop, nil},
	{"unknown-event", "responses/non-standard-event", respUnknown, nil},
	{"seq-drop", "responses/seq-missing", respSeqDrop, nil},
	{"seq-swap", "responses/seq-not-increasing", respSeqSwap, nil},
	{"seq-gap", "responses/seq-gap", respSeqGap, nil},
	// The model keeps the events of an item never added apart from the
	// terminal output[]'s entry for it, which it then reads as an item
	// never streamed.
	{"added-drop", "responses/item-not-added", respAddedDrop, nil},
	{"index-negative", "responses/bad-index", respIndexNegative, nil},
	{"output-order", "responses/bad-index", respOutputOrder, nil},
	{"item-id-switch", "responses/item-id-changed", respItemIDSwitch, nil},
	{"item-id-drop", "responses/item-id-missing", respItemIDDrop, nil},
	{"item-status", "responses/item-status", respItemStatus, nil},
	{"item-done-drop", "responses/item-done-missing", respItemDoneDrop, nil},
	{"item-done-twice", "responses/item-done-twice", respItemDoneTwice, nil},
	{"call-id-drop", "responses/call-id-missing", respCallIDDrop, nil},
	{"call-id-switch", "responses/call-id-changed", respCallIDSwitch, nil},
	{"name-late", "responses/name-late", respNameLate, nil},
	{"name-switch", "responses/name-changed", respNameSwitch, nil},
	{"args-differ", "responses/args-done-mismatch", respArgsDiffer, nil},
	{"text-differ", "responses/text-done-mismatch", respTextDiffer, nil},
	{"args-truncated", "responses/args-invalid-json", respArgsTruncated, nil},
	{"args-done-only", "responses/args-done-only", respArgsDoneOnly, nil},
	{"args-in-added", "responses/args-in-added", respArgsInAdded, nil},
}...)

// respItem is one output item of the stream's first response, by the
// events that name it (-1 for an event it lacks).
type respItem struct {
	id, typ  string
	callID   string
	index    int
	added    int
	done     int
	argsDone int
	textDone int
	partDone int
	deltas   []int // function_call_arguments.delta, output_text.delta
	events   []int // every event that names it
}

// respIndex is the first response of a Responses stream, by its events.
type respIndex struct {
	created, inProgress, terminal, sentinel int
	items                                   []*respItem
	seqs                                    []int // events with a sequence_number, in order
}

// terminalTypes are the Responses events that end a response.
var terminalTypes = []string{"response.completed", "response.incomplete", "response.failed"}

func (e *edit) responses() *respIndex {
	x := &respIndex{created: -1, inProgress: -1, terminal: -1, sentinel: -1}
	byID := map[string]*respItem{}
	byIndex := map[int]*respItem{}
	for i, ev := range e.st.Events {
		if ev.Type == model.TypeDone && x.sentinel < 0 {
			x.sentinel = i
		}
		if ev.Dialect != dResponses || ev.Doc == nil || x.terminal >= 0 {
			continue
		}
		if _, ok := getInt(ev.Doc, "sequence_number"); ok {
			x.seqs = append(x.seqs, i)
		}
		switch {
		case ev.Type == "response.created":
			x.created = i
		case ev.Type == "response.in_progress":
			x.inProgress = i
		case slices.Contains(terminalTypes, ev.Type):
			x.terminal = i
			continue
		}
		id, hasID := getString(ev.Doc, "item_id")
		if ev.Type == "response.output_item.added" || ev.Type == "response.output_item.done" {
			id, hasID = getString(ev.Doc, "item", "id")
		}
		oi, hasIndex := getInt(ev.Doc, "output_index")
		it := byID[id]
		if it == nil && hasIndex {
			it = byIndex[oi]
		}
		if it == nil && (hasID || hasIndex) {
			it = &respItem{id: id, index: oi, added: -1, done: -1, argsDone: -1, textDone: -1, partDone: -1}
			x.items = append(x.items, it)
		}
		if it == nil {
			continue
		}
		if hasID {
			byID[id] = it
		}
		if hasIndex {
			byIndex[oi] = it
		}
		it.events = append(it.events, i)
		switch ev.Type {
		case "response.output_item.added":
			it.added = i
			it.typ, _ = getString(ev.Doc, "item", "type")
			it.callID, _ = getString(ev.Doc, "item", "call_id")
		case "response.output_item.done":
			it.done = i
			if it.typ == "" {
				it.typ, _ = getString(ev.Doc, "item", "type")
			}
		case "response.function_call_arguments.done":
			it.argsDone = i
		case "response.function_call_arguments.delta", "response.output_text.delta":
			it.deltas = append(it.deltas, i)
		case "response.output_text.done":
			it.textDone = i
		case "response.content_part.done":
			it.partDone = i
		}
	}
	return x
}

// calls lists the function_call items.
func (x *respIndex) calls() []*respItem {
	var out []*respItem
	for _, it := range x.items {
		if it.typ == "function_call" {
			out = append(out, it)
		}
	}
	return out
}

// pickItem chooses one of items.
func (e *edit) pickItem(items []*respItem, what string) (*respItem, error) {
	cands := make([]int, len(items))
	for k := range items {
		cands[k] = k
	}
	k, err := e.pick(cands)
	if err != nil {
		e.note = "no " + what
		return nil, err
	}
	return items[k], nil
}

// terminalOutput returns the position of the item in the terminal
// snapshot's output[] (by its id, else its call_id, else its output
// index), or -1.
func (e *edit) terminalOutput(x *respIndex, it *respItem) int {
	if x.terminal < 0 {
		return -1
	}
	doc := e.st.Events[x.terminal].Doc
	n := count(doc, "response", "output")
	for _, key := range []string{"id", "call_id"} {
		want := it.id
		if key == "call_id" {
			want = it.callID
		}
		for k := range n {
			if v, _ := getString(doc, "response", "output", k, key); v == want && v != "" {
				return k
			}
		}
	}
	if it.index >= 0 && it.index < n {
		return it.index
	}
	return -1
}

// seqOf returns the sequence_number of event i, or -1.
func (e *edit) seqOf(i int) int {
	if n, ok := getInt(e.st.Events[i].Doc, "sequence_number"); ok {
		return n
	}
	return -1
}

// respEvent returns a new Responses event like event i of type typ,
// numbered seq (none when seq < 0).
func (e *edit) respEvent(i int, typ string, seq int, rest string) *Event {
	doc := `{"type":` + string(quote(typ))
	if seq >= 0 {
		doc += `,"sequence_number":` + strconv.Itoa(seq)
	}
	if rest != "" {
		doc += "," + rest
	}
	return e.like(i, []byte(doc+"}"), typ)
}

func respError(e *edit) error {
	x := e.responses()
	if x.terminal < 0 || x.created < 0 {
		return errNoPlace
	}
	first := x.created + 1
	if len(x.items) > 0 && len(x.items[0].deltas) > 0 {
		first = x.items[0].deltas[0]
	}
	cands := slices.DeleteFunc(e.midstreamCands(first, x.terminal), func(i int) bool {
		for _, it := range x.calls() {
			if len(it.deltas) > 0 && it.deltas[0] <= i && i < it.deltas[len(it.deltas)-1] {
				return true // mid-arguments: the cut arguments would not parse
			}
		}
		return false
	})
	i, err := e.pick(cands)
	if err != nil {
		return err
	}
	seq := e.seqOf(i)
	next := func() int {
		if seq < 0 {
			return -1
		}
		seq++
		return seq
	}
	errEv := e.respEvent(i, "error", next(), `"error":{"type":"server_error","code":"server_error","message":"The server had an error processing your request. Sorry about that!","param":null}`)
	snap := get(e.st.Events[x.created].Doc, "response")
	snap, _ = setString(snap, "failed", "status")
	snap, _ = set(snap, []byte(`{"code":"server_error","message":"The server had an error processing your request. Sorry about that!"}`), "error")
	failed := e.respEvent(i, "response.failed", next(), `"response":`+string(snap))
	e.cutWith(i, errEv, failed)
	e.note = "cut after the chosen event: error (server_error), then response.failed"
	return nil
}

func respStartLate(e *edit) error {
	x := e.responses()
	next := x.created + 1
	if x.created < 0 || x.inProgress != next {
		e.note = "response.created is not followed by response.in_progress"
		return errNoPlace
	}
	// The two trade places and numbers: in_progress comes first, with
	// created's number, so that the numbers still rise.
	sa, sb := e.seqOf(x.created), e.seqOf(next)
	created := e.st.Events[x.created].Doc
	if sa >= 0 && sb >= 0 {
		e.change(next, func(doc []byte) ([]byte, bool) { return setInt(doc, sa, "sequence_number") })
		created, _ = setInt(created, sb, "sequence_number")
	}
	e.remove(x.created)
	e.insertAfter(next, e.like(x.created, created, "response.created"))
	e.note = "response.in_progress sent before response.created"
	return nil
}

func respCutTerminal(e *edit) error {
	x := e.responses()
	if x.terminal < 0 || e.st.Events[x.terminal].Type == "response.failed" {
		e.note = "no response.completed or response.incomplete (a failed response's error tells its end)"
		return errNoPlace
	}
	e.removeFrom(x.terminal)
	e.note = "cut at " + e.st.Events[x.terminal].Type
	return nil
}

func respTerminalTwice(e *edit) error {
	x := e.responses()
	if x.terminal < 0 {
		return errNoPlace
	}
	t := e.st.Events[x.terminal]
	doc := t.Doc
	if s := e.seqOf(x.terminal); s >= 0 {
		doc, _ = setInt(doc, s+1, "sequence_number")
	}
	e.insertAfter(x.terminal, e.like(x.terminal, doc, t.Type))
	e.note = t.Type + " sent again"
	return nil
}

func respAfterTerminal(e *edit) error {
	x := e.responses()
	if x.terminal < 0 {
		return errNoPlace
	}
	seq := e.seqOf(x.terminal)
	if seq >= 0 {
		seq++
	}
	e.insertAfter(x.terminal, e.respEvent(x.terminal, "keepalive", seq, ""))
	e.note = "a keepalive event after " + e.st.Events[x.terminal].Type
	return nil
}

func respDoneSentinel(e *edit) error {
	x := e.responses()
	if x.terminal < 0 || x.sentinel >= 0 {
		return errNoPlace
	}
	e.insertAfter(x.terminal, e.doneEvent(x.terminal))
	e.note = "data: [DONE] after the terminal event"
	return nil
}

func respDoneBefore(e *edit) error {
	x := e.responses()
	if x.terminal < 0 {
		return errNoPlace
	}
	e.insertBefore(x.terminal, e.doneEvent(x.terminal))
	e.note = "data: [DONE] before the terminal event"
	return nil
}

// changeTerminal applies f to the terminal snapshot.
func (e *edit) changeTerminal(f func(doc []byte) ([]byte, bool), note string) error {
	x := e.responses()
	if x.terminal < 0 || !e.change(x.terminal, f) {
		return errNoPlace
	}
	e.note = note
	return nil
}

func respStatusMismatch(e *edit) error {
	return e.changeTerminal(func(doc []byte) ([]byte, bool) {
		typ, _ := getString(doc, "type")
		status := "incomplete"
		if typ == "response.incomplete" {
			status = "completed"
		}
		return setString(doc, status, "response", "status")
	}, "the terminal event's response.status disagrees with its type")
}

func respStatusRegress(e *edit) error {
	x := e.responses()
	if x.inProgress < 0 || x.created < 0 {
		e.note = "no response.in_progress"
		return errNoPlace
	}
	if !e.change(x.inProgress, func(doc []byte) ([]byte, bool) { return setString(doc, "queued", "response", "status") }) {
		return errNoPlace
	}
	e.note = "response.in_progress says queued after response.created said in_progress"
	return nil
}

func respIDSwitch(e *edit) error {
	return e.changeTerminal(func(doc []byte) ([]byte, bool) {
		id, ok := getString(doc, "response", "id")
		if !ok {
			return doc, false
		}
		return setString(doc, id+"_2", "response", "id")
	}, "the terminal snapshot names another response id")
}

func respOutputEmpty(e *edit) error {
	x := e.responses()
	if len(x.items) == 0 {
		return errNoPlace
	}
	return e.changeTerminal(func(doc []byte) ([]byte, bool) {
		if count(doc, "response", "output") == 0 {
			return doc, false
		}
		return set(doc, []byte("[]"), "response", "output")
	}, "the terminal output[] is empty")
}

func respOutputDrop(e *edit) error {
	return e.changeTerminal(func(doc []byte) ([]byte, bool) {
		n := count(doc, "response", "output")
		if n < 2 {
			return doc, false // dropping the only item empties output[]: output-empty
		}
		return del(doc, "response", "output", n-1)
	}, "the terminal output[] loses its last item")
}

func respUnknown(e *edit) error {
	x := e.responses()
	if x.terminal < 0 {
		return errNoPlace
	}
	i, err := e.pick(e.midstreamCands(x.created+1, x.terminal+1))
	if err != nil {
		return err
	}
	e.insertBefore(i, e.respEvent(i, "response.keep_alive", -1, ""))
	e.note = "a response.keep_alive event (no sequence_number)"
	return nil
}

func respSeqDrop(e *edit) error {
	x := e.responses()
	i, err := e.pick(x.seqs)
	if err != nil {
		return err
	}
	e.change(i, func(doc []byte) ([]byte, bool) { return del(doc, "sequence_number") })
	e.note = "sequence_number dropped"
	return nil
}

func respSeqSwap(e *edit) error {
	x := e.responses()
	var cands []int
	for k := 0; k+1 < len(x.seqs); k++ {
		cands = append(cands, k)
	}
	k, err := e.pick(cands)
	if err != nil {
		return err
	}
	a, b := x.seqs[k], x.seqs[k+1]
	sa, sb := e.seqOf(a), e.seqOf(b)
	e.change(a, func(doc []byte) ([]byte, bool) { return setInt(doc, sb, "sequence_number") })
	e.change(b, func(doc []byte) ([]byte, bool) { return setInt(doc, sa, "sequence_number") })
	e.note = "two neighbours trade sequence numbers"
	return nil
}

func respSeqGap(e *edit) error {
	x := e.responses()
	if len(x.seqs) == 0 {
		return errNoPlace
	}
	i := x.seqs[len(x.seqs)-1]
	if x.terminal >= 0 {
		i = x.terminal
	}
	s := e.seqOf(i)
	if s < 0 {
		return errNoPlace
	}
	e.change(i, func(doc []byte) ([]byte, bool) { return setInt(doc, s+10, "sequence_number") })
	e.note = "the last event numbered 10 past the one before it"
	return nil
}
