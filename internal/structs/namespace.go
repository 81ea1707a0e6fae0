package structs

import (
	"maps"
	"regexp"
)

// Namespace is a named partition of jobs (and their evals, allocs and
// deployments). Jobs may only be registered in a namespace that exists;
// "default" always does.
type Namespace struct {
	Name        string
	Description string
	Meta        map[string]string

	CreateIndex uint64
	ModifyIndex uint64
}

// DefaultNamespaceDescription describes the built-in namespace.
const DefaultNamespaceDescription = "Default shared namespace"

// BuiltinDefaultNamespace is the "default" namespace as it exists before
// anyone writes it: every server derives the same object, so it needs no
// raft entry to exist.
func BuiltinDefaultNamespace() *Namespace {
	return &Namespace{Name: DefaultNamespace, Description: DefaultNamespaceDescription}
}

// Copy returns a deep copy.
func (n *Namespace) Copy() *Namespace {
	if n == nil {
		return nil
	}
	c := *n
	c.Meta = maps.Clone(n.Meta)
	return &c
}

// namespaceName is Nomad's rule: 1 to 128 letters, digits and dashes.
var namespaceName = regexp.MustCompile(`^[a-zA-Z0-9-]{1,128}$`)

// maxNamespaceDescription bounds a namespace's description.
const maxNamespaceDescription = 256

// Validate checks a namespace as submitted.
func (n *Namespace) Validate() error {
	v := newValidator()
	if !namespaceName.MatchString(n.Name) {
		v.fail("Name", "must be 1-128 letters, digits or dashes, got %q", n.Name)
	}
	if len(n.Description) > maxNamespaceDescription {
		v.fail("Description", "must be at most %d characters, got %d", maxNamespaceDescription, len(n.Description))
	}
	return v.err()
}
