// Package fingerprint gathers the machine facts a client registers with:
// node attributes under Nomad's names (cpu.*, memory.*, kernel.*, os.*,
// unique.*, driver.*) and the resources the scheduler may hand out.
package fingerprint

import (
	"context"
	"fmt"
	"maps"
	"reflect"

	"github.com/drover-project/drover/internal/structs"
)

// Dynamic port range Nomad clients offer by default.
const (
	DefaultMinDynamicPort = 20000
	DefaultMaxDynamicPort = 32000
)

// DriverSource fingerprints drivers; *drivers.Registry is one.
type DriverSource interface {
	FingerprintAll(ctx context.Context) map[string]*structs.DriverInfo
}

// Config steers fingerprinting.
type Config struct {
	DataDir          string // whose filesystem is the node's disk
	NetworkInterface string // default: the interface of the default route
	CPUTotalCompute  int    // MHz override for machines that do not report it
	MemoryTotalMB    int    // override
	Drivers          DriverSource
}

// Result is one fingerprint.
type Result struct {
	Attributes map[string]string
	Resources  *structs.NodeResources
	Drivers    map[string]*structs.DriverInfo
	Interfaces []Interface
}

// step adds its facts to the result.
type step func(ctx context.Context, cfg Config, r *Result) error

// Fingerprint runs every step; a failing step fails the fingerprint, with
// the step's reason, since registering half a node would mislead the
// scheduler.
func Fingerprint(ctx context.Context, cfg Config) (*Result, error) {
	r := &Result{
		Attributes: map[string]string{},
		Resources:  &structs.NodeResources{MinDynamicPort: DefaultMinDynamicPort, MaxDynamicPort: DefaultMaxDynamicPort},
		Drivers:    map[string]*structs.DriverInfo{},
	}
	steps := []struct {
		name string
		run  step
	}{
		{"cpu", fingerprintCPU}, {"memory", fingerprintMemory}, {"storage", fingerprintStorage},
		{"host", fingerprintHost}, {"network", fingerprintNetwork}, {"drivers", fingerprintDrivers},
	}
	for _, s := range steps {
		if err := s.run(ctx, cfg, r); err != nil {
			return nil, fmt.Errorf("fingerprint %s: %w", s.name, err)
		}
	}
	return r, nil
}

// volatile attributes change on every run; they are reported but do not
// count as a fingerprint change, or a client would re-register constantly.
var volatile = map[string]bool{"unique.storage.bytesfree": true}

// Diff reports whether b differs from a in anything the servers care
// about. Free disk space (and so DiskMB) and driver update times drift
// and are ignored.
func Diff(a, b *Result) bool {
	if a == nil || b == nil {
		return a != b
	}
	if !maps.EqualFunc(stable(a.Attributes), stable(b.Attributes), func(x, y string) bool { return x == y }) {
		return true
	}
	ra, rb := *a.Resources, *b.Resources
	ra.DiskMB, rb.DiskMB = 0, 0
	if !reflect.DeepEqual(ra, rb) {
		return true
	}
	return driversDiffer(a.Drivers, b.Drivers)
}

func stable(attrs map[string]string) map[string]string {
	out := make(map[string]string, len(attrs))
	for k, v := range attrs {
		if !volatile[k] {
			out[k] = v
		}
	}
	return out
}

func driversDiffer(a, b map[string]*structs.DriverInfo) bool {
	if len(a) != len(b) {
		return true
	}
	for name, x := range a {
		y, ok := b[name]
		if !ok || x.Detected != y.Detected || x.Healthy != y.Healthy || x.HealthDescription != y.HealthDescription || !maps.Equal(x.Attributes, y.Attributes) {
			return true
		}
	}
	return false
}
