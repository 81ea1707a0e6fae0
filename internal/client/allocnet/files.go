package allocnet

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// writeFiles writes the alloc's resolv.conf (only when the group has a
// dns block: otherwise tasks keep the host's), hosts and hostname.
func writeFiles(req *Request, st *Status) error {
	if req.Dir == "" {
		return nil
	}
	if err := os.MkdirAll(req.Dir, 0o755); err != nil {
		return err
	}
	if req.DNS != nil {
		st.ResolvConfPath = filepath.Join(req.Dir, "resolv.conf")
		if err := os.WriteFile(st.ResolvConfPath, []byte(ResolvConf(req.DNS.Servers, req.DNS.Searches, req.DNS.Options)), 0o644); err != nil {
			return fmt.Errorf("write resolv.conf: %w", err)
		}
	}
	if req.Hostname != "" {
		st.HostnamePath = filepath.Join(req.Dir, "hostname")
		if err := os.WriteFile(st.HostnamePath, []byte(req.Hostname+"\n"), 0o644); err != nil {
			return err
		}
	}
	st.HostsPath = filepath.Join(req.Dir, "hosts")
	return os.WriteFile(st.HostsPath, []byte(Hosts(req.Hostname, st.Address)), 0o644)
}

// ResolvConf renders a resolv.conf.
func ResolvConf(servers, searches, options []string) string {
	var b strings.Builder
	for _, s := range servers {
		fmt.Fprintf(&b, "nameserver %s\n", s)
	}
	if len(searches) > 0 {
		fmt.Fprintf(&b, "search %s\n", strings.Join(searches, " "))
	}
	if len(options) > 0 {
		fmt.Fprintf(&b, "options %s\n", strings.Join(options, " "))
	}
	return b.String()
}

// Hosts renders the alloc's hosts file: localhost, and the hostname on the
// alloc's address.
func Hosts(hostname, addr string) string {
	var b strings.Builder
	b.WriteString("127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n")
	if hostname != "" && addr != "" {
		fmt.Fprintf(&b, "%s %s\n", addr, hostname)
	}
	return b.String()
}
