package server

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// A task's token is verified against the JWKS key it names; with ACLs off
// it may do anything with variables; a tampered token does not verify.
func TestWorkloadIdentity_SignVerifyAuthorize(t *testing.T) {
	s := catalogFixture(t)
	ctx := context.Background()
	if _, err := WorkloadIdentitySign.Call(ctx, s, &structs.WorkloadIdentitySignRequest{NodeID: nodeA, SecretID: "sa", AllocID: "alloc-9e4d", Tasks: []string{"t"}}); ErrorCode(err) != 400 {
		t.Fatalf("signing another node's alloc: %v", err)
	}
	resp, err := WorkloadIdentitySign.Call(ctx, s, &structs.WorkloadIdentitySignRequest{NodeID: nodeA, SecretID: "sa", AllocID: "alloc-8d3c", Tasks: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	token := resp.Tokens["t"]
	claims, err := s.Auth().VerifyIdentity(token)
	if err != nil || claims.JobID != "web" || claims.AllocID != "alloc-8d3c" || claims.Task != "t" {
		t.Fatalf("verify: %v %+v", err, claims)
	}
	// The JWKS key verifies the signature independently.
	jwks, err := WorkloadIdentityJWKS.Call(ctx, s, &structs.JWKSRequest{})
	if err != nil || len(jwks.Keys) != 1 {
		t.Fatalf("jwks: %v %+v", err, jwks)
	}
	parts := strings.Split(token, ".")
	pub, _ := base64.RawURLEncoding.DecodeString(jwks.Keys[0].X)
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	if !ed25519.Verify(pub, []byte(parts[0]+"."+parts[1]), sig) {
		t.Fatal("JWKS key does not verify the token")
	}

	for _, path := range []string{"nomad/jobs/web", "app/db"} {
		if _, err := VariablesApply.Call(ctx, s, &structs.VariablesApplyArgs{Op: structs.VarOpSet,
			Var: &structs.VariableDecrypted{VariableMetadata: structs.VariableMetadata{Path: path}, Items: map[string]string{"k": "v"}}}); err != nil {
			t.Fatal(err)
		}
	}
	read := func(tok, path string) error {
		_, err := VariablesRead.Call(ctx, s, &structs.VariablesReadRequest{Path: path, QueryOptions: structs.QueryOptions{AuthToken: tok}})
		return err
	}
	// ACLs are off here: as in Nomad, every request is allowed, a workload
	// identity's too, whatever the path (with ACLs on the identity gets
	// only its own paths: auth's TestVariableAccess and agent's
	// TestVariables_TaskIdentityReadsItsJobsVariablesWithACLs).
	for _, path := range []string{"nomad/jobs/web", "app/db"} {
		if err := read(token, path); err != nil {
			t.Fatalf("ACLs off, reading %s with an identity: %v", path, err)
		}
	}
	_, err = VariablesApply.Call(ctx, s, &structs.VariablesApplyArgs{Op: structs.VarOpSet, WriteRequest: structs.WriteRequest{AuthToken: token},
		Var: &structs.VariableDecrypted{VariableMetadata: structs.VariableMetadata{Path: "app/db"}, Items: map[string]string{"k": "x"}}})
	if err != nil {
		t.Fatalf("ACLs off, writing with an identity: %v", err)
	}
	list, err := VariablesList.Call(ctx, s, &structs.VariablesListRequest{QueryOptions: structs.QueryOptions{AuthToken: token}})
	if err != nil || len(list.Data) != 2 {
		t.Fatalf("ACLs off, listing with an identity: %v %+v", err, list.Data)
	}
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"nomad_namespace":"default","nomad_job_id":"api","nomad_allocation_id":"x"}`)) + "." + parts[2]
	if _, err := s.Auth().VerifyIdentity(tampered); ErrorCode(err) != 403 {
		t.Fatalf("tampered token: %v, want 403", err)
	}
}

// WorkloadIdentity.Sign's Identities: a node gets an identity only as its
// alloc's job declares it (audience, TTL; the default one every task has);
// an identity or task the job does not have is a 400 naming the field. A
// named identity does not verify as a Drover credential.
func TestWorkloadIdentity_SignNamesOnlyDeclaredIdentities(t *testing.T) {
	s := catalogFixture(t)
	ctx := context.Background()
	job := &structs.Job{ID: "web", Namespace: "default", TaskGroups: []*structs.TaskGroup{{Name: "g", Tasks: []*structs.Task{{Name: "t",
		Identities: []*structs.WorkloadIdentity{{Name: "vault", Audience: []string{"vault.io"}, TTL: time.Hour}}}}}}}
	alloc := &structs.Allocation{ID: "alloc-named", Namespace: "default", JobID: "web", TaskGroup: "g", NodeID: nodeA, Job: job,
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning}
	if _, err := s.raftApply(ctx, structs.AllocUpdateRequestType, &structs.AllocUpdateRequest{Allocs: []*structs.Allocation{alloc}}); err != nil {
		t.Fatal(err)
	}
	sign := func(reqs ...structs.WorkloadIdentityRequest) (*structs.WorkloadIdentitySignResponse, error) {
		return WorkloadIdentitySign.Call(ctx, s, &structs.WorkloadIdentitySignRequest{NodeID: nodeA, SecretID: "sa", AllocID: "alloc-named", Identities: reqs})
	}
	before := time.Now()
	resp, err := sign(structs.WorkloadIdentityRequest{Task: "t", Identity: "default"}, structs.WorkloadIdentityRequest{Task: "t", Identity: "vault"})
	if err != nil || len(resp.Signed) != 2 {
		t.Fatalf("sign: %v %+v", err, resp)
	}
	def, vault := resp.Signed[0], resp.Signed[1]
	if !def.Expiration.IsZero() || vault.Expiration.Before(before.Add(time.Hour-time.Second)) || vault.Expiration.After(time.Now().Add(time.Hour)) {
		t.Fatalf("expirations: default %v, vault %v (1h TTL)", def.Expiration, vault.Expiration)
	}
	claims, err := s.Auth().VerifyIdentity(def.JWT)
	if err != nil || claims.Identity != "default" || claims.Subject != "global:default:web:g:t:default" {
		t.Fatalf("verify the default identity: %v %+v", err, claims)
	}
	if _, err := s.Auth().VerifyIdentity(vault.JWT); ErrorCode(err) != 403 {
		t.Fatalf("a named identity verified as a Drover credential: %v", err)
	}
	for _, tc := range []struct {
		req   structs.WorkloadIdentityRequest
		field string
	}{
		{structs.WorkloadIdentityRequest{Task: "t", Identity: "consul"}, "Identities[1].Identity"},
		{structs.WorkloadIdentityRequest{Task: "nope", Identity: "default"}, "Identities[1].Task"},
	} {
		_, err := sign(structs.WorkloadIdentityRequest{Task: "t", Identity: "default"}, tc.req)
		if ErrorCode(err) != 400 || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%+v: %v, want 400 naming %s", tc.req, err, tc.field)
		}
	}
}
