package cli

import (
	"fmt"
	"io"
	"net"
	"strconv"
)

// exposure says who besides this machine can reach a listener at addr:
// "" for a loopback address, otherwise words for a warning. A server bound
// to ":PORT" or 0.0.0.0 answers every interface, which is easy to do by
// accident and, for the proxy, hands the API keys its clients send (and
// the upstream's answers) to anyone on the network.
func exposure(addr net.Addr) string {
	ta, ok := addr.(*net.TCPAddr)
	switch {
	case !ok:
		return "" // not TCP (a test's listener): nothing to say
	case ta.IP.IsLoopback():
		return ""
	case ta.IP == nil || ta.IP.IsUnspecified():
		return "every network interface"
	}
	return "a network interface (" + ta.IP.String() + ")"
}

// warnExposed warns on w when ln listens beyond loopback; risk says what
// that exposes. It returns whether it warned.
func warnExposed(w io.Writer, ln net.Listener, risk string) bool {
	where := exposure(ln.Addr())
	if where == "" {
		return false
	}
	port := "PORT"
	if ta, ok := ln.Addr().(*net.TCPAddr); ok {
		port = strconv.Itoa(ta.Port)
	}
	fmt.Fprintf(w, "streamtap: warning: listening on %s (%s), not only on this machine: %s; --listen 127.0.0.1:%s keeps it local\n",
		where, ln.Addr(), risk, port)
	return true
}

// What a listener beyond loopback exposes, for warnExposed.
const (
	proxyExposes  = "anyone who can reach it can send requests through the proxy, and clients on other machines send it their API keys over plain HTTP"
	replayExposes = "anyone who can reach it can fetch the recording"
)
