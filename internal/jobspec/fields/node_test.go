package fields

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// TestEveryNodeFieldHasARow walks api.Node by reflection: every exported
// field of every struct type reachable without crossing a NotFilled row
// must have a row, so a field a new client version adds to the node is
// either filled or said not to be.
func TestEveryNodeFieldHasARow(t *testing.T) {
	var missing []string
	n := 0
	for _, ta := range NodeTypes() {
		for i := range ta.Type.NumField() {
			f := ta.Type.Field(i)
			if !f.IsExported() {
				continue
			}
			n++
			if LookupNode(ta.Type.Name()+"."+f.Name) == nil {
				missing = append(missing, ta.Type.Name()+"."+f.Name+" (first at "+strings.TrimPrefix(ta.Path+"."+f.Name, ".")+")")
			}
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d api.Node fields have no row; add one for each (filled, filled when set, or not filled and why):\n  %s", len(missing), strings.Join(missing, "\n  "))
	}
	if n < 60 {
		t.Fatalf("only %d fields walked: the walk is broken", n)
	}
}

// TestEveryNodeRowNamesAField fails on a node row whose type or field no
// longer exists in the node tree, or that sits beneath a NotFilled row,
// and on a row without the note its state needs.
func TestEveryNodeRowNamesAField(t *testing.T) {
	types := map[string]reflect.Type{}
	for _, ta := range NodeTypes() {
		types[ta.Type.Name()] = ta.Type
	}
	for _, r := range NodeRows() {
		typ, field, _ := strings.Cut(r.Key, ".")
		st, ok := types[typ]
		if !ok {
			t.Errorf("node row %s: no type %s in api.Node's tree (or only beneath a not-filled field)", r.Key, typ)
			continue
		}
		if _, ok := st.FieldByName(field); !ok {
			t.Errorf("node row %s: api.%s has no field %s", r.Key, typ, field)
		}
		if (r.Fill == NotFilled || r.Fill == FilledWhenSet) && r.Note == "" {
			t.Errorf("node row %s: %s without a note", r.Key, r.Fill)
		}
		if r.Fill < Filled || r.Fill > NotFilled {
			t.Errorf("node row %s: no fill", r.Key)
		}
	}
}

// UnfilledNodeFields names the Filled fields a node leaves zero, and
// nothing beneath an unset filled-when-set field or a not-filled one.
func TestUnfilledNodeFields(t *testing.T) {
	n := &api.Node{ID: "n", NodeResources: &api.NodeResources{Cpu: api.NodeCpuResources{CpuShares: 100},
		Networks: []*api.NetworkResource{{Mode: "host", IP: "10.0.0.1"}}},
		Events: []*api.NodeEvent{{Message: "registered"}}}
	got := strings.Join(UnfilledNodeFields(n), " ")
	for _, want := range []string{"Datacenter", "NodeResources.Cpu.TotalCpuCores", "NodeResources.Networks[0].CIDR",
		"Events[0].Subsystem", "Drivers", "ReservedResources"} {
		if !strings.Contains(" "+got+" ", " "+want+" ") {
			t.Errorf("missing %s in %s", want, got)
		}
	}
	for _, not := range []string{"ID", "NodeResources.Cpu.CpuShares", "NodeResources.Devices", "DrainStrategy", "Resources"} {
		if strings.Contains(" "+got+" ", " "+not+" ") {
			t.Errorf("%s reported in %s", not, got)
		}
	}
}

// TestNodeReferenceDocIsCurrent fails when docs/reference/node.md is not
// what the node table generates; -update rewrites it.
func TestNodeReferenceDocIsCurrent(t *testing.T) {
	path := filepath.Join(repoRoot(t), "docs", "reference", "node.md")
	want := NodeReferenceMarkdown()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/jobspec/fields -run TestNodeReferenceDocIsCurrent -update writes it)", err)
	}
	if string(got) != want {
		t.Fatalf("%s is stale: go test ./internal/jobspec/fields -run TestNodeReferenceDocIsCurrent -update", path)
	}
}
