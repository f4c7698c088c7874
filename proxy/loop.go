package proxy

// A proxy must never forward a request to itself. Two ways lead there:
// an environment proxy (HTTP_PROXY, HTTPS_PROXY) that names the proxy's
// own listener, through which the transport would send every upstream
// request back in, and an upstream that is the proxy (or a chain that
// leads back to it). Either turned one request into 9,000 sessions and
// 6,585 open files in 12 s. The first is never used for the upstream;
// the second is caught by the hop each forwarded request carries in its
// Via header (RFC 9110 §7.6.3), naming this proxy by a random id, and
// refused with 508 Loop Detected when it comes back.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/streamtap/streamtap/termtext"
)

// errLoop ends a request that came back to the proxy that sent it.
var errLoop = errors.New("the request came back through this proxy (a loop: does the upstream, or a proxy on the way, lead back here?)")

// loopGuard knows the proxy's own listeners and the hop name it adds to
// the Via header of every request it forwards.
type loopGuard struct {
	hop string // "streamtap-" and 16 random hex digits

	mu     sync.Mutex
	self   []*net.TCPAddr  // the listeners, from Serve
	seen   map[string]bool // environment proxy URL → it is one of ours
	warned map[string]bool // the environment proxies already logged as skipped
	// envFn is the environment's proxy for a request
	// (http.ProxyFromEnvironment, which reads the environment once; tests
	// replace it).
	envFn func(*http.Request) (*url.URL, error)
}

func newLoopGuard() *loopGuard {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &loopGuard{hop: "streamtap-" + hex.EncodeToString(b[:]), seen: map[string]bool{}, warned: map[string]bool{},
		envFn: http.ProxyFromEnvironment}
}

// listening adds a listener the proxy serves on.
func (p *Proxy) listening(ln net.Listener) {
	ta, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		return
	}
	p.loop.mu.Lock()
	p.loop.self = append(p.loop.self, ta)
	clear(p.loop.seen)
	p.loop.mu.Unlock()
}

// via is the hop the proxy adds to the Via header of a request it
// forwards.
func (g *loopGuard) via(in *http.Request) string {
	v := "1.1"
	if in.ProtoMajor >= 2 {
		v = strconv.Itoa(in.ProtoMajor)
	}
	return v + " " + g.hop
}

// looped says whether a request already went through this proxy: its Via
// header names this proxy's hop.
func (g *loopGuard) looped(r *http.Request) bool {
	for _, v := range r.Header.Values("Via") {
		for _, hop := range strings.Split(v, ",") {
			if f := strings.Fields(hop); len(f) >= 2 && f[1] == g.hop {
				return true
			}
		}
	}
	return false
}

// upstreamProxy is the transport's Proxy: the environment's proxy for the
// request (HTTP_PROXY, HTTPS_PROXY, NO_PROXY), unless it is this proxy's
// own listener, which is skipped (and said once in the log).
func (p *Proxy) upstreamProxy(req *http.Request) (*url.URL, error) {
	u, err := p.loop.envFn(req)
	if err != nil || u == nil {
		return u, err
	}
	if !p.loop.isSelf(u) {
		return u, nil
	}
	p.loop.mu.Lock()
	first := !p.loop.warned[u.String()]
	p.loop.warned[u.String()] = true
	p.loop.mu.Unlock()
	if first {
		p.log.Printf("the environment's proxy %s is this proxy: not used for the upstream, which is reached directly", termtext.Safe(redactUserinfo(u)))
	}
	return nil, nil
}

// redactUserinfo is u without its password, for the log.
func redactUserinfo(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User(c.User.Username())
	}
	return c.String()
}

// isSelf says whether the proxy URL u reaches one of the proxy's own
// listeners: its port is theirs, and its host is their address (any of
// this machine's addresses for a listener on all interfaces). The answer
// for each URL is kept: the host is looked up once.
func (g *loopGuard) isSelf(u *url.URL) bool {
	key := u.Host
	g.mu.Lock()
	if v, ok := g.seen[key]; ok {
		g.mu.Unlock()
		return v
	}
	self := append([]*net.TCPAddr(nil), g.self...)
	g.mu.Unlock()
	v := reaches(u, self)
	g.mu.Lock()
	g.seen[key] = v
	g.mu.Unlock()
	return v
}

// reaches says whether a proxy URL leads to one of the addresses.
func reaches(u *url.URL, self []*net.TCPAddr) bool {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "socks5", "socks5h":
			port = "1080"
		default:
			port = "80"
		}
	}
	var mine []*net.TCPAddr
	for _, a := range self {
		if strconv.Itoa(a.Port) == port {
			mine = append(mine, a)
		}
	}
	if len(mine) == 0 {
		return false
	}
	ips := hostIPs(u.Hostname())
	for _, a := range mine {
		for _, ip := range ips {
			switch {
			case a.IP == nil || a.IP.IsUnspecified():
				if ip.IsLoopback() || ip.IsUnspecified() || isLocal(ip) {
					return true
				}
			case a.IP.Equal(ip):
				return true
			}
		}
	}
	return false
}

// hostIPs are the addresses a proxy's host name stands for; a name that
// does not resolve within a second stands for none.
func hostIPs(host string) []net.IP {
	if ip := net.ParseIP(host); ip != nil {
		return []net.IP{ip}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil
	}
	ips := make([]net.IP, len(addrs))
	for i, a := range addrs {
		ips[i] = a.IP
	}
	return ips
}

// isLocal says whether ip is one of this machine's interface addresses.
func isLocal(ip net.IP) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}
