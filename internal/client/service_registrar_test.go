package client

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// fakeCatalog records the registrar's calls; failNext fails the next one.
type fakeCatalog struct {
	upserts  [][]string
	deletes  [][]string
	failNext bool
}

func (f *fakeCatalog) UpsertServices(_ context.Context, args *structs.ServiceRegistrationUpsertRequest) (*structs.ServiceRegistrationUpsertResponse, error) {
	if f.failNext {
		f.failNext = false
		return nil, errors.New("server away")
	}
	var ids []string
	for _, r := range args.Services {
		ids = append(ids, r.ID)
	}
	f.upserts = append(f.upserts, ids)
	return &structs.ServiceRegistrationUpsertResponse{}, nil
}

func (f *fakeCatalog) DeleteServices(_ context.Context, args *structs.ServiceRegistrationDeleteByIDRequest) (*structs.ServiceRegistrationUpsertResponse, error) {
	f.deletes = append(f.deletes, slices.Clone(args.IDs))
	return &structs.ServiceRegistrationUpsertResponse{}, nil
}

// The registrar sends only differences: new or changed rows, then the
// rows that went away; a failed call is retried whole on the next pass.
func TestServiceRegistrar_SendsDifferences(t *testing.T) {
	c := &Client{ctx: context.Background(), logger: slog.New(slog.NewTextHandler(io.Discard, nil)), nodeID: "n1", secretID: "s"}
	cat := &fakeCatalog{}
	s := newServiceRegistrar(c, cat)
	reg := func(id string, port int) *structs.ServiceRegistration {
		return &structs.ServiceRegistration{ID: id, ServiceName: "web", AllocID: "a1", Port: port}
	}
	steps := []struct {
		name          string
		set           []*structs.ServiceRegistration
		fail          bool
		upsert, unset []string
	}{
		{"first registration", []*structs.ServiceRegistration{reg("r1", 1), reg("r2", 2)}, false, []string{"r1", "r2"}, nil},
		{"nothing changed", []*structs.ServiceRegistration{reg("r1", 1), reg("r2", 2)}, false, nil, nil},
		{"a port moved, one left: the call fails", []*structs.ServiceRegistration{reg("r1", 9)}, true, nil, nil},
		{"retried", []*structs.ServiceRegistration{reg("r1", 9)}, false, []string{"r1"}, []string{"r2"}},
		{"the alloc stopped", nil, false, nil, []string{"r1"}},
	}
	for _, st := range steps {
		cat.upserts, cat.deletes, cat.failNext = nil, nil, st.fail
		s.set("a1", st.set)
		err := s.syncAll()
		if (err != nil) != st.fail {
			t.Fatalf("%s: err %v", st.name, err)
		}
		var gotUp, gotDel []string
		for _, u := range cat.upserts {
			gotUp = append(gotUp, u...)
		}
		for _, d := range cat.deletes {
			gotDel = append(gotDel, d...)
		}
		if !slices.Equal(gotUp, st.upsert) || !slices.Equal(gotDel, st.unset) {
			t.Fatalf("%s: upserted %v deleted %v, want %v and %v", st.name, gotUp, gotDel, st.upsert, st.unset)
		}
	}
	if len(s.desired) != 0 || len(s.synced) != 0 {
		t.Fatalf("a stopped alloc is still tracked: %v %v", s.desired, s.synced)
	}
}
