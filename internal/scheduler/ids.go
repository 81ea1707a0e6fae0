package scheduler

import (
	crand "crypto/rand"
	"hash/fnv"
	"math/rand/v2"

	"github.com/google/uuid"
)

// newID makes IDs for allocations, evaluations and deployments when the
// caller injects no ID source (Deps.NewID; the simulator injects one): a
// random (version 4) UUID, as uuid.NewString makes it from crypto/rand,
// read without its heap copy (one per placement).
func newID() string {
	var u uuid.UUID
	crand.Read(u[:])            // never fails: crypto/rand crashes the program instead
	u[6] = (u[6] & 0x0f) | 0x40 // version 4
	u[8] = (u[8] & 0x3f) | 0x80 // variant RFC 4122
	return u.String()
}

// evalRand returns the random source for one eval, seeded from its ID, so
// that processing the same eval against the same state gives the same plan
// (node sampling order, dynamic ports).
func evalRand(evalID string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(evalID))
	seed := h.Sum64()
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// idFrom makes an ID with the injected source, or newID when there is none.
func idFrom(ids func() string) string {
	if ids != nil {
		return ids()
	}
	return newID()
}
