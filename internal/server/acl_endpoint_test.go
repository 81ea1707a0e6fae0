package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/server/leader"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// aclServer starts a server with ACLs on and a manual clock.
func aclServer(t *testing.T, dataDir string) (*Server, *clock.Manual) {
	t.Helper()
	clk := clock.NewManual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s, err := New(&Config{
		NodeName: "test", DevMode: dataDir == "", DataDir: dataDir, BootstrapExpect: 1,
		RaftAddr: "127.0.0.1:4647", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Clock: clk,
		RaftTimings: &RaftTimings{Heartbeat: 50 * time.Millisecond, Election: 50 * time.Millisecond,
			LeaderLease: 50 * time.Millisecond, Commit: 5 * time.Millisecond},
		ACL: ACLConfig{Enabled: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown() })
	if err := s.WaitForLeader(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	return s, clk
}

func bootstrap(t *testing.T, s *Server) *structs.ACLToken {
	t.Helper()
	reply, err := ACLBootstrap.Call(context.Background(), s, &structs.ACLBootstrapArgs{})
	if err != nil {
		t.Fatal(err)
	}
	return reply.Tokens[0]
}

func wantCode(t *testing.T, err error, code int, contains string) {
	t.Helper()
	if err == nil || ErrorCode(err) != code || !strings.Contains(err.Error(), contains) {
		t.Fatalf("err = %v (code %d), want %d containing %q", err, ErrorCode(err), code, contains)
	}
}

func TestACLBootstrap_OnceThenResetFile(t *testing.T) {
	dir := t.TempDir()
	s, _ := aclServer(t, dir)
	first := bootstrap(t, s)
	if first.Type != structs.ACLManagementToken || first.SecretID == "" {
		t.Fatalf("bootstrap token %+v", first)
	}
	_, err := ACLBootstrap.Call(context.Background(), s, &structs.ACLBootstrapArgs{})
	wantCode(t, err, 400, "ACL bootstrap already done (reset index: ")
	resetIndex := s.State().ACLBootstrapIndex()

	// A stale reset index does not help; the current one allows one more.
	resetFile := filepath.Join(dir, "server", ACLBootstrapResetFile)
	if err := os.WriteFile(resetFile, []byte(strconv.FormatUint(resetIndex-1, 10)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = ACLBootstrap.Call(context.Background(), s, &structs.ACLBootstrapArgs{})
	wantCode(t, err, 400, "already done")
	if err := os.WriteFile(resetFile, []byte(strconv.FormatUint(resetIndex, 10)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	second := bootstrap(t, s)
	if second.SecretID == first.SecretID {
		t.Fatal("reset bootstrap reused the secret")
	}
	_, err = ACLBootstrap.Call(context.Background(), s, &structs.ACLBootstrapArgs{})
	wantCode(t, err, 400, "already done")
}

func TestACL_DisabledAnswers400(t *testing.T) {
	s := testServer(t, "")
	defer s.Shutdown()
	_, err := ACLBootstrap.Call(context.Background(), s, &structs.ACLBootstrapArgs{})
	wantCode(t, err, 400, "ACL support disabled")
	a, err := s.Auth().ResolveToken("not-a-token")
	if err != nil || !a.IsManagement() {
		t.Fatalf("ACLs off must allow everything: %v %v", a, err)
	}
}

func TestACLPolicies_ValidatedAndManagementOnly(t *testing.T) {
	s, _ := aclServer(t, "")
	root := bootstrap(t, s)
	ctx := context.Background()
	upsert := func(token string, p *structs.ACLPolicy) error {
		_, err := ACLUpsertPolicies.Call(ctx, s, &structs.ACLPolicyUpsertArgs{Policies: []*structs.ACLPolicy{p}, WriteRequest: structs.WriteRequest{AuthToken: token}})
		return err
	}
	wantCode(t, upsert(root.SecretID, &structs.ACLPolicy{Name: "bad name!", Rules: `node { policy = "read" }`}), 400, "Policies[0].Name")
	wantCode(t, upsert(root.SecretID, &structs.ACLPolicy{Name: "x", Rules: "node {\n policy = \"root\"\n}"}), 400, "Policies[0].Rules: 2:11: node: policy \"root\"")
	if err := upsert(root.SecretID, &structs.ACLPolicy{Name: "readonly", Rules: `namespace "default" { policy = "read" }`}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, upsert("", &structs.ACLPolicy{Name: "y", Rules: `node { policy = "read" }`}), 403, "Permission denied")

	tokens, err := ACLUpsertTokens.Call(ctx, s, &structs.ACLTokenUpsertArgs{Tokens: []*structs.ACLToken{{Type: "client", Policies: []string{"readonly"}}},
		WriteRequest: structs.WriteRequest{AuthToken: root.SecretID}})
	if err != nil {
		t.Fatal(err)
	}
	client := tokens.Tokens[0]
	wantCode(t, upsert(client.SecretID, &structs.ACLPolicy{Name: "y", Rules: `node { policy = "read" }`}), 403, "Permission denied")
	list, err := ACLListPolicies.Call(ctx, s, &structs.ACLPolicyListRequest{QueryOptions: structs.QueryOptions{AuthToken: client.SecretID}})
	if err != nil || len(list.Policies) != 1 || list.Policies[0].Name != "readonly" {
		t.Fatalf("client's policy list = %+v, %v", list, err)
	}
	_, err = ACLUpsertTokens.Call(ctx, s, &structs.ACLTokenUpsertArgs{Tokens: []*structs.ACLToken{{Type: "client", Policies: []string{"nope"}}},
		WriteRequest: structs.WriteRequest{AuthToken: root.SecretID}})
	wantCode(t, err, 400, `Tokens[0].Policies: policy "nope" does not exist`)
}

func TestACLTokens_ExpiredAndUnknownAreDenied(t *testing.T) {
	s, clk := aclServer(t, "")
	root := bootstrap(t, s)
	ctx := context.Background()
	if _, err := ACLUpsertPolicies.Call(ctx, s, &structs.ACLPolicyUpsertArgs{Policies: []*structs.ACLPolicy{{Name: "nodes", Rules: `node { policy = "read" }`}},
		WriteRequest: structs.WriteRequest{AuthToken: root.SecretID}}); err != nil {
		t.Fatal(err)
	}
	reply, err := ACLUpsertTokens.Call(ctx, s, &structs.ACLTokenUpsertArgs{Tokens: []*structs.ACLToken{{Type: "client", Policies: []string{"nodes"}, ExpirationTTL: time.Hour}},
		WriteRequest: structs.WriteRequest{AuthToken: root.SecretID}})
	if err != nil {
		t.Fatal(err)
	}
	tok := reply.Tokens[0]
	if tok.ExpirationTime == nil || !tok.ExpirationTime.Equal(clk.Now().Add(time.Hour)) {
		t.Fatalf("expiration %v", tok.ExpirationTime)
	}
	a, err := s.Auth().ResolveToken(tok.SecretID)
	if err != nil || !a.AllowNodeRead() || a.AllowNodeWrite() {
		t.Fatalf("resolve = %v, %v", a, err)
	}
	clk.Advance(time.Hour)
	_, err = s.Auth().ResolveToken(tok.SecretID)
	wantCode(t, err, 403, "Permission denied")
	// Core GC frees the expired token's row.
	if err := s.WaitUntilReady(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := s.leader.CreateCoreEvals(leader.CoreJobForceGC); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "core GC to free the expired token", func() bool {
		gone, _ := s.State().ACLTokenByAccessorID(nil, tok.AccessorID)
		return gone == nil
	})
	if root, _ := s.State().ACLTokenByAccessorID(nil, bootstrapAccessor(t, s)); root == nil {
		t.Fatal("core GC deleted a token without expiry")
	}
	_, err = s.Auth().ResolveToken("00000000-0000-0000-0000-000000000000")
	wantCode(t, err, 403, "Permission denied")
	_, err = s.Auth().ResolveToken("garbage")
	if !errors.Is(err, ErrPermissionDenied) {
		t.Fatalf("malformed secret = %v", err)
	}
	// Without an anonymous policy the anonymous caller may do nothing;
	// with one, what it grants.
	if a, err := s.Auth().ResolveToken(""); err != nil || a.AllowNodeRead() {
		t.Fatalf("anonymous = %v, %v", a, err)
	}
	if _, err := ACLUpsertPolicies.Call(ctx, s, &structs.ACLPolicyUpsertArgs{Policies: []*structs.ACLPolicy{{Name: "anonymous", Rules: `node { policy = "read" }`}},
		WriteRequest: structs.WriteRequest{AuthToken: root.SecretID}}); err != nil {
		t.Fatal(err)
	}
	if a, err := s.Auth().ResolveToken(""); err != nil || !a.AllowNodeRead() {
		t.Fatalf("anonymous after the policy = %v, %v", a, err)
	}
	_, err = ACLUpsertTokens.Call(ctx, s, &structs.ACLTokenUpsertArgs{Tokens: []*structs.ACLToken{{Type: "client", Policies: []string{"nodes"}, ExpirationTTL: time.Second}},
		WriteRequest: structs.WriteRequest{AuthToken: root.SecretID}})
	wantCode(t, err, 400, "Tokens[0].ExpirationTTL")
}

func TestACLTokens_UpdateKeepsSecretAndDeleteRevokes(t *testing.T) {
	s, _ := aclServer(t, "")
	root := bootstrap(t, s)
	ctx := context.Background()
	w := structs.WriteRequest{AuthToken: root.SecretID}
	reply, err := ACLUpsertTokens.Call(ctx, s, &structs.ACLTokenUpsertArgs{Tokens: []*structs.ACLToken{{Type: "management", Name: "ops"}}, WriteRequest: w})
	if err != nil {
		t.Fatal(err)
	}
	tok := reply.Tokens[0]
	upd, err := ACLUpsertTokens.Call(ctx, s, &structs.ACLTokenUpsertArgs{Tokens: []*structs.ACLToken{{AccessorID: tok.AccessorID, Type: "management", Name: "ops2"}}, WriteRequest: w})
	if err != nil || upd.Tokens[0].SecretID != tok.SecretID || upd.Tokens[0].Name != "ops2" || upd.Tokens[0].CreateIndex != tok.CreateIndex {
		t.Fatalf("update = %+v, %v", upd, err)
	}
	self, err := ACLGetTokenSelf.Call(ctx, s, &structs.QueryOptions{AuthToken: tok.SecretID})
	if err != nil || self.Token.AccessorID != tok.AccessorID {
		t.Fatalf("self = %+v, %v", self, err)
	}
	list, err := ACLListTokens.Call(ctx, s, &structs.ACLTokenListRequest{QueryOptions: structs.QueryOptions{AuthToken: root.SecretID}})
	if err != nil || len(list.Tokens) != 2 || list.Tokens[0].SecretID != "" {
		t.Fatalf("list = %+v, %v", list, err)
	}
	if _, err := ACLDeleteTokens.Call(ctx, s, &structs.ACLTokenDeleteArgs{AccessorIDs: []string{tok.AccessorID}, WriteRequest: w}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Auth().ResolveToken(tok.SecretID)
	wantCode(t, err, 403, "Permission denied")
	_, err = ACLDeleteTokens.Call(ctx, s, &structs.ACLTokenDeleteArgs{AccessorIDs: []string{tok.AccessorID}, WriteRequest: w})
	wantCode(t, err, 404, "not found")
}

func bootstrapAccessor(t *testing.T, s *Server) string {
	t.Helper()
	tokens, err := s.State().ACLTokens(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range tokens {
		if tok.Type == structs.ACLManagementToken {
			return tok.AccessorID
		}
	}
	t.Fatal("no management token")
	return ""
}
