package drivers

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// Env is what a Factory gets besides its plugin config.
type Env struct {
	Logger *slog.Logger
	Clock  clock.Clock
}

// Factory builds a driver from its plugin "NAME" { config { } } body
// (nil when the agent config has no such block).
type Factory func(config map[string]any, env Env) (Driver, error)

// Registry holds the client's drivers by name.
type Registry struct {
	mu      sync.RWMutex
	drivers map[string]Driver
}

// NewRegistry builds one driver per factory. A plugin block naming no
// known driver, or a config a driver rejects, is an error so a typo in the
// agent config does not silently disable a driver.
func NewRegistry(factories map[string]Factory, plugins map[string]map[string]any, env Env) (*Registry, error) {
	if env.Logger == nil {
		env.Logger = slog.Default()
	}
	if env.Clock == nil {
		env.Clock = clock.Real{}
	}
	for name := range plugins {
		if _, ok := factories[name]; !ok {
			return nil, fmt.Errorf("plugin %q: %w", name, ErrUnknownDriver)
		}
	}
	r := &Registry{drivers: map[string]Driver{}}
	for name, f := range factories {
		d, err := f(plugins[name], Env{Logger: env.Logger.With("driver", name), Clock: env.Clock})
		if err != nil {
			return nil, fmt.Errorf("plugin %q: %w", name, err)
		}
		r.drivers[name] = d
	}
	return r, nil
}

// Register adds or replaces a driver (tests, the simulator).
func (r *Registry) Register(d Driver) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.drivers == nil {
		r.drivers = map[string]Driver{}
	}
	r.drivers[d.Name()] = d
}

// Get returns the named driver.
func (r *Registry) Get(name string) (Driver, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	d, ok := r.drivers[name]
	if !ok {
		return nil, fmt.Errorf("driver %q: %w", name, ErrUnknownDriver)
	}
	return d, nil
}

// Names lists the drivers, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.drivers))
	for n := range r.drivers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// FingerprintAll asks every driver for its fingerprint, concurrently since
// some (docker) talk to a daemon.
func (r *Registry) FingerprintAll(ctx context.Context) map[string]*structs.DriverInfo {
	names := r.Names()
	out := make(map[string]*structs.DriverInfo, len(names))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, n := range names {
		d, _ := r.Get(n)
		wg.Go(func() {
			info := d.Fingerprint(ctx)
			mu.Lock()
			out[n] = info
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}
