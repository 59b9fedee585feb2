// Package netguard is fetch's HTTP client that refuses to dial private, loopback,
// link-local and metadata addresses (every IPv6 spelling of them too), checked on the
// resolved address at dial time so DNS rebinding and redirects cannot reach them.
package netguard

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"
)

// Options configure a guarded HTTP client.
type Options struct {
	Timeout      time.Duration
	MaxRedirects int
	// AllowPrivate says whether host may be reached at a private, loopback,
	// link-local or metadata address on port. Nil refuses them all.
	AllowPrivate func(host, port string) bool
	// Refuse, when set, is asked about every address a host resolves to before it is
	// dialled: an error refuses that address (a deny rule naming the address holds
	// however the URL spells the host).
	Refuse func(host, port string, addr netip.Addr) error
	// OnRedirect is told every hop before it is followed (for the reported redirect
	// chain, and to authorize a new host); an error stops the fetch with that error.
	OnRedirect func(req *http.Request) error
}

// BlockedAddressError is returned when a host resolves to an address the guard refuses.
type BlockedAddressError struct {
	Host string
	Addr netip.Addr
	Why  string
}

func (e *BlockedAddressError) Error() string {
	return fmt.Sprintf("%s resolves to %s, a %s address, which fetch refuses by default (it could reach internal services or cloud metadata); if the user wants this host reached, they can allow it with a permission rule naming it (permission fetch, pattern %s) or AGENTBOX_FETCH_ALLOW_HOSTS=%s", e.Host, e.Addr.Unmap(), e.Why, e.Host, e.Host)
}

// blockedReason classifies the addresses a fetch must not reach unless allowed. An IPv6
// address that carries an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4,
// Teredo) is judged by the IPv4 address it leads to as well, since a gateway or the
// kernel may deliver it there.
// LiteralBlocked is the reason fetch refuses host without dialling it: an IP literal
// (brackets and a zone allowed) in a loopback, private, link-local, metadata or other
// internal range, or a localhost name. "" when host is not one.
func LiteralBlocked(host string) string {
	h := strings.ToLower(strings.Trim(host, "[]"))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || h == "localhost." {
		return "loopback"
	}
	if i := strings.IndexByte(h, '%'); i >= 0 {
		h = h[:i]
	}
	a, err := netip.ParseAddr(h)
	if err != nil {
		return ""
	}
	return blockedReason(a)
}

func blockedReason(a netip.Addr) string {
	a = a.Unmap()
	if why := plainBlockedReason(a); why != "" {
		return why
	}
	if v4, how, ok := embeddedIPv4(a); ok {
		if why := plainBlockedReason(v4); why != "" {
			return why + " (" + how + " " + v4.String() + ")"
		}
	}
	return ""
}

// Prefixes of the IPv6 ranges that embed an IPv4 address (RFC 4291, 6052, 8215, 3056, 4380)
// and the deprecated site-local range, which some stacks still route privately.
var (
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour      = netip.MustParsePrefix("2002::/16")
	teredo         = netip.MustParsePrefix("2001::/32")
	siteLocal      = netip.MustParsePrefix("fec0::/10")
	v4Compatible   = netip.MustParsePrefix("::/96")
	v4Translated   = netip.MustParsePrefix("::ffff:0:0:0/96") // RFC 2765's ::ffff:0:a.b.c.d
	discardOnly    = netip.MustParsePrefix("100::/64")        // RFC 6666
	benchmarking   = netip.MustParsePrefix("198.18.0.0/15")   // RFC 2544, often lab-internal
)

// embeddedIPv4 returns the IPv4 address an IPv6 address leads to, and the kind of
// embedding, for the transition forms a fetch could be steered through.
func embeddedIPv4(a netip.Addr) (netip.Addr, string, bool) {
	if !a.Is6() {
		return netip.Addr{}, "", false
	}
	b := a.As16()
	last := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	switch {
	case v4Compatible.Contains(a):
		return last, "IPv4-compatible", true
	case v4Translated.Contains(a):
		return last, "IPv4-translated", true
	case nat64WellKnown.Contains(a), nat64Local.Contains(a):
		return last, "NAT64", true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), "6to4", true
	case teredo.Contains(a):
		// The Teredo client's address is stored inverted in the last 32 bits.
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), "Teredo", true
	}
	return netip.Addr{}, "", false
}

func plainBlockedReason(a netip.Addr) string {
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return "link-local (cloud metadata)"
	case a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast():
		return "non-unicast"
	case netip.MustParsePrefix("100.64.0.0/10").Contains(a):
		return "carrier-grade NAT"
	case netip.MustParsePrefix("0.0.0.0/8").Contains(a):
		return "this-network"
	case a == netip.MustParseAddr("100.100.100.200"), a == netip.MustParseAddr("fd00:ec2::254"),
		a == netip.MustParseAddr("168.63.129.16"), a == netip.MustParseAddr("192.0.0.192"):
		// Alibaba's and AWS's IPv6 metadata, Azure's platform endpoint (WireServer),
		// Oracle Cloud's legacy metadata.
		return "cloud metadata"
	case siteLocal.Contains(a):
		return "site-local"
	case a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	case benchmarking.Contains(a):
		return "benchmarking network (198.18.0.0/15)"
	case discardOnly.Contains(a):
		return "discard-only"
	}
	for _, r := range reservedV4 {
		if r.prefix.Contains(a) {
			return r.why
		}
	}
	return ""
}

// reservedV4 are IPv4 (and a few IPv6) ranges that are not the public internet (RFC 6890's special
// purpose registry): nothing a fetch of a web page should reach.
var reservedV4 = []struct {
	prefix netip.Prefix
	why    string
}{
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation (TEST-NET-1)"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation (TEST-NET-2)"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation (TEST-NET-3)"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay anycast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("2001:2::/48"), "benchmarking"},
	{netip.MustParsePrefix("2001:10::/28"), "ORCHID"},
	{netip.MustParsePrefix("2001:20::/28"), "ORCHIDv2"},
}

// NewClient returns an HTTP client that vets every address it connects to, after
// DNS resolution and on every redirect, so neither a redirect nor a DNS answer can lead a
// fetch into a private network. It never uses a proxy from the environment (a proxy
// would hide the real destination from the check).
func NewClient(opt Options) *http.Client {
	dialer := &net.Dialer{Timeout: opt.Timeout}
	transport := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
			if err != nil {
				return nil, err
			}
			var lastErr error
			for _, ip := range ips {
				if why := blockedReason(ip); why != "" && (opt.AllowPrivate == nil || !opt.AllowPrivate(strings.ToLower(host), port)) {
					lastErr = &BlockedAddressError{Host: host, Addr: ip, Why: why}
					continue
				}
				if opt.Refuse != nil {
					if err := opt.Refuse(strings.ToLower(host), port, ip); err != nil {
						lastErr = err
						continue
					}
				}
				conn, err := dialer.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
				if err == nil {
					return conn, nil
				}
				lastErr = err
			}
			if lastErr == nil {
				lastErr = fmt.Errorf("%s has no addresses", host)
			}
			return nil, lastErr
		},
		TLSHandshakeTimeout:   opt.Timeout,
		ResponseHeaderTimeout: opt.Timeout,
		MaxIdleConns:          2,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   opt.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > opt.MaxRedirects {
				return fmt.Errorf("more than %d redirects", opt.MaxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to a %s: URL, which fetch does not follow", req.URL.Scheme)
			}
			if opt.OnRedirect != nil {
				return opt.OnRedirect(req)
			}
			return nil
		},
	}
}
