package structs

// Requests and responses of the Namespace.* endpoints, and the raft
// entries they write.

// NamespaceListRequest lists namespaces (QueryOptions.Prefix filters).
type NamespaceListRequest struct {
	QueryOptions
}

// NamespaceListResponse lists namespaces by name.
type NamespaceListResponse struct {
	Namespaces []*Namespace
	QueryMeta
}

// NamespaceSpecificRequest addresses one namespace.
type NamespaceSpecificRequest struct {
	Name string
	QueryOptions
}

// SingleNamespaceResponse is one namespace, nil when absent.
type SingleNamespaceResponse struct {
	Namespace *Namespace
	QueryMeta
}

// NamespaceUpsertRequest creates or updates namespaces; it is also the
// raft entry.
type NamespaceUpsertRequest struct {
	Namespaces []*Namespace
	WriteRequest
}

// NamespaceDeleteRequest deletes namespaces by name; it is also the raft
// entry.
type NamespaceDeleteRequest struct {
	Namespaces []string
	WriteRequest
}

// GenericWriteResponse is a write's index and nothing else.
type GenericWriteResponse struct {
	WriteMeta
}
