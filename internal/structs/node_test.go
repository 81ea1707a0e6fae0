package structs

import "testing"

func TestNode_LookupVariable(t *testing.T) {
	n := &Node{ID: "id-1", Name: "web-1", Datacenter: "dc2", NodeClass: "gpu", NodePool: "batch",
		Attributes: map[string]string{"kernel.name": "linux"}, Meta: map[string]string{"rack": "r7"}}
	cases := []struct {
		name, want string
		ok         bool
	}{
		{"node.unique.id", "id-1", true}, {"node.unique.name", "web-1", true},
		{"node.datacenter", "dc2", true}, {"node.class", "gpu", true}, {"node.pool", "batch", true},
		{"attr.kernel.name", "linux", true}, {"meta.rack", "r7", true},
		{"attr.missing", "", false}, {"meta.missing", "", false}, {"node.region", "", false}, {"bogus", "", false},
	}
	for _, tc := range cases {
		got, ok := n.LookupVariable(tc.name)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
