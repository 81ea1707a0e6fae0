package fsm

import "github.com/drover-project/drover/internal/structs"

func (f *FSM) applyNamespaceUpsert(req *structs.NamespaceUpsertRequest, index uint64) error {
	return f.state.UpsertNamespaces(index, req.Namespaces)
}

// applyNamespaceDelete re-checks, in the log's order, that no job was
// registered in the namespace since the server checked.
func (f *FSM) applyNamespaceDelete(req *structs.NamespaceDeleteRequest, index uint64) error {
	return f.state.DeleteNamespaces(index, req.Namespaces)
}
