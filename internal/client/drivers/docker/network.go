package docker

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"runtime"
	"strconv"
	"sync"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// An alloc with a network namespace of its own (group network mode
// bridge, cni/* or none) keeps that namespace in a pause ("infra")
// container, as Nomad does: the Engine joins a container only to another
// container's namespace. CreateNetwork starts the pause container on
// network "none" and returns its namespace, which the client wires with
// CNI (and bind-mounts at /var/run/netns/<alloc> for the alloc's exec and
// raw_exec tasks); every docker task of the alloc then runs with network
// mode container:<pause>. The pause container carries the network block's
// hostname and dns, which containers joining it share.

// LabelInfra marks the pause container of an alloc (value "true").
const LabelInfra = "com.drover.infra"

// DefaultInfraImage is Nomad's default infra_image for this architecture.
var DefaultInfraImage = "registry.k8s.io/pause-" + runtime.GOARCH + ":3.3"

// infraUser is the image-GC user an alloc's pause container counts as.
func infraUser(allocID string) string { return "infra/" + allocID }

// infraName is Nomad's name for the pause container.
func infraName(allocID string) string { return "nomad_init_" + allocID }

// infras is the pause container of each alloc the driver holds.
type infras struct {
	mu  sync.Mutex
	ids map[string]infra // alloc ID ->
}

type infra struct{ id, imageID string }

func (i *infras) set(allocID string, v infra) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.ids == nil {
		i.ids = map[string]infra{}
	}
	i.ids[allocID] = v
}

func (i *infras) get(allocID string) (infra, bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	v, ok := i.ids[allocID]
	return v, ok
}

func (i *infras) take(allocID string) (infra, bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	v, ok := i.ids[allocID]
	delete(i.ids, allocID)
	return v, ok
}

// CreateNetwork starts (or, after a client restart, finds by label) the
// alloc's pause container and returns the path of its network namespace.
func (d *Driver) CreateNetwork(ctx context.Context, spec *drivers.AllocNetworkSpec) (string, error) {
	if found, pid, err := d.findInfra(ctx, spec.AllocID); err != nil {
		return "", err
	} else if found.id != "" && pid > 0 {
		d.adoptInfra(spec.AllocID, found)
		return nsPathOf(pid), nil
	} else if found.id != "" {
		d.removeContainer(found.id) // stopped: its namespace is gone, make a new one
	}
	image := d.cfg.InfraImage
	tc := &drivers.TaskConfig{ID: infraUser(spec.AllocID), AllocID: spec.AllocID}
	imageID, err := d.ensureImage(ctx, tc, &TaskConfig{Image: image, ImagePullTimeout: d.cfg.InfraImagePullTimeout})
	if err != nil {
		return "", fmt.Errorf("infra_image: %w", err)
	}
	d.images.acquire(imageID, infraUser(spec.AllocID))
	cc := &container.Config{Image: image, Hostname: spec.Hostname,
		Labels: map[string]string{LabelAllocID: spec.AllocID, LabelInfra: "true"}}
	if spec.AllocDir != "" {
		cc.Labels[LabelAllocDir] = spec.AllocDir
	}
	hc := &container.HostConfig{NetworkMode: "none", DNSSearch: spec.DNSSearches, DNSOptions: spec.DNSOptions}
	for _, s := range spec.DNSServers {
		a, err := netip.ParseAddr(s)
		if err != nil {
			d.images.release(imageID, infraUser(spec.AllocID))
			return "", fmt.Errorf("dns server %q is not an IP address", s)
		}
		hc.DNS = append(hc.DNS, a)
	}
	id, err := d.create(ctx, infraName(spec.AllocID), &createSpec{Config: cc, HostConfig: hc})
	if err == nil {
		_, err = d.client.ContainerStart(ctx, id, client.ContainerStartOptions{})
	}
	var pid int
	if err == nil {
		pid, err = d.pidOf(ctx, id)
	}
	if err != nil {
		if id != "" {
			d.removeContainer(id)
		}
		d.images.release(imageID, infraUser(spec.AllocID))
		return "", fmt.Errorf("pause container: %w", err)
	}
	d.infras.set(spec.AllocID, infra{id: id, imageID: imageID})
	d.containers.add(id)
	return nsPathOf(pid), nil
}

// DestroyNetwork removes the alloc's pause container; an alloc without
// one is not an error.
func (d *Driver) DestroyNetwork(ctx context.Context, allocID string) error {
	in, ok := d.infras.take(allocID)
	if !ok {
		found, _, err := d.findInfra(ctx, allocID)
		if err != nil || found.id == "" {
			return err
		}
		in = found
	}
	_, err := d.client.ContainerRemove(ctx, in.id, client.ContainerRemoveOptions{Force: true})
	if err != nil && !IsNotFound(err) {
		d.infras.set(allocID, in)
		return fmt.Errorf("remove pause container: %w", err)
	}
	d.containers.remove(in.id)
	d.images.release(in.imageID, infraUser(allocID))
	return nil
}

// adoptInfra records a pause container found after a restart.
func (d *Driver) adoptInfra(allocID string, in infra) {
	if _, ok := d.infras.get(allocID); !ok {
		d.images.acquire(in.imageID, infraUser(allocID))
	}
	d.infras.set(allocID, in)
	d.containers.add(in.id)
}

// findInfra looks the alloc's pause container up by its labels; pid is 0
// when it is not running.
func (d *Driver) findInfra(ctx context.Context, allocID string) (infra, int, error) {
	f := make(client.Filters).Add("label", LabelAllocID+"="+allocID).Add("label", LabelInfra+"=true")
	list, err := d.client.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return infra{}, 0, fmt.Errorf("find pause container: %w", err)
	}
	if len(list.Items) == 0 {
		return infra{}, 0, nil
	}
	c := list.Items[0]
	in := infra{id: c.ID, imageID: c.ImageID}
	if c.State != container.StateRunning {
		return in, 0, nil
	}
	pid, err := d.pidOf(ctx, c.ID)
	if err != nil {
		return infra{}, 0, err
	}
	return in, pid, nil
}

func (d *Driver) pidOf(ctx context.Context, id string) (int, error) {
	info, err := d.client.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		return 0, err
	}
	if s := info.Container.State; s != nil && s.Running && s.Pid > 0 {
		return s.Pid, nil
	}
	return 0, errors.New("pause container is not running")
}

func nsPathOf(pid int) string { return "/proc/" + strconv.Itoa(pid) + "/ns/net" }

// joinAllocNetwork puts a task of an alloc with its own namespace in the
// alloc's pause container's namespace. What Docker cannot set on a
// container that joins another's namespace is refused, naming the option
// and where the group sets it instead; ports are mapped by CNI, so the
// labels in ports are only checked to be the task's.
func (d *Driver) joinAllocNetwork(ctx context.Context, tc *drivers.TaskConfig, spec *createSpec) error {
	if tc.Network == nil {
		return nil
	}
	in, ok := d.infras.get(tc.AllocID)
	if !ok {
		found, pid, err := d.findInfra(ctx, tc.AllocID)
		if err != nil {
			return err
		}
		if pid == 0 {
			return fmt.Errorf("network mode %q: alloc %s has no running pause container holding its network namespace", tc.Network.Mode, tc.AllocID)
		}
		d.adoptInfra(tc.AllocID, found)
		in = found
	}
	hc := spec.HostConfig
	hc.NetworkMode = container.NetworkMode("container:" + in.id)
	hc.PortBindings, spec.Config.ExposedPorts = nil, nil
	spec.Networking = nil
	return nil
}

// checkJoinable refuses the options a container joined to the alloc's
// namespace cannot take.
func checkJoinable(tc *drivers.TaskConfig, cfg *TaskConfig) error {
	if tc.Network == nil {
		return nil
	}
	in := fmt.Sprintf("the task joins the group's network namespace (network mode %q)", tc.Network.Mode)
	for _, c := range []struct {
		field string
		set   bool
		where string
	}{
		{"network_mode", cfg.NetworkMode != "", ""},
		{"hostname", cfg.Hostname != "", `; set hostname in the group's network block`},
		{"dns_servers", len(cfg.DNSServers) > 0, `; set dns { servers } in the group's network block`},
		{"dns_search_domains", len(cfg.DNSSearchDomains) > 0, `; set dns { searches } in the group's network block`},
		{"dns_options", len(cfg.DNSOptions) > 0, `; set dns { options } in the group's network block`},
		{"extra_hosts", len(cfg.ExtraHosts) > 0, ""},
		{"mac_address", cfg.MacAddress != "", ""},
		{"ipv4_address", cfg.IPv4Address != "", ""},
		{"network_aliases", len(cfg.NetworkAliases) > 0, ""},
		{"port_map", len(cfg.PortMap) > 0, `; the port's "to" in the group's network block is the container port`},
	} {
		if c.set {
			return &drivers.ConfigError{Field: c.field, Reason: in + ", which sets the network" + c.where}
		}
	}
	allocated := map[string]bool{}
	for _, p := range tc.Ports {
		allocated[p.Label] = true
	}
	for _, l := range cfg.Ports {
		if !allocated[l] {
			return &drivers.ConfigError{Field: "ports", Reason: fmt.Sprintf("port label %q is not allocated to the task (missing from its network block)", l)}
		}
	}
	return nil
}
