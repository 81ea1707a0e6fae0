package docker

import (
	"fmt"

	"github.com/drover-project/drover/internal/client/drivers"
)

// checkAllocNetwork refuses a task of a group with a network namespace of
// its own (bridge, cni/*, none): joining it is not implemented for docker
// yet (the Engine API joins only another container's namespace, so it
// needs a pause container that holds the alloc's namespace, Nomad's way),
// and running the container on docker's own network instead would drop the
// group's network block. This is the one place the docker driver meets
// alloc networks; the join goes here.
func checkAllocNetwork(tc *drivers.TaskConfig) error {
	if tc.Network == nil {
		return nil
	}
	return fmt.Errorf("network mode %q: docker tasks cannot join the alloc's network namespace yet (raw_exec and exec tasks can)", tc.Network.Mode)
}
