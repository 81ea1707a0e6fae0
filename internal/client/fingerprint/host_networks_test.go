package fingerprint

import (
	"slices"
	"testing"
)

func TestHostNetworkAddrs(t *testing.T) {
	ifaces := []Interface{
		{Name: "lo", Addrs: []string{"127.0.0.1/8", "127.0.0.2/32", "::1/128"}, Up: true, Loopback: true},
		{Name: "eth0", Addrs: []string{"fe80::1/64", "fd00::2/64", "192.0.2.2/24"}, Up: true},
		{Name: "eth1", Addrs: []string{"10.1.0.5/16"}, Up: true},
	}
	for _, tc := range []struct {
		name, cidr, iface string
		want              []string
	}{
		{"interface: all its addresses, v4 first, no link-local", "", "eth0", []string{"192.0.2.2", "fd00::2"}},
		{"cidr picks the addresses inside it on any interface", "10.0.0.0/8", "", []string{"10.1.0.5"}},
		{"a /32 names one loopback address", "127.0.0.2/32", "", []string{"127.0.0.2"}},
		{"cidr with host bits set is masked", "127.0.0.9/8", "", []string{"127.0.0.1", "127.0.0.2"}},
		{"v6 cidr", "fd00::/8", "", []string{"fd00::2"}},
		{"no interface", "", "eth9", nil},
		{"no address inside", "172.16.0.0/12", "", nil},
		{"bad cidr", "nope", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := HostNetworkAddrs(ifaces, tc.cidr, tc.iface); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
