package docker

import (
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// DefaultEndpoint is the Docker daemon's usual socket.
const DefaultEndpoint = "unix:///var/run/docker.sock"

// newClient connects to endpoint (unix:///path or tcp://host:port) with
// the Engine's own client, which negotiates the API version with the
// daemon on its first call.
func newClient(endpoint string) (*client.Client, error) {
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	c, err := client.New(client.WithHost(endpoint))
	if err != nil {
		return nil, fmt.Errorf("docker endpoint %q: %w", endpoint, err)
	}
	return c, nil
}

// IsNotFound reports a 404 from the daemon.
func IsNotFound(err error) bool { return cerrdefs.IsNotFound(err) }

// isConflict reports a 409 (name in use, container not running).
func isConflict(err error) bool { return cerrdefs.IsConflict(err) }
