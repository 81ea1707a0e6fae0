package agent

import (
	"net/http"
	"reflect"

	"github.com/drover-project/drover/internal/acl"
)

// filterForACL drops from a handler's output what the caller may not
// see: list items in namespaces without the route's list capability, and
// node matches of a search for a caller without node read.
func filterForACL(r *http.Request, out any) any {
	res, ok := r.Context().Value(authzKey{}).(authzResult)
	if !ok || res.acl.IsManagement() || out == nil {
		return out
	}
	v := reflect.ValueOf(out)
	if v.Kind() == reflect.Slice && res.rule.listCap != "" {
		return filterSlice(v, res.acl, res.rule.listCap)
	}
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		if m := v.Elem().FieldByName("Matches"); m.IsValid() && m.Kind() == reflect.Map && !res.acl.AllowNodeRead() {
			for _, key := range m.MapKeys() {
				if key.Kind() == reflect.String && (key.String() == "nodes" || key.String() == "node_pools") {
					m.SetMapIndex(key, reflect.Value{})
				}
			}
		}
	}
	return out
}

// filterSlice keeps the elements whose Namespace field grants capability.
func filterSlice(v reflect.Value, a *acl.ACL, capability string) any {
	kept := reflect.MakeSlice(v.Type(), 0, v.Len())
	for i := range v.Len() {
		el := v.Index(i)
		s := el
		if s.Kind() == reflect.Pointer {
			if s.IsNil() {
				continue
			}
			s = s.Elem()
		}
		if s.Kind() != reflect.Struct {
			kept = reflect.Append(kept, el)
			continue
		}
		f := s.FieldByName("Namespace")
		if f.IsValid() && f.Kind() == reflect.String && !a.AllowNamespaceOperation(f.String(), capability) {
			continue
		}
		kept = reflect.Append(kept, el)
	}
	return kept.Interface()
}
