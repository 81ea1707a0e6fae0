package allocrunner

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestServiceRegistrations(t *testing.T) {
	job := &structs.Job{ID: "web", Namespace: "default", TaskGroups: []*structs.TaskGroup{{
		Name: "g",
		Services: []*structs.Service{
			{Name: "front", PortLabel: "http", Provider: "nomad", Tags: []string{"a"}},
			{Name: "in-consul", PortLabel: "http", Provider: "consul"},
			{Name: "pinned", PortLabel: "http", Provider: "nomad", Address: "10.9.9.9"},
			{Name: "literal", PortLabel: "7000", Provider: "nomad"},
		},
		Tasks: []*structs.Task{
			{Name: "app", Services: []*structs.Service{{Name: "admin", PortLabel: "admin", Provider: "nomad"}}},
			{Name: "side"},
		},
	}}}
	alloc := &structs.Allocation{ID: "a1", Namespace: "default", JobID: "web", TaskGroup: "g", Job: job,
		AllocatedResources: &structs.AllocatedResources{
			Shared: structs.AllocatedSharedResources{Networks: []*structs.NetworkResource{{
				IP: "192.168.1.5", DynamicPorts: []structs.Port{{Label: "http", Value: 25001}},
			}}},
			Tasks: map[string]*structs.AllocatedTaskResources{"app": {Networks: []*structs.NetworkResource{{
				IP: "0.0.0.0", DynamicPorts: []structs.Port{{Label: "admin", Value: 25002}},
			}}}},
		}}
	node := &structs.Node{ID: "n1", Datacenter: "dc1", Attributes: map[string]string{"unique.network.ip-address": "172.16.0.2"}}

	type row struct {
		id, addr string
		port     int
	}
	cases := []struct {
		name    string
		running map[string]bool
		groupUp bool
		want    []row
	}{
		{"nothing runs", nil, false, nil},
		{"one task up, group not yet", map[string]bool{"app": true}, false, []row{
			{"_nomad-task-a1-app-admin-admin", "172.16.0.2", 25002}, // wildcard host IP: the node's address
		}},
		{"everything up", map[string]bool{"app": true, "side": true}, true, []row{
			{"_nomad-task-a1-group-g-front-http", "192.168.1.5", 25001},
			{"_nomad-task-a1-group-g-pinned-http", "10.9.9.9", 25001},
			{"_nomad-task-a1-group-g-literal-7000", "172.16.0.2", 7000},
			{"_nomad-task-a1-app-admin-admin", "172.16.0.2", 25002},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ServiceRegistrations(alloc, node, tc.running, tc.groupUp, nil)
			if len(got) != len(tc.want) {
				t.Fatalf("%d registrations, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				g := got[i]
				if g.ID != w.id || g.Address != w.addr || g.Port != w.port || g.NodeID != "n1" || g.Datacenter != "dc1" || g.JobID != "web" {
					t.Errorf("registration %d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// canary_tags replace tags while the alloc is an unpromoted canary (and
// only when there are some); promotion clears the mark and the tags
// come back.
func TestServiceRegistrations_CanaryTags(t *testing.T) {
	job := &structs.Job{ID: "web", TaskGroups: []*structs.TaskGroup{{Name: "g", Services: []*structs.Service{
		{Name: "front", Provider: "nomad", Tags: []string{"live"}, CanaryTags: []string{"canary"}},
		{Name: "plain", Provider: "nomad", Tags: []string{"live"}},
	}}}}
	for _, tc := range []struct {
		ds         *structs.AllocDeploymentStatus
		front, pln string
	}{
		{nil, "live", "live"},
		{&structs.AllocDeploymentStatus{Canary: true}, "canary", "live"},
		{&structs.AllocDeploymentStatus{Canary: false}, "live", "live"},
	} {
		alloc := &structs.Allocation{ID: "a1", TaskGroup: "g", Job: job, DeploymentStatus: tc.ds}
		got := ServiceRegistrations(alloc, nil, nil, true, nil)
		if len(got) != 2 || len(got[0].Tags) != 1 || got[0].Tags[0] != tc.front || got[1].Tags[0] != tc.pln {
			t.Errorf("deployment status %+v: %+v", tc.ds, got)
		}
	}
}
