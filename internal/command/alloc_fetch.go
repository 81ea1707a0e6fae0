package command

import "github.com/hashicorp/nomad/api"

// fetchAlloc resolves an allocation prefix and reads the allocation, which
// the alloc action endpoints take whole (they route by its node).
func (e *env) fetchAlloc(prefix string) (*api.Allocation, error) {
	id, err := e.resolveAlloc(prefix)
	if err != nil {
		return nil, err
	}
	cl, _ := e.api()
	a, _, err := cl.Allocations().Info(id, e.query())
	if err != nil {
		return nil, apiError("reading allocation "+id, err)
	}
	return a, nil
}
