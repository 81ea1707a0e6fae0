package fingerprint

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/drover-project/drover/internal/structs"
)

// defaultMBits is assumed where the link speed is unknown (virtual NICs).
const defaultMBits = 1000

// Interface is one network interface and its addresses (CIDR notation).
type Interface struct {
	Name     string
	Addrs    []string
	Up       bool
	Loopback bool
}

func fingerprintNetwork(_ context.Context, cfg Config, r *Result) error {
	ifaces, err := listInterfaces()
	if err != nil {
		return err
	}
	r.Interfaces = ifaces
	name := cfg.NetworkInterface
	if name == "" {
		name = defaultRouteInterface()
	}
	iface, ip, err := pickInterface(ifaces, name)
	if err != nil {
		return err
	}
	r.Attributes["unique.network.ip-address"] = ip
	r.Resources.Networks = []*structs.NetworkResource{{
		Mode: "host", Device: iface.Name, IP: ip, CIDR: ip + "/32", MBits: linkSpeed(iface.Name),
	}}
	return nil
}

func listInterfaces() ([]Interface, error) {
	sys, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	out := make([]Interface, 0, len(sys))
	for _, s := range sys {
		i := Interface{Name: s.Name, Up: s.Flags&net.FlagUp != 0, Loopback: s.Flags&net.FlagLoopback != 0}
		addrs, _ := s.Addrs()
		for _, a := range addrs {
			i.Addrs = append(i.Addrs, a.String())
		}
		out = append(out, i)
	}
	return out, nil
}

// pickInterface takes the named interface, or else the first up,
// non-loopback one with an IPv4 address, or else loopback (a laptop
// offline still makes a one-node dev cluster).
func pickInterface(ifaces []Interface, name string) (Interface, string, error) {
	if name != "" {
		for _, i := range ifaces {
			if i.Name == name {
				if ip := firstIPv4(i); ip != "" {
					return i, ip, nil
				}
				return i, "", fmt.Errorf("interface %q has no IPv4 address", name)
			}
		}
		return Interface{}, "", fmt.Errorf("no network interface %q", name)
	}
	var lo *Interface
	for idx, i := range ifaces {
		if ip := firstIPv4(i); ip != "" && i.Up {
			if !i.Loopback {
				return i, ip, nil
			}
			lo = &ifaces[idx]
		}
	}
	if lo != nil {
		return *lo, firstIPv4(*lo), nil
	}
	return Interface{}, "", fmt.Errorf("no network interface with an IPv4 address")
}

func firstIPv4(i Interface) string {
	for _, a := range i.Addrs {
		if ip, _, err := net.ParseCIDR(a); err == nil && ip.To4() != nil {
			return ip.String()
		}
	}
	return ""
}

// defaultRouteInterface reads /proc/net/route for the 0.0.0.0/0 route.
func defaultRouteInterface() string {
	f, err := os.Open("/proc/net/route")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 8 && fields[1] == "00000000" && fields[7] == "00000000" {
			return fields[0]
		}
	}
	return ""
}

func linkSpeed(name string) int {
	b, err := os.ReadFile("/sys/class/net/" + name + "/speed")
	if err != nil {
		return defaultMBits
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n <= 0 {
		return defaultMBits
	}
	return n
}
