package auth

// Kinds of objects NamespaceOf knows.
const (
	ObjectAlloc      = "alloc"
	ObjectEval       = "eval"
	ObjectDeployment = "deployment"
)

// NamespaceOf returns the namespace of an allocation, evaluation or
// deployment, whose IDs are global: a request naming one is checked
// against the capabilities of the object's namespace, not of the
// namespace the caller claims. ok is false when there is no such object.
func (s *Service) NamespaceOf(kind, id string) (ns string, ok bool) {
	st := s.srv.State()
	switch kind {
	case ObjectAlloc:
		if a, _ := st.AllocByID(nil, id); a != nil {
			return a.Namespace, true
		}
	case ObjectEval:
		if e, _ := st.EvalByID(nil, id); e != nil {
			return e.Namespace, true
		}
	case ObjectDeployment:
		if d, _ := st.DeploymentByID(nil, id); d != nil {
			return d.Namespace, true
		}
	}
	return "", false
}
