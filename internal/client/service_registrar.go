package client

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// ServiceCatalog is the part of the servers that stores native service
// registrations. A Servers implementation that also implements it gets
// the alloc runners' `provider = "nomad"` services registered; others
// (test fakes) simply have no catalog.
type ServiceCatalog interface {
	UpsertServices(ctx context.Context, args *structs.ServiceRegistrationUpsertRequest) (*structs.ServiceRegistrationUpsertResponse, error)
	DeleteServices(ctx context.Context, args *structs.ServiceRegistrationDeleteByIDRequest) (*structs.ServiceRegistrationUpsertResponse, error)
}

// serviceRegistrar keeps the servers' catalog in line with what the alloc
// runners advertise. Runners hand it their current set (set never blocks);
// a loop upserts what is new or changed and deletes what went away, one
// alloc at a time, retrying with backoff on the clock after a failure.
type serviceRegistrar struct {
	c       *Client
	catalog ServiceCatalog

	mu      sync.Mutex
	desired map[string][]*structs.ServiceRegistration          // alloc -> what it advertises
	synced  map[string]map[string]*structs.ServiceRegistration // alloc -> ID -> what the servers hold
	wake    chan struct{}
}

func newServiceRegistrar(c *Client, catalog ServiceCatalog) *serviceRegistrar {
	return &serviceRegistrar{c: c, catalog: catalog, desired: map[string][]*structs.ServiceRegistration{},
		synced: map[string]map[string]*structs.ServiceRegistration{}, wake: make(chan struct{}, 1)}
}

// set is an alloc runner's Services callback.
func (s *serviceRegistrar) set(allocID string, regs []*structs.ServiceRegistration) {
	s.mu.Lock()
	s.desired[allocID] = regs
	s.mu.Unlock()
	s.poke()
}

func (s *serviceRegistrar) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// loop syncs once the node is registered (the servers authenticate the
// calls with its secret).
func (s *serviceRegistrar) loop() {
	select {
	case <-s.c.registered:
	case <-s.c.ctx.Done():
		return
	}
	failures := 0
	for {
		select {
		case <-s.wake:
		case <-s.c.ctx.Done():
			return
		}
		if err := s.syncAll(); err != nil {
			if s.c.ctx.Err() != nil {
				return
			}
			failures++
			s.c.logger.Warn("service registration failed", "error", err, "attempt", failures)
			s.c.clock.AfterFunc(backoff(failures, 30*time.Second), s.poke)
			continue
		}
		failures = 0
	}
}

// syncAll brings every alloc whose set changed up to date.
func (s *serviceRegistrar) syncAll() error {
	s.mu.Lock()
	allocs := make([]string, 0, len(s.desired))
	for id := range s.desired {
		allocs = append(allocs, id)
	}
	s.mu.Unlock()
	sort.Strings(allocs)
	for _, id := range allocs {
		if err := s.syncAlloc(id); err != nil {
			return err
		}
	}
	return nil
}

func (s *serviceRegistrar) syncAlloc(allocID string) error {
	s.mu.Lock()
	want, held := s.desired[allocID], s.synced[allocID]
	s.mu.Unlock()
	var upserts []*structs.ServiceRegistration
	keep := map[string]bool{}
	for _, reg := range want {
		keep[reg.ID] = true
		if !held[reg.ID].Equal(reg) {
			upserts = append(upserts, reg)
		}
	}
	var deletes []string
	for id := range held {
		if !keep[id] {
			deletes = append(deletes, id)
		}
	}
	sort.Strings(deletes)
	ctx := s.c.ctx
	if len(upserts) > 0 {
		if _, err := s.catalog.UpsertServices(ctx, &structs.ServiceRegistrationUpsertRequest{
			Services: upserts, NodeID: s.c.nodeID, SecretID: s.c.secretID,
		}); err != nil {
			return err
		}
	}
	if len(deletes) > 0 {
		if _, err := s.catalog.DeleteServices(ctx, &structs.ServiceRegistrationDeleteByIDRequest{
			IDs: deletes, NodeID: s.c.nodeID, SecretID: s.c.secretID,
		}); err != nil {
			return err
		}
	}
	s.record(allocID, want)
	return nil
}

// record notes what the servers now hold, unless the runner handed over a
// newer set meanwhile (the next pass syncs that one). An alloc that
// advertises nothing is forgotten.
func (s *serviceRegistrar) record(allocID string, synced []*structs.ServiceRegistration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	held := map[string]*structs.ServiceRegistration{}
	for _, reg := range synced {
		held[reg.ID] = reg
	}
	s.synced[allocID] = held
	if cur := s.desired[allocID]; len(cur) == 0 && len(synced) == 0 {
		delete(s.desired, allocID)
		delete(s.synced, allocID)
	}
}

// serviceSink is the alloc runners' Services callback (nil: no catalog).
func (c *Client) serviceSink() func(string, []*structs.ServiceRegistration) {
	if c.services == nil {
		return nil
	}
	return c.services.set
}
