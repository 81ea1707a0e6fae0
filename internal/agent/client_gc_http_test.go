package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestClientGC_RemovesOnlyFinishedAllocs(t *testing.T) {
	a, c := clientTestAgent(t)
	alloc := runJob(t, c, shellJob("gc", `sleep 100`))
	if err := c.Nodes().GcAlloc(alloc.ID, nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("GC of a running alloc: %v", err)
	}
	allocDir := filepath.Join(a.config.DataDir, "alloc", alloc.ID)
	if _, err := os.Stat(allocDir); err != nil {
		t.Fatalf("alloc dir before gc: %v", err)
	}
	if _, _, err := c.Jobs().Deregister("gc", false, nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, func() string {
		got, _, err := c.Allocations().Info(alloc.ID, nil)
		if err != nil || got.ClientStatus != "complete" {
			return fmt.Sprintf("alloc not stopped yet: %v %v", got.ClientStatus, err)
		}
		if err := c.Nodes().GC(a.Client().NodeID(), nil); err != nil {
			return fmt.Sprintf("node gc: %v", err)
		}
		if _, err := os.Stat(allocDir); !os.IsNotExist(err) {
			return fmt.Sprintf("alloc dir still there: %v", err)
		}
		return ""
	})
	if a.Client().HasAlloc(alloc.ID) {
		t.Fatal("collected alloc still held by the client")
	}
	// The server still lists the finished alloc; the client does not run it
	// again. Another alloc running means the client has synced since.
	runJob(t, c, shellJob("after-gc", `sleep 100`))
	if a.Client().HasAlloc(alloc.ID) {
		t.Fatal("collected alloc came back")
	}
}
