package server

import "github.com/drover-project/drover/internal/structs"

// namespaceOrDefault is a request's namespace, the default one when empty.
func namespaceOrDefault(ns string) string {
	if ns == "" {
		return structs.DefaultNamespace
	}
	return ns
}
