package docker

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// VersionInfo is GET /version.
type VersionInfo struct {
	Version    string
	APIVersion string `json:"ApiVersion"`
	Os         string
	Arch       string
}

// ContainerConfig is the body of POST /containers/create.
type ContainerConfig struct {
	Image        string
	Cmd          []string            `json:",omitempty"`
	Entrypoint   []string            `json:",omitempty"`
	Env          []string            `json:",omitempty"`
	Labels       map[string]string   `json:",omitempty"`
	WorkingDir   string              `json:",omitempty"`
	ExposedPorts map[string]struct{} `json:",omitempty"`
	HostConfig   HostConfig
}

// HostConfig is the host side of a container.
type HostConfig struct {
	Binds             []string                 `json:",omitempty"`
	PortBindings      map[string][]PortBinding `json:",omitempty"`
	Memory            int64                    `json:",omitempty"`
	MemoryReservation int64                    `json:",omitempty"`
	MemorySwap        int64                    `json:",omitempty"`
	CPUShares         int64                    `json:"CpuShares,omitempty"`
	Privileged        bool                     `json:",omitempty"`
	NetworkMode       string                   `json:",omitempty"`
	PidMode           string                   `json:",omitempty"`
	IpcMode           string                   `json:",omitempty"`
	UTSMode           string                   `json:",omitempty"`
}

// PortBinding is one host address a container port is published on.
type PortBinding struct {
	HostIP   string `json:"HostIp"`
	HostPort string
}

// ContainerState is the State of GET /containers/{id}/json.
type ContainerState struct {
	Status    string
	Running   bool
	Pid       int
	ExitCode  int
	OOMKilled bool
	Error     string
}

// ContainerInfo is GET /containers/{id}/json.
type ContainerInfo struct {
	ID    string `json:"Id"`
	Name  string
	State ContainerState
}

// StatsInfo is the part of GET /containers/{id}/stats the driver reads.
type StatsInfo struct {
	MemoryStats struct {
		Usage    uint64 `json:"usage"`
		MaxUsage uint64 `json:"max_usage"`
		Stats    struct {
			RSS  uint64 `json:"rss"`
			Anon uint64 `json:"anon"`
		} `json:"stats"`
	} `json:"memory_stats"`
	CPUStats struct {
		CPUUsage struct {
			TotalUsage        uint64 `json:"total_usage"`
			UsageInKernelmode uint64 `json:"usage_in_kernelmode"`
			UsageInUsermode   uint64 `json:"usage_in_usermode"`
		} `json:"cpu_usage"`
	} `json:"cpu_stats"`
}

// Version asks the daemon who it is; unversioned so it works before
// negotiation.
func (c *Client) Version(ctx context.Context) (*VersionInfo, error) {
	resp, err := c.raw(ctx, http.MethodGet, "/version", nil, nil, "")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var v VersionInfo
	return &v, json.NewDecoder(resp.Body).Decode(&v)
}

// ImageExists reports whether ref is present locally.
func (c *Client) ImageExists(ctx context.Context, ref string) (bool, error) {
	err := c.call(ctx, http.MethodGet, "/images/"+url.PathEscape(ref)+"/json", nil, nil, nil)
	if IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// CreateContainer creates (does not start) a container.
func (c *Client) CreateContainer(ctx context.Context, name string, cfg *ContainerConfig) (string, error) {
	var out struct {
		ID string `json:"Id"`
	}
	err := c.call(ctx, http.MethodPost, "/containers/create", url.Values{"name": {name}}, cfg, &out)
	return out.ID, err
}

// StartContainer starts a created container.
func (c *Client) StartContainer(ctx context.Context, id string) error {
	return c.call(ctx, http.MethodPost, "/containers/"+id+"/start", nil, nil, nil)
}

// WaitContainer blocks until the container is not running and returns its
// exit code.
func (c *Client) WaitContainer(ctx context.Context, id string) (int, error) {
	var out struct{ StatusCode int }
	err := c.call(ctx, http.MethodPost, "/containers/"+id+"/wait", url.Values{"condition": {"not-running"}}, nil, &out)
	return out.StatusCode, err
}

// InspectContainer describes a container.
func (c *Client) InspectContainer(ctx context.Context, id string) (*ContainerInfo, error) {
	var out ContainerInfo
	err := c.call(ctx, http.MethodGet, "/containers/"+id+"/json", nil, nil, &out)
	return &out, err
}

// KillContainer sends a signal (a name like "SIGTERM").
func (c *Client) KillContainer(ctx context.Context, id, signal string) error {
	return c.call(ctx, http.MethodPost, "/containers/"+id+"/kill", url.Values{"signal": {signal}}, nil, nil)
}

// RemoveContainer deletes a container and its anonymous volumes.
func (c *Client) RemoveContainer(ctx context.Context, id string, force bool) error {
	q := url.Values{"v": {"1"}, "force": {strconv.FormatBool(force)}}
	return c.call(ctx, http.MethodDelete, "/containers/"+id, q, nil, nil)
}

// Logs follows the container's multiplexed stdout and stderr from since.
func (c *Client) Logs(ctx context.Context, id string, since time.Time) (io.ReadCloser, error) {
	q := url.Values{"follow": {"1"}, "stdout": {"1"}, "stderr": {"1"}}
	if !since.IsZero() {
		q.Set("since", strconv.FormatFloat(float64(since.UnixNano())/1e9, 'f', 9, 64))
	}
	resp, err := c.request(ctx, http.MethodGet, "/containers/"+id+"/logs", q, nil, "")
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// Stats takes one usage sample without the one-second priming wait.
func (c *Client) Stats(ctx context.Context, id string) (*StatsInfo, error) {
	var out StatsInfo
	q := url.Values{"stream": {"false"}, "one-shot": {"true"}}
	err := c.call(ctx, http.MethodGet, "/containers/"+id+"/stats", q, nil, &out)
	return &out, err
}
