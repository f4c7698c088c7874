package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The latency measure: the upstream sends -latency-events Responses text
// deltas of about -latency-size bytes (SSE framing included), one every
// -latency-gap, each flushed as it is written and stamped with when it
// was written; a client reads them straight from the upstream and through
// a proxy, and takes each event's latency (when its last byte arrived,
// less its stamp). It reports the percentiles both ways and what the
// proxy adds at each: the proxy models every event (and checks it) on the
// goroutine that passes it on, after the client has it, so a slow model
// shows as latency once events queue behind it. A bare reverse proxy
// measured in the same rounds gives the floor of one more hop.

// epoch is what the stamps count from: the upstream and the client share
// the process, so one monotonic clock stamps and reads.
var epoch = time.Now()

// serveLatency writes the latency stream: n events of size bytes every
// gap, then the response's end.
func (u *upstream) serveLatency(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	n, _ := strconv.Atoi(q.Get("n"))
	size, _ := strconv.Atoi(q.Get("size"))
	gap, _ := time.ParseDuration(q.Get("gap"))
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	write := func(s string) bool {
		if _, err := w.Write([]byte(s)); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !write(`event: response.created` + "\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_l","object":"response","status":"in_progress","output":[]}}` + "\n\n" +
		`event: response.output_item.added` + "\n" + `data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_l","type":"message","status":"in_progress","role":"assistant","content":[]}}` + "\n\n") {
		return
	}
	pad := strings.Repeat("x", max(size-190, 1))
	next := time.Now()
	var b strings.Builder
	for i := range n {
		if d := time.Until(next); d > 0 {
			time.Sleep(d)
		}
		next = next.Add(gap)
		b.Reset()
		fmt.Fprintf(&b, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":%d,\"item_id\":\"msg_l\",\"output_index\":0,\"content_index\":0,\"delta\":\"%s\",\"t\":%d}\n\n",
			i+2, pad, time.Since(epoch).Nanoseconds())
		if !write(b.String()) {
			return
		}
	}
	write(fmt.Sprintf("event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":%d,\"response\":{\"id\":\"resp_l\",\"object\":\"response\",\"status\":\"completed\",\"output\":[]}}\n\n", n+2))
}

// latencies reads the latency stream at url and returns each delta's
// latency.
func latencies(url string, n int) ([]time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := make([]time.Duration, 0, n)
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if i := bytes.LastIndex(line, []byte(`,"t":`)); i >= 0 {
			now := time.Since(epoch)
			t, perr := strconv.ParseInt(string(bytes.TrimRight(line[i+5:], "}\n")), 10, 64)
			if perr != nil {
				return out, perr
			}
			out = append(out, now-time.Duration(t))
		}
		if err != nil {
			break
		}
	}
	if len(out) != n {
		return out, fmt.Errorf("read %d of %d events", len(out), n)
	}
	return out, nil
}

// percentile returns the p-th percentile of ds, sorted.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[min(len(ds)-1, int(float64(len(ds))*p))]
}

// measureLatency reads the latency stream in rounds alternated between
// the upstream and one proxy (on a shared machine the load changes from
// second to second; alternating spreads it over both), pools each side's
// latencies, and adds the proxy's CPU per event, which the load barely
// moves.
func measureLatency(name, bin string, up *upstream, n, size, rounds int, gap time.Duration) error {
	rounds = max(rounds, 1)
	per := max(n/rounds, 1)
	path := fmt.Sprintf("/v1/responses?latency=1&n=%d&size=%d&gap=%s", per, size, gap)
	p, err := startProxy(bin, up)
	if err != nil {
		return err
	}
	defer p.stop()
	bare, err := startBareProxy(up)
	if err != nil {
		return err
	}
	defer bare.Close()
	var direct, proxied, floor []time.Duration
	var cpu time.Duration
	for range rounds {
		d, err := latencies("http://"+up.addr+path, per)
		if err != nil {
			return fmt.Errorf("direct latency: %w", err)
		}
		direct = append(direct, d...)
		if d, err = latencies("http://"+bare.Listener.Addr().String()+path, per); err != nil {
			return fmt.Errorf("bare proxy latency: %w", err)
		}
		floor = append(floor, d...)
		c0 := p.cpu()
		d, err = latencies("http://"+p.addr+path, per)
		if err != nil {
			return fmt.Errorf("%s latency: %w\n%s", name, err, p.stderr)
		}
		cpu += p.cpu() - c0
		proxied = append(proxied, d...)
	}
	slices.Sort(direct)
	slices.Sort(proxied)
	slices.Sort(floor)
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	at := func(p float64) (float64, float64, float64) {
		dp, pp := percentile(direct, p), percentile(proxied, p)
		return us(dp), us(pp), us(pp - dp)
	}
	d50, p50, a50 := at(0.5)
	d90, p90, a90 := at(0.9)
	d99, p99, a99 := at(0.99)
	fmt.Printf("latency %s: %d events of %d bytes every %s in %d rounds alternated: direct p50 %.0f µs p90 %.0f µs p99 %.0f µs, through the proxy p50 %.0f µs p90 %.0f µs p99 %.0f µs, through a bare reverse proxy p50 %.0f µs p90 %.0f µs p99 %.0f µs: the proxy adds %.0f µs at p50, %.0f µs at p90, %.0f µs at p99; proxy CPU %.1f µs per event\n",
		name, len(proxied), size, gap, rounds, d50, d90, d99, p50, p90, p99,
		us(percentile(floor, 0.5)), us(percentile(floor, 0.9)), us(percentile(floor, 0.99)),
		a50, a90, a99, us(cpu)/float64(len(proxied)))
	return nil
}

// startBareProxy serves a reverse proxy that only passes bytes on,
// flushing each write (httputil, in this process): the floor of what a
// hop through any proxy adds on this machine, next to which the proxy's
// own latency can be judged.
func startBareProxy(up *upstream) (*httptest.Server, error) {
	u, err := url.Parse("http://" + up.addr)
	if err != nil {
		return nil, err
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	return httptest.NewServer(rp), nil
}

// cpu is the proxy's CPU time so far (user and system, from
// /proc/PID/stat in clock ticks of 10 ms: a round of thousands of events
// spans many).
func (p *proxyProc) cpu() time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; the fields after it don't.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64) // utime, field 14
	s, _ := strconv.ParseInt(f[12], 10, 64) // stime, field 15
	return time.Duration(u+s) * 10 * time.Millisecond
}
