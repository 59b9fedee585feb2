package netguard

import (
	"net/netip"
	"testing"
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
