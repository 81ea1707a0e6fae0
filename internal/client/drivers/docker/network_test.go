package docker

import (
	"context"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/client/drivers"
)

// TestAllocNetworkRefusedUntilDockerJoinsIt: a docker task of a bridge
// group fails to start, naming the mode, rather than running on docker's
// own network.
func TestAllocNetworkRefusedUntilDockerJoinsIt(t *testing.T) {
	requireImage(t)
	task := newTask(t, "web", map[string]any{"image": testImage})
	task.Network = &drivers.NetworkIsolation{Mode: "bridge", NetNSPath: "/var/run/netns/x"}
	_, err := newDriver(t).Start(context.Background(), task)
	if err == nil || !strings.Contains(err.Error(), `network mode "bridge"`) {
		t.Fatalf("start = %v", err)
	}
}
