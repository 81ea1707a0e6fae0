package structs

import "hash/fnv"

// RendezvousWeight is id's highest-random-weight score for key: sorting
// instances by it (highest first) and keeping N picks the same N for every
// caller with the same key, and an instance leaving moves only its callers.
// The server's `choose=N|key` and the templates' nomadService use it.
func RendezvousWeight(key, id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	h.Write([]byte{0})
	h.Write([]byte(id))
	return h.Sum64()
}
