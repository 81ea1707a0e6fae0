package agent

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// The key-encryption key reaches every server: followers open variables
// on stale reads, and after the leader dies the new one (which never
// created a key) runs a full rotation that re-seals them.
func TestCluster_KEKReachesFollowersAndSurvivesFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-server cluster")
	}
	s1 := startClusterServer(t, "s1", t.TempDir(), nil)
	join := []string{s1.agent.Server().SerfAddr()}
	s2 := startClusterServer(t, "s2", t.TempDir(), join)
	s3 := startClusterServer(t, "s3", t.TempDir(), join)
	nodes := []*clusterNode{s1, s2, s3}
	leader := waitForLeader(t, nodes, 3)
	waitFor(t, "a variable written through the leader", 20*time.Second, func() (bool, string) {
		_, _, err := leader.api.Variables().Create(&api.Variable{Path: "app/db", Items: api.VariableItems{"pass": "s3cret"}}, nil)
		return err == nil, fmt.Sprint(err)
	})
	for _, n := range nodes {
		waitFor(t, n.name+" opening the variable on a stale read", 20*time.Second, func() (bool, string) {
			v, _, err := n.api.Variables().Read("app/db", &api.QueryOptions{AllowStale: true})
			if err != nil || v == nil {
				return false, fmt.Sprint(err)
			}
			return v.Items["pass"] == "s3cret", fmt.Sprint(v.Items)
		})
	}

	old, _, err := leader.api.Keyring().List(nil)
	if err != nil || len(old) != 1 {
		t.Fatalf("keyring: %+v %v", old, err)
	}
	leader.stop()
	var live []*clusterNode
	for _, n := range nodes {
		if n.agent != nil {
			live = append(live, n)
		}
	}
	next := waitForLeader(t, live, 3)
	waitFor(t, "a full rotation on the new leader", 20*time.Second, func() (bool, string) {
		_, _, err := next.api.Keyring().Rotate(&api.KeyringRotateOptions{Full: true}, nil)
		return err == nil, fmt.Sprint(err)
	})
	waitFor(t, "the first key deprecated", 20*time.Second, func() (bool, string) {
		keys, _, err := next.api.Keyring().List(nil)
		if err != nil {
			return false, err.Error()
		}
		for _, k := range keys {
			if k.KeyID == old[0].KeyID {
				return k.State == "deprecated", string(k.State)
			}
		}
		return false, "first key gone"
	})
	v, _, err := follower(live, next).api.Variables().Read("app/db", &api.QueryOptions{AllowStale: true})
	if err != nil || v.Items["pass"] != "s3cret" {
		t.Fatalf("after the rotation: %+v %v", v, err)
	}
}
