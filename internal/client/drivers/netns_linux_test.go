package drivers

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// TestStartInNetNS_ChildRunsInTheNamespace: the child sees the namespace's
// links (a fresh one has only lo), and the caller stays where it was.
func TestStartInNetNS_ChildRunsInTheNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("creating a network namespace needs root")
	}
	ipPath, err := exec.LookPath("ip")
	if err != nil {
		t.Skip("ip (iproute2) not installed")
	}
	name := "drovertest-" + uuid.NewString()[:8]
	if out, err := exec.Command(ipPath, "netns", "add", name).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command(ipPath, "netns", "del", name).Run() })
	links := func(nsPath string) string {
		var out bytes.Buffer
		cmd := exec.Command(ipPath, "-o", "link", "show")
		cmd.Stdout = &out
		if err := StartInNetNS(cmd, nsPath); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	inside := links("/var/run/netns/" + name)
	if n := strings.Count(inside, "\n"); n != 1 || !strings.Contains(inside, ": lo:") {
		t.Fatalf("links inside the namespace: %q", inside)
	}
	if outside := links(""); strings.Count(outside, "\n") < 2 {
		t.Fatalf("links on the host: %q (the caller must not stay in the namespace)", outside)
	}
}
