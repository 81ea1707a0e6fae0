package server

import (
	"github.com/google/uuid"

	"github.com/drover-project/drover/internal/structs"
)

// namespaceOrDefault is a request's namespace, the default one when empty.
func namespaceOrDefault(ns string) string {
	if ns == "" {
		return structs.DefaultNamespace
	}
	return ns
}

// NewUUID returns a random UUID string.
func NewUUID() string { return uuid.NewString() }

// ids maps objects to their IDs (search answers IDs).
func ids[T any](objs []T, id func(T) string) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, id(o))
	}
	return out
}
