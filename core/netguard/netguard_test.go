package netguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"testing"
	"time"
)

// Every spelling of an internal address is refused, including the IPv6 transition forms
// that carry an IPv4 address (issue 15: [::7f00:1], [64:ff9b::7f00:1] and
// [2002:7f00:1::] were dialled).
func TestBlockedReasonIPv6Spellings(t *testing.T) {
	blocked := []string{
		"2001:db8::1", "3fff::1", "2001:2::1", "2001:10::1", "2001:20::1",
		"192.0.0.8", "240.1.2.3", "192.88.99.1", "198.51.100.7", "203.0.113.5", "192.0.2.1",
		"127.0.0.1", "::1", "10.1.2.3", "192.168.0.1", "172.16.0.1", "169.254.169.254",
		"100.100.100.200", "0.0.0.0", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "fec0::1", "168.63.129.16", "192.0.0.192",
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
		"::7f00:1", "::127.0.0.1", "::a00:1", "::a9fe:a9fe",
		"64:ff9b::7f00:1", "64:ff9b::10.0.0.1", "64:ff9b::169.254.169.254", "64:ff9b:1::a00:1",
		"2002:7f00:1::", "2002:a00:1::1", "2002:a9fe:a9fe::",
		// Teredo: the client address 127.0.0.1 stored inverted.
		"2001:0:4136:e378:8000:63bf:80ff:fffe",
		"2001::f5ff:fffe", // 10.0.0.1 inverted
		// a red-team helper's: IPv4-translated, broadcast, benchmarking, discard-only
		"::ffff:0:127.0.0.1", "::ffff:0:7f00:1", "255.255.255.255", "198.18.0.1", "198.19.255.254", "100::1",
	}
	for _, s := range blocked {
		if why := blockedReason(netip.MustParseAddr(s)); why == "" {
			t.Errorf("%s was not refused", s)
		}
	}
	public := []string{
		"8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::",
		"2001:4860:4860::8888",                 // Google DNS: 2001:4860::/32 is not Teredo
		"2001:0:4136:e378:8000:63bf:f7f7:f7f7", // Teredo to 8.8.8.8
		"::ffff:0:808:808", "198.20.0.1",
	}
	for _, s := range public {
		if why := blockedReason(netip.MustParseAddr(s)); why != "" {
			t.Errorf("%s refused as %s", s, why)
		}
	}
}

func FuzzEmbeddedIPv4(f *testing.F) {
	f.Add([]byte("64:ff9b::7f00:1"))
	f.Add([]byte("2002:7f00:1::"))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := netip.ParseAddr(string(b))
		if err != nil {
			return
		}
		// Whatever the spelling, an address that leads to a refused IPv4 address is refused.
		if v4, _, ok := embeddedIPv4(a.Unmap()); ok && plainBlockedReason(v4) != "" && blockedReason(a) == "" {
			t.Fatalf("%s leads to %s but was not refused", a, v4)
		}
	})
}

// A name that is neither an IP literal nor a localhost name, whose DNS answer is a
// blocked address (here the machine's own name, which /etc/hosts maps to a loopback
// or private address), is refused after resolution; with AllowPrivate the same client
// reaches the server there, so the refusal is the check, not a failed lookup.
func TestDNSAnswerToABlockedAddressIsRefused(t *testing.T) {
	host, err := os.Hostname()
	if err != nil || host == "" {
		t.Skip("this machine has no host name to resolve")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(ips) == 0 {
		t.Skipf("the host name %s does not resolve here (%v); the DNS path is not tested", host, err)
	}
	for _, ip := range ips {
		if blockedReason(ip) == "" {
			t.Skipf("the host name %s resolves to the public address %v; the DNS path to a blocked address is not tested", host, ip)
		}
	}
	if LiteralBlocked(host) != "" {
		t.Skipf("the host name %s is refused by its name alone", host)
	}
	ln, err := net.Listen("tcp", ":0") // every address: whichever the name resolves to
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "inside") })}
	go srv.Serve(ln)
	defer srv.Close()
	url := fmt.Sprintf("http://%s:%d/", host, ln.Addr().(*net.TCPAddr).Port)
	_, err = NewClient(Options{Timeout: 5 * time.Second}).Get(url)
	var blocked *BlockedAddressError
	if !errors.As(err, &blocked) {
		t.Fatalf("GET %s (%s resolves to %v): %v, want the address refused", url, host, ips, err)
	}
	resp, err := NewClient(Options{Timeout: 5 * time.Second, AllowPrivate: func(string, string) bool { return true }}).Get(url)
	if err != nil {
		t.Fatalf("GET %s with private addresses allowed: %v (the refusal above proves nothing)", url, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "inside" {
		t.Fatalf("GET %s with private addresses allowed: %q", url, body)
	}
}
