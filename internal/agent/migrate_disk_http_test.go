package agent

import (
	"archive/tar"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// migrateJob appends its version to a file in alloc/data and one in
// local/, then sleeps, on the node whose ID is nodeID.
func migrateJob(version, nodeID string) *api.Job {
	job := shellJob("migrate", `echo `+version+` >> "$NOMAD_ALLOC_DIR/data/seen"; echo `+version+` >> "$NOMAD_TASK_DIR/seen"; exec sleep 1000`)
	job.TaskGroups[0].EphemeralDisk = &api.EphemeralDisk{Migrate: pointer(true), SizeMB: pointer(150)}
	job.Constrain(api.NewConstraint("${node.unique.id}", "=", nodeID))
	return job
}

// With ephemeral_disk { migrate = true }, a job update that moves the
// group to another node starts the replacement there with the previous
// alloc's alloc/data and local/, copied from the first node's agent
// (two clients in one cluster: the files hold both versions' lines).
func TestMigrateDisk_ReplacementOnAnotherNodeGetsTheData(t *testing.T) {
	first, c := clientTestAgent(t)
	second := clientOnlyAgent(t, first.RPCAddr())
	migrateAcross(t, c, first, second)
}

// With ACLs on, the replacement's client fetches the data with the
// migrate token alone (it holds no ACL token), and the snapshot endpoint
// refuses anyone else but a read-fs token in the alloc's namespace.
func TestMigrateDisk_SnapshotNeedsTheMigrateTokenOrReadFS(t *testing.T) {
	first, c := identityAgent(t)
	second := clientOnlyAgent(t, first.RPCAddr())
	// The data moves from the second (client-only) node to the first.
	prev, _ := migrateAcross(t, c, second, first)

	secrets := map[string]string{}
	for name, rules := range map[string]string{
		"fs":   `namespace "default" { capabilities = ["read-fs"] }`,
		"read": `namespace "default" { policy = "read" }`,
		"node": `node { policy = "write" }`,
	} {
		if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: rules}, nil); err != nil {
			t.Fatal(err)
		}
		tok, _, err := c.ACLTokens().Create(&api.ACLToken{Type: "client", Policies: []string{name}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		secrets[name] = tok.SecretID
	}
	path := "/v1/client/allocation/" + prev.ID + "/snapshot"
	for _, denied := range []string{"", secrets["read"], secrets["node"], "bm90LXRoZS1taWdyYXRlLXRva2Vu"} {
		if code, body := getWithToken(t, second.HTTPAddr(), path, nil, denied); code != http.StatusForbidden {
			t.Errorf("snapshot with token %q: %d %q, want 403", denied, code, body)
		}
	}
	code, body := getWithToken(t, second.HTTPAddr(), path, nil, secrets["fs"])
	if code != 200 {
		t.Fatalf("snapshot with read-fs: %d %q", code, body)
	}
	var names []string
	tr := tar.NewReader(strings.NewReader(body))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
	}
	sort.Strings(names)
	// A copy: the previous node keeps its files until the alloc is
	// collected.
	if got := strings.Join(names, " "); got != "alloc/data/ alloc/data/seen t/local/ t/local/seen" {
		t.Fatalf("snapshot entries %q", got)
	}
}

// migrateAcross runs migrateJob on from's node, moves it to to's node
// with a job update, and checks the replacement found the data.
func migrateAcross(t *testing.T, c *api.Client, from, to *Agent) (prev, next *api.Allocation) {
	t.Helper()
	fromID, secondID := from.Client().NodeID(), to.Client().NodeID()
	testutil.WaitFor(t, 20*time.Second, "both nodes ready", func() (bool, string) {
		for _, id := range []string{fromID, secondID} {
			n, _, err := c.Nodes().Info(id, nil)
			if err != nil || n.Status != "ready" {
				return false, fmt.Sprint(id, err)
			}
		}
		return true, ""
	})
	prev = runJob(t, c, migrateJob("one", fromID))
	testutil.WaitFor(t, 20*time.Second, "v1 wrote its files", func() (bool, string) {
		got, err := catAllocFile(c, prev, "t/local/seen")
		return got == "one\n", fmt.Sprint(got, err)
	})
	if _, _, err := c.Jobs().Register(migrateJob("two", secondID), nil); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 40*time.Second, "the replacement running on the second node", func() (bool, string) {
		stubs, _, err := c.Jobs().Allocations("migrate", false, nil)
		if err != nil {
			return false, err.Error()
		}
		for _, s := range stubs {
			if s.ID != prev.ID && s.ClientStatus == "running" {
				next, _, err = c.Allocations().Info(s.ID, nil)
				return err == nil, fmt.Sprint(err)
			}
		}
		return false, allocProgress(stubs)
	})
	if next.PreviousAllocation != prev.ID || next.NodeID != secondID {
		t.Fatalf("replacement %s on %s (previous %q), want a replacement of %s on %s", next.ID, next.NodeID, next.PreviousAllocation, prev.ID, secondID)
	}
	for _, p := range []string{"alloc/data/seen", "t/local/seen"} {
		testutil.WaitFor(t, 20*time.Second, "v2 wrote "+p, func() (bool, string) {
			got, err := catAllocFile(c, next, p)
			return strings.HasSuffix(got, "two\n"), fmt.Sprint(got, err)
		})
		if got, _ := catAllocFile(c, next, p); got != "one\ntwo\n" {
			t.Fatalf("%s = %q on the new node, want both versions' lines", p, got)
		}
	}
	return prev, next
}
