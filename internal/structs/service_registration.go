package structs

import (
	"fmt"
	"slices"
)

// Service providers of a `service` block. Only "nomad" services are
// registered in Drover's own catalog; "consul" ones are left to Consul.
const (
	ServiceProviderNomad  = "nomad"
	ServiceProviderConsul = "consul"
)

// ServiceRegistration is one allocation advertising one `service` block
// with `provider = "nomad"`: the native service catalog's row. The client
// that runs the alloc writes it (through raft) once the alloc runs and
// deletes it when the alloc stops.
type ServiceRegistration struct {
	// ID is unique per alloc and service: "_nomad-task-<alloc>-<scope>-<service>-<port>",
	// the shape Nomad gives it (scope is "group-<group>" or the task name).
	ID          string
	ServiceName string
	Namespace   string
	NodeID      string
	Datacenter  string
	JobID       string
	AllocID     string
	Tags        []string
	Address     string
	Port        int
	// Health sums up the service's checks as the client last ran them:
	// "" with no checks (or none run yet), else ServiceHealth*.
	Health string

	CreateIndex uint64
	ModifyIndex uint64
}

// Service health values: every check passing, some warning (a script
// check exiting 1) and none failing, or some failing.
const (
	ServiceHealthPassing  = "passing"
	ServiceHealthWarning  = "warning"
	ServiceHealthCritical = "critical"
)

// Copy returns a deep copy.
func (s *ServiceRegistration) Copy() *ServiceRegistration {
	if s == nil {
		return nil
	}
	c := *s
	c.Tags = slices.Clone(s.Tags)
	return &c
}

// Equal reports whether two registrations advertise the same thing
// (indexes aside), so an unchanged re-registration writes nothing.
func (s *ServiceRegistration) Equal(o *ServiceRegistration) bool {
	if s == nil || o == nil {
		return s == o
	}
	return s.ID == o.ID && s.ServiceName == o.ServiceName && s.Namespace == o.Namespace &&
		s.NodeID == o.NodeID && s.Datacenter == o.Datacenter && s.JobID == o.JobID &&
		s.AllocID == o.AllocID && slices.Equal(s.Tags, o.Tags) && s.Address == o.Address && s.Port == o.Port &&
		s.Health == o.Health
}

// Validate checks what the catalog relies on.
func (s *ServiceRegistration) Validate() error {
	switch {
	case s.ID == "":
		return fmt.Errorf("ID: missing")
	case s.ServiceName == "":
		return fmt.Errorf("ServiceName: missing")
	case s.Namespace == "":
		return fmt.Errorf("Namespace: missing")
	case s.NodeID == "":
		return fmt.Errorf("NodeID: missing")
	case s.AllocID == "":
		return fmt.Errorf("AllocID: missing")
	case s.JobID == "":
		return fmt.Errorf("JobID: missing")
	case s.Port < 0 || s.Port > 65535:
		return fmt.Errorf("Port: %d out of range", s.Port)
	}
	return nil
}

// ServiceRegistrationUpsertRequest is the raft payload (and the client's
// RPC argument) writing registrations. Every registration must belong to
// the calling node.
type ServiceRegistrationUpsertRequest struct {
	Services []*ServiceRegistration
	// NodeID and SecretID authenticate the client, as for Node.UpdateAlloc.
	NodeID   string
	SecretID string
	WriteRequest
}

// ServiceRegistrationDeleteByIDRequest is the raft payload deleting
// registrations by ID: one from the HTTP API (DELETE /v1/service/:name/:id),
// all of a stopped alloc from its client, or orphans from core GC.
type ServiceRegistrationDeleteByIDRequest struct {
	IDs []string
	// ServiceName, when set, must be the name of every deleted
	// registration (the HTTP path names both).
	ServiceName string
	// NodeID and SecretID authenticate a client; an operator's delete
	// leaves them empty.
	NodeID   string
	SecretID string
	WriteRequest
}

// ServiceRegistrationUpsertResponse answers a write.
type ServiceRegistrationUpsertResponse struct{ WriteMeta }

// ServiceRegistrationListRequest lists the catalog: one stub per service
// name per namespace ("*" lists every namespace).
type ServiceRegistrationListRequest struct{ QueryOptions }

// ServiceRegistrationListStub is one namespace's services.
type ServiceRegistrationListStub struct {
	Namespace string
	Services  []*ServiceRegistrationStub
}

// ServiceRegistrationStub is one service name and the union of its
// registrations' tags.
type ServiceRegistrationStub struct {
	ServiceName string
	Tags        []string
}

// ServiceRegistrationListResponse answers ServiceRegistration.List.
type ServiceRegistrationListResponse struct {
	Services []*ServiceRegistrationListStub
	QueryMeta
}

// ServiceRegistrationByNameRequest reads the registrations of one service
// name; Choose ("N|key") keeps N of them picked by rendezvous hashing on
// key, so callers with the same key get the same instances.
type ServiceRegistrationByNameRequest struct {
	ServiceName string
	Choose      string
	QueryOptions
}

// ServiceRegistrationByJobRequest reads a job's registrations.
type ServiceRegistrationByJobRequest struct {
	JobID string
	QueryOptions
}

// ServiceRegistrationByAllocRequest reads an allocation's registrations.
type ServiceRegistrationByAllocRequest struct {
	AllocID string
	QueryOptions
}

// ServiceRegistrationsResponse answers the reads of full registrations.
// Services is nil when an alloc read names an unknown allocation.
type ServiceRegistrationsResponse struct {
	Services []*ServiceRegistration
	QueryMeta
}

// Client RPC names of the service catalog.
const (
	RPCServiceRegistrationUpsert     = "ServiceRegistration.Upsert"
	RPCServiceRegistrationDeleteByID = "ServiceRegistration.DeleteByID"
)

// Event types of the Service topic (Nomad's names): a row written, a row
// removed (by its client, an operator, a node going down or GC).
const (
	TypeServiceRegistration   = "ServiceRegistration"
	TypeServiceDeregistration = "ServiceDeregistration"
)

// ServiceRegistrationEvent is the payload of a Service-topic event.
type ServiceRegistrationEvent struct{ Service *ServiceRegistration }
