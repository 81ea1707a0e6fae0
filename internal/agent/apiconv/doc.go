// Package apiconv converts between the wire types of the official Nomad Go
// client (github.com/hashicorp/nomad/api) and Drover's internal structs.
//
// It is used only at the HTTP boundary: handlers decode api types, convert
// them inbound with the *ToStructs functions, and convert results outbound
// with the *FromStructs functions before encoding.
//
// Inbound conversion dereferences the api's optional pointers to zero values
// and leaves defaulting to structs.Job.Canonicalize, except where the
// pointer information structs no longer has decides (see inherit.go, the
// presence defaults in taskgroup.go and policies.go, and the affinity weight
// in placement.go: absent is 50, an explicit 0 is kept for validation to
// refuse).
//
// Outbound conversion is full fidelity: every scalar pointer of the api type
// is set (as Nomad does for canonicalized jobs), so that
// JobToStructs(JobFromStructs(j)) equals j.
//
// Fields that have the same name and plain type on both sides (or differ
// only by the api's optional pointer) are copied by byName (byname.go);
// converters spell out the rest.
package apiconv
