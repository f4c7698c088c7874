package capture

// This file reads an archive from its file a piece at a time: one pass
// finds where each entry is, and each entry is read again from the file
// when it is asked for. Nothing but the entries' places is kept: a HAR
// file or a cassette of many sessions used to be held whole, then parsed
// whole, then copied into its entries (2.9 to 3.5 times its size).
//
// A HAR file is JSON: its entries are read one at a time from the log's
// entries array (encoding/json's Decoder). A cassette is YAML, which has
// no such reader: its interactions list is cut at the lines that start
// its items ("- " at the list's indentation), and each item is parsed on
// its own. A cassette this cannot cut soundly (a flow list, JSON, an item
// that does not parse alone, such as one whose alias names an anchor of
// another item) is parsed whole, as before, and its entries kept.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// archiveSlot is where one entry is in its file.
type archiveSlot struct {
	start, end int64
	index      int  // its position in the archive (Entry.Index)
	line       int  // a cassette item's first line
	keep       bool // it holds a stream or JSON (harEntryOf), and ArchiveOptions.Keep took it
	// m is the measurement of its compressed body, shared by every read
	// of it (nil until one was read).
	m *measurement
}

// OpenArchive reads the index of the archive in r (size bytes long): a
// HAR file or a cassette, as format says, or detected when format is
// FormatAuto. It keeps where each entry is, not the entries: Entry reads
// one from r when asked, so r must stay open and unchanged while the
// archive is used. Errors are ReadArchive's. Memory stays at one entry at
// a time, whatever the file's size, but for a cassette that cannot be
// cut into its items (see this file's comment), whose entries are read
// at once.
//
// Indexing takes seconds on a file of 100 MB, and reading one big entry
// (Entry, Source) a second: when ctx ends, OpenArchive, Entry and Source
// return ctx's error at once, and the work in progress stops at its next
// read of r (every read of r fails from then on), on a goroutine of its
// own that nothing waits for.
func OpenArchive(ctx context.Context, r io.ReaderAt, size int64, format Format, opt ArchiveOptions) (*Archive, error) {
	r = &ctxReaderAt{ctx: ctx, r: r}
	return interruptibly(ctx, func() (*Archive, error) { return openArchive(ctx, r, size, format, opt) })
}

func openArchive(ctx context.Context, r io.ReaderAt, size int64, format Format, opt ArchiveOptions) (*Archive, error) {
	if format == FormatAuto {
		head := make([]byte, min(size, archivePeek))
		n, _ := r.ReadAt(head, 0)
		format = DetectArchive(head[:n])
	}
	a := &Archive{Format: format, src: r, size: size, opt: opt, budget: newInflateBudget(opt), ctx: ctx}
	var err error
	switch format {
	case FormatHAR:
		err = a.indexHAR()
	case FormatCassette:
		err = a.indexCassette()
	case FormatHTTPRR:
		err = a.indexHTTPRR()
	default:
		return nil, ErrNotArchive
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}

// Len is the number of entries.
func (a *Archive) Len() int {
	if a.src == nil {
		return len(a.Entries)
	}
	return len(a.slots)
}

// Entry returns entry i, read from the archive's file for an archive
// OpenArchive indexed (a new Entry each time; its compressed body, if
// any, is measured once for all of them), or Entries[i].
func (a *Archive) Entry(i int) (*Entry, error) {
	if a.src == nil {
		return &a.Entries[i], nil
	}
	return interruptibly(a.context(), func() (*Entry, error) { return a.entry(i) })
}

func (a *Archive) entry(i int) (*Entry, error) {
	a.mu.Lock()
	s := a.slots[i]
	a.mu.Unlock()
	raw := make([]byte, s.end-s.start)
	if _, err := a.src.ReadAt(raw, s.start); err != nil && !(errors.Is(err, io.EOF) && len(raw) > 0) {
		return nil, fmt.Errorf("read entry %d: %w", s.index, err)
	}
	var e Entry
	switch a.Format {
	case FormatHAR:
		var he harEntry
		if err := json.Unmarshal(raw, &he); err != nil {
			return nil, fmt.Errorf("har: entry %d: %w", s.index, err)
		}
		e, _ = harEntryOf(&he, a.opt, a.budget, a.Own, true)
	default:
		it, err := parseItem(raw, s.line)
		if err != nil {
			return nil, fmt.Errorf("cassette: interactions[%d] (line %d): %w", s.index, s.line, err)
		}
		if e, err = cassetteEntry(deref(it), a.opt, a.budget, a.yamlLimit(), false); err != nil {
			return nil, fmt.Errorf("cassette: interactions[%d] (line %d): %w", s.index, line(it), err)
		}
	}
	e.Index = s.index
	if e.packed != nil {
		a.mu.Lock()
		if a.slots[i].m == nil {
			a.slots[i].m = e.packed.measurement
		} else {
			e.packed.measurement = a.slots[i].m
		}
		a.mu.Unlock()
	}
	return &e, nil
}

// Index is entry i's position in the archive (Entry.Index), without
// reading it.
func (a *Archive) Index(i int) int {
	if a.src == nil {
		return a.Entries[i].Index
	}
	return a.slots[i].index
}

// Source is Entry(i).Source(name), or a source whose Read fails with why
// the entry could not be read again.
func (a *Archive) Source(i int, name string) *Source {
	if a.src == nil {
		return a.Entries[i].Source(name)
	}
	// A compressed body is measured (inflated once) by Source.
	src, err := interruptibly(a.context(), func() (*Source, error) {
		e, err := a.entry(i)
		if err != nil {
			return nil, err
		}
		return e.Source(name), nil
	})
	if err != nil {
		return &Source{Name: name, Kind: SourceFile, archive: true, err: err}
	}
	return src
}

// context is the context the archive was opened with.
func (a *Archive) context() context.Context {
	if a.ctx == nil {
		return context.Background()
	}
	return a.ctx
}

// interruptibly returns what f returns, or ctx's error as soon as ctx
// ends, leaving f to end on its own goroutine: f's reads of an archive
// fail once ctx ended (ctxReaderAt), so it ends soon, and nothing reads
// what it builds.
func interruptibly[T any](ctx context.Context, f func() (T, error)) (T, error) {
	if ctx.Done() == nil {
		return f()
	}
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// ctxReaderAt is an archive's file, whose every read fails once ctx
// ended.
type ctxReaderAt struct {
	ctx context.Context
	r   io.ReaderAt
}

func (c *ctxReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.ReadAt(p, off)
}

// bufSize is the size of the buffers the archive's file is read through:
// 64 KiB, or the file's size when it is smaller.
func (a *Archive) bufSize() int {
	return int(max(min(a.size, 64<<10), 16))
}

// yamlLimit bounds the JSON a cassette's parsed_body may be written as.
func (a *Archive) yamlLimit() int {
	return yamlGrowth*int(min(a.size, 1<<40)) + yamlSlack
}

// indexHAR reads the HAR file's entries one at a time, keeping where each
// is and whether it is a session (harEntryOf).
func (a *Archive) indexHAR() error {
	var base int64
	var head [3]byte
	if n, _ := a.src.ReadAt(head[:], 0); n == len(bom) && bytes.Equal(head[:], bom) {
		base = int64(len(bom))
	}
	dec := json.NewDecoder(bufio.NewReaderSize(io.NewSectionReader(a.src, base, a.size-base), a.bufSize()))
	fail := func(err error, shift int64) error {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || errors.Is(err, io.ErrUnexpectedEOF) {
			// A Decoder's syntax errors count from where it last began
			// scanning, not from the file's start: the whole file,
			// unmarshalled as before, says where.
			return a.harSyntaxError(base, err)
		}
		return fmt.Errorf("har: %s", a.jsonErrorAt(base+shift, err))
	}
	if tok, err := dec.Token(); err != nil {
		return fail(err, 0)
	} else if tok != json.Delim('{') {
		return errors.New("har: no log object")
	}
	sawLog := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return fail(err, 0)
		}
		if key != "log" {
			if err := skipValue(dec); err != nil {
				return fail(err, 0)
			}
			continue
		}
		tok, err := dec.Token()
		switch {
		case err != nil:
			return fail(err, 0)
		case tok == nil:
			continue // "log": null
		case tok != json.Delim('{'):
			return errors.New("har: no log object")
		}
		sawLog = true
		if err := a.indexLog(dec, base, fail); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return fail(err, 0)
	}
	if !sawLog {
		return errors.New("har: no log object")
	}
	if err := a.harTrailer(base + dec.InputOffset()); err != nil {
		return err
	}
	kept := a.slots[:0]
	for _, s := range a.slots {
		switch {
		case s.keep || a.Own:
			kept = append(kept, s)
		case a.opt.Keep == nil:
			a.Skipped++
		}
	}
	a.slots = kept
	return nil
}

// indexLog reads the members of the log object, its opening brace read.
func (a *Archive) indexLog(dec *json.Decoder, base int64, fail func(error, int64) error) error {
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return fail(err, 0)
		}
		switch key {
		case "creator":
			var c struct {
				Name string `json:"name"`
			}
			if err := dec.Decode(&c); err != nil {
				return fail(err, 0)
			}
			a.Own = c.Name == harCreator
		case "entries":
			tok, err := dec.Token()
			if err != nil {
				return fail(err, 0)
			}
			if tok == nil {
				continue
			}
			if tok != json.Delim('[') {
				return fail(&json.UnmarshalTypeError{Value: "value", Type: nil, Offset: dec.InputOffset()}, 0)
			}
			for i := 0; dec.More(); i++ {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return fail(err, 0)
				}
				end := base + dec.InputOffset()
				start := end - int64(len(raw))
				var he harEntry
				if err := json.Unmarshal(raw, &he); err != nil {
					return fail(err, start-base)
				}
				s := archiveSlot{start: start, end: end, index: i}
				e, ok := harEntryOf(&he, a.opt, a.budget, false, a.opt.Keep != nil)
				s.keep = ok
				if ok && a.opt.Keep != nil {
					e.Index = i
					s.keep = a.opt.Keep(&e)
					if e.packed != nil {
						s.m = e.packed.measurement // Keep may have measured it
					}
				}
				a.slots = append(a.slots, s)
			}
			if _, err := dec.Token(); err != nil {
				return fail(err, 0)
			}
		default:
			if err := skipValue(dec); err != nil {
				return fail(err, 0)
			}
		}
	}
	_, err := dec.Token() // the log's closing brace
	if err != nil {
		return fail(err, 0)
	}
	return nil
}

// harTrailer reads what follows the HAR document, from offset end: a
// writer stopped inside an entry (see HAR) leaves the entry's start
// there, or the whole entry and the closing brackets again when it
// stopped just before linking it in. A whole entry is read as the log's
// last; anything else after the document is a cut entry, not read. Cut
// says which.
func (a *Archive) harTrailer(end int64) error {
	r := bufio.NewReaderSize(io.NewSectionReader(a.src, end, a.size-end), a.bufSize())
	skipped := int64(0)
	for {
		c, err := r.ReadByte()
		if err == io.EOF {
			return nil // nothing but space after the document
		}
		if err != nil {
			return err
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			_ = r.UnreadByte()
			break
		}
		skipped++
	}
	start := end + skipped
	rest := a.size - start - a.trailingSpace()
	entries := len(a.slots)
	dec := json.NewDecoder(io.NewSectionReader(a.src, start, a.size-start))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err == nil {
		tail := make([]byte, min(a.size-start-dec.InputOffset(), 64))
		n, _ := a.src.ReadAt(tail, start+dec.InputOffset())
		var he harEntry
		if string(bytes.TrimSpace(tail[:n])) == strings.TrimSpace(harTail) && json.Unmarshal(raw, &he) == nil {
			s := archiveSlot{start: start + dec.InputOffset() - int64(len(raw)), end: start + dec.InputOffset(), index: entries}
			e, ok := harEntryOf(&he, a.opt, a.budget, false, a.opt.Keep != nil)
			s.keep = ok
			if ok && a.opt.Keep != nil {
				e.Index = entries
				s.keep = a.opt.Keep(&e)
			}
			a.slots = append(a.slots, s)
			a.Cut = fmt.Sprintf("the last entry (%d) was written whole after the end of the HAR, as a writer stopped before it linked it in: it is read too", entries+1)
			return nil
		}
	}
	a.Cut = fmt.Sprintf("%d bytes after the end of the HAR are an entry cut while it was written (the writer was stopped inside it): not read; the %d entries before it are", rest, entries)
	return nil
}

// trailingSpace counts the white space that ends the file.
func (a *Archive) trailingSpace() int64 {
	var n int64
	buf := make([]byte, 256)
	for pos := a.size; pos > 0; {
		k := min(int64(len(buf)), pos)
		got, err := a.src.ReadAt(buf[:k], pos-k)
		if err != nil && got < int(k) {
			return n
		}
		for i := k - 1; i >= 0; i-- {
			switch buf[i] {
			case ' ', '\t', '\r', '\n':
				n++
			default:
				return n
			}
		}
		pos -= k
	}
	return n
}

// harSyntaxError reads the whole file to say where its syntax error is,
// as reading it whole did; err is what the Decoder found.
func (a *Archive) harSyntaxError(base int64, err error) error {
	data, rerr := io.ReadAll(io.NewSectionReader(a.src, base, a.size-base))
	if rerr != nil {
		return fmt.Errorf("har: %w", err)
	}
	var h harLog
	if uerr := json.Unmarshal(data, &h); uerr != nil {
		return fmt.Errorf("har: %s", jsonErrorAt(data, uerr))
	}
	return fmt.Errorf("har: %w", err)
}

// skipValue reads past the next JSON value, holding none of it but the
// decoder's buffer.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// jsonErrorAt says where in the file a JSON error is, as jsonErrorAt does
// for bytes in memory: the error's offset is shift bytes into the file.
func (a *Archive) jsonErrorAt(shift int64, err error) string {
	var off int64 = -1
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	if off < 0 || shift+off > a.size {
		return err.Error()
	}
	off += shift
	// Count the lines before off, a block at a time.
	ln, lastNL := 1, int64(-1)
	buf := make([]byte, a.bufSize())
	for pos := int64(0); pos < off; {
		n, rerr := a.src.ReadAt(buf[:min(int64(len(buf)), off-pos)], pos)
		for i, c := range buf[:n] {
			if c == '\n' {
				ln, lastNL = ln+1, pos+int64(i)
			}
		}
		pos += int64(n)
		if rerr != nil || n == 0 {
			break
		}
	}
	col := off - lastNL
	return fmt.Sprintf("line %d, column %d: %v", ln, col, err)
}

// indexCassette cuts the cassette's interactions list into its items and
// reads each once (an item that does not read is the file's error), or
// reads the whole cassette when it cannot be cut.
func (a *Archive) indexCassette() error {
	items, ok, err := cutCassette(bufio.NewReaderSize(io.NewSectionReader(a.src, 0, a.size), a.bufSize()))
	if err != nil {
		return err
	}
	var slots []archiveSlot
	if ok {
		for k, it := range items {
			raw := make([]byte, it.end-it.start)
			if _, err := a.src.ReadAt(raw, it.start); err != nil && !errors.Is(err, io.EOF) {
				return err
			}
			node, err := parseItem(raw, it.line)
			if err != nil {
				ok = false // say it as the whole parse does, or read what the cut missed
				break
			}
			e, err := cassetteEntry(deref(node), a.opt, a.budget, a.yamlLimit(), false)
			if err != nil {
				return fmt.Errorf("cassette: interactions[%d] (line %d): %w", k, line(node), err)
			}
			s := archiveSlot{start: it.start, end: it.end, index: k, line: it.line, keep: true}
			if a.opt.Keep != nil {
				e.Index = k
				s.keep = a.opt.Keep(&e)
				if e.packed != nil {
					s.m = e.packed.measurement
				}
			}
			slots = append(slots, s)
		}
	}
	if ok {
		for _, s := range slots {
			if s.keep {
				a.slots = append(a.slots, s)
			}
		}
		return nil
	}
	data, err := io.ReadAll(io.NewSectionReader(a.src, 0, a.size))
	if err != nil {
		return err
	}
	whole, err := readCassette(data, a.opt)
	if err != nil {
		return err
	}
	a.src, a.slots = nil, nil
	for _, e := range whole.Entries {
		if a.opt.Keep == nil || a.opt.Keep(&e) {
			a.Entries = append(a.Entries, e)
		}
	}
	return nil
}

// cassetteItem is where an item of the interactions list is.
type cassetteItem struct {
	start, end int64
	line       int
}

// yamlLine is what cutCassette looks at in a line: its start, its number,
// its indentation (spaces) and its first bytes after them.
type yamlLine struct {
	start  int64
	num    int
	indent int
	head   []byte // at most 24 bytes, without the line break
	blank  bool   // nothing but spaces, or a comment
}

// cutCassette finds the items of a block sequence under a top-level
// interactions (or http_interactions) key, reading r a line at a time
// (holding 24 bytes of each), in the file's first YAML document. ok is
// false when the list is not such a sequence, or the document looks
// otherwise than cutCassette can vouch for: the caller parses it whole.
func cutCassette(r *bufio.Reader) (items []cassetteItem, ok bool, err error) {
	const (
		seekKey = iota
		seekItem
		inItems
		after
	)
	state, indent, started, whole := seekKey, 0, false, false
	var end int64
	stop := func() bool { whole = true; return false }
	err = eachYAMLLine(r, func(l *yamlLine) bool {
		end = l.start
		topKey := l.indent == 0 && !l.blank && (bytes.HasPrefix(l.head, []byte("interactions:")) || bytes.HasPrefix(l.head, []byte("http_interactions:")))
		docMark := l.indent == 0 && (bytes.HasPrefix(l.head, []byte("---")) || bytes.HasPrefix(l.head, []byte("...")))
		if docMark && started {
			if state == inItems {
				items[len(items)-1].end = l.start
				state = after
			}
			return false // the first document ends here
		}
		if !l.blank && !docMark && !(l.indent == 0 && l.head[0] == '%') {
			started = true
		}
		switch state {
		case seekKey:
			if topKey {
				_, rest, _ := bytes.Cut(l.head, []byte(":"))
				if rest = bytes.TrimLeft(rest, " \t"); len(rest) > 0 && rest[0] != '#' {
					return stop() // a flow list, an anchor, a tag: parse it whole
				}
				state = seekItem
			}
		case seekItem:
			if l.blank {
				return true
			}
			if !isItemStart(l.head) {
				return stop()
			}
			state, indent = inItems, l.indent
			items = append(items, cassetteItem{start: l.start, line: l.num})
		case inItems:
			switch {
			case l.blank || l.indent > indent:
			case l.indent == indent && isItemStart(l.head):
				items[len(items)-1].end = l.start
				items = append(items, cassetteItem{start: l.start, line: l.num})
			case l.indent == indent && indent > 0, topKey:
				return stop() // neither an item nor the end of the list; the key again
			default:
				items[len(items)-1].end = l.start
				state = after
			}
		case after:
			if topKey {
				return stop()
			}
		}
		return true
	}, &end)
	switch {
	case err != nil:
		return nil, false, err
	case whole || state < inItems:
		return nil, false, nil
	case state == inItems:
		items[len(items)-1].end = end
	}
	return items, true, nil
}

// isItemStart says whether a line's content starts a sequence item: "-"
// then a space or the end of the line.
func isItemStart(head []byte) bool {
	return len(head) > 0 && head[0] == '-' && (len(head) == 1 || head[1] == ' ')
}

// eachYAMLLine calls f with each line of r until f returns false; *end is
// then the offset where reading stopped (the line f stopped at), or the
// size of r at its end.
func eachYAMLLine(br *bufio.Reader, f func(*yamlLine) bool, end *int64) error {
	var pos int64
	num := 0
	var head [24]byte
	for {
		num++
		l := yamlLine{start: pos, num: num}
		atStart, n := true, 0
		for {
			c, err := br.ReadByte()
			if err == io.EOF {
				if pos == l.start {
					*end = pos
					return nil // no line left
				}
				break
			}
			if err != nil {
				return err
			}
			pos++
			if c == '\n' {
				break
			}
			switch {
			case atStart && c == ' ':
				l.indent++
			default:
				atStart = false
				if n < len(head) && c != '\r' {
					head[n] = c
					n++
				}
			}
			if n == len(head) {
				// The rest of a long line is skipped a buffer at a time.
				skipped, err := skipLine(br)
				pos += skipped
				if err != nil && err != io.EOF {
					return err
				}
				break
			}
		}
		l.head = head[:n]
		l.blank = n == 0 || head[0] == '#'
		if !f(&l) {
			*end = l.start
			return nil
		}
		if pos == l.start {
			*end = pos
			return nil
		}
	}
}

// skipLine reads past the rest of a line, its newline included, and
// says how many bytes that was.
func skipLine(br *bufio.Reader) (int64, error) {
	var n int64
	for {
		b, err := br.ReadSlice('\n')
		n += int64(len(b))
		if err != bufio.ErrBufferFull {
			return n, err
		}
	}
}

// parseItem parses one item of a cassette's interactions list, cut from
// the file (raw starts with its "- " line, which is line first of the
// file), and returns the item's node with the file's line numbers.
func parseItem(raw []byte, first int) (n *yaml.Node, err error) {
	defer func() {
		// The YAML parser is not ours: whatever it does on hostile input,
		// an item that breaks it is an error, never a crash.
		if r := recover(); r != nil {
			n, err = nil, fmt.Errorf("unreadable YAML: %v", r)
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	seq := deref(&doc)
	if seq != nil && seq.Kind == yaml.DocumentNode && len(seq.Content) == 1 {
		seq = seq.Content[0]
	}
	if seq == nil || seq.Kind != yaml.SequenceNode || len(seq.Content) != 1 {
		return nil, errors.New("not one list item")
	}
	shiftLines(seq.Content[0], first-1)
	return seq.Content[0], nil
}

// shiftLines adds d to the line of n and of every node under it. The
// nodes' Content is a tree (an alias points at its anchor through Alias,
// not Content), walked with a stack of its own: a parse may nest deeper
// than a goroutine's stack likes.
func shiftLines(n *yaml.Node, d int) {
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n.Line += d
		stack = append(stack, n.Content...)
	}
}
