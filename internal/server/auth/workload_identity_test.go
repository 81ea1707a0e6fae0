package auth

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/server/coded"
	"github.com/drover-project/drover/internal/structs"
)

// identityFixture is a service with a root key and three allocs of job
// "web" in default: "live" running, "stopped" (the server stopped it) and
// "done" (the client finished it); its clock is manual.
type identityFixture struct {
	s    *Service
	clk  *clock.Manual
	root *structs.RootKey
	priv ed25519.PrivateKey
}

var identityEpoch = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

func newIdentityFixture(t testing.TB, aclOn bool) *identityFixture {
	t.Helper()
	clk := clock.NewManual(identityEpoch)
	s, srv := testServiceAt(t, ACLConfig{Enabled: aclOn}, clk)
	if err := s.EnsureRootKey(); err != nil {
		t.Fatal(err)
	}
	alloc := func(id, desired, client string) *structs.Allocation {
		return &structs.Allocation{ID: id, Namespace: "default", JobID: "web", TaskGroup: "g", NodeID: "n1",
			DesiredStatus: desired, ClientStatus: client}
	}
	if _, err := srv.RaftApply(structs.AllocUpdateRequestType, &structs.AllocUpdateRequest{Allocs: []*structs.Allocation{
		alloc("live", structs.AllocDesiredStatusRun, structs.AllocClientStatusRunning),
		alloc("stopped", structs.AllocDesiredStatusStop, structs.AllocClientStatusRunning),
		alloc("done", structs.AllocDesiredStatusRun, structs.AllocClientStatusComplete),
	}}); err != nil {
		t.Fatal(err)
	}
	root, err := srv.State().ActiveRootKey(nil)
	if err != nil || root == nil {
		t.Fatalf("root key: %v", err)
	}
	priv, err := s.identitySigningKey(root)
	if err != nil {
		t.Fatal(err)
	}
	return &identityFixture{s: s, clk: clk, root: root, priv: priv}
}

// sign makes a token with header and claims as given, signed with the
// root key's identity key.
func (f *identityFixture) sign(t testing.TB, header, claims map[string]any) string {
	t.Helper()
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	signed := b64.EncodeToString(h) + "." + b64.EncodeToString(c)
	return signed + "." + b64.EncodeToString(ed25519.Sign(f.priv, []byte(signed)))
}

func (f *identityFixture) header() map[string]any {
	return map[string]any{"alg": "EdDSA", "kid": f.root.KeyID, "typ": "JWT"}
}

// claims are a valid token's claims for alloc, as SignIdentity writes
// them, with changes.
func (f *identityFixture) claims(alloc string, changes map[string]any) map[string]any {
	now := identityEpoch.Unix()
	c := map[string]any{"nomad_namespace": "default", "nomad_job_id": "web", "nomad_allocation_id": alloc,
		"nomad_task_group": "g", "nomad_task": "t", "sub": "global:default:web:g:t:default",
		"aud": identityAudience, "iat": now, "nbf": now}
	for k, v := range changes {
		if v == nil {
			delete(c, k)
			continue
		}
		c[k] = v
	}
	return c
}

func TestVerifyIdentity(t *testing.T) {
	f := newIdentityFixture(t, true)
	signed, err := f.s.SignIdentity(&structs.Allocation{ID: "live", Namespace: "default", JobID: "web", TaskGroup: "g"}, "t")
	if err != nil {
		t.Fatal(err)
	}
	at := func(d time.Duration) int64 { return identityEpoch.Add(d).Unix() }
	valid := f.sign(t, f.header(), f.claims("live", nil))
	parts := strings.Split(valid, ".")
	other := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	forged := parts[0] + "." + parts[1] + "." + b64.EncodeToString(ed25519.Sign(other, []byte(parts[0]+"."+parts[1])))
	cases := []struct {
		name, token string
		want        error // nil: verifies
	}{
		{"signed by SignIdentity", signed, nil},
		{"valid", valid, nil},
		{"expiry in the future", f.sign(t, f.header(), f.claims("live", map[string]any{"exp": at(time.Hour)})), nil},
		{"expired within the leeway", f.sign(t, f.header(), f.claims("live", map[string]any{"exp": at(-30 * time.Second)})), nil},
		{"expired", f.sign(t, f.header(), f.claims("live", map[string]any{"exp": at(-2 * time.Minute)})), errIdentityTime},
		{"not valid yet", f.sign(t, f.header(), f.claims("live", map[string]any{"nbf": at(2 * time.Minute)})), errIdentityTime},
		{"issued in the future", f.sign(t, f.header(), f.claims("live", map[string]any{"iat": at(2 * time.Minute)})), errIdentityTime},
		{"audience list with nomad", f.sign(t, f.header(), f.claims("live", map[string]any{"aud": []string{"x", identityAudience}})), nil},
		{"other audience", f.sign(t, f.header(), f.claims("live", map[string]any{"aud": "vault.io"})), errIdentityAudience},
		{"no audience", f.sign(t, f.header(), f.claims("live", map[string]any{"aud": nil})), errIdentityAudience},
		{"purged alloc", f.sign(t, f.header(), f.claims("gone", nil)), errIdentityAlloc},
		{"stopped alloc", f.sign(t, f.header(), f.claims("stopped", nil)), errIdentityAlloc},
		{"completed alloc", f.sign(t, f.header(), f.claims("done", nil)), errIdentityAlloc},
		{"job not the alloc's", f.sign(t, f.header(), f.claims("live", map[string]any{"nomad_job_id": "api"})), errIdentityAlloc},
		{"namespace not the alloc's", f.sign(t, f.header(), f.claims("live", map[string]any{"nomad_namespace": "prod"})), errIdentityAlloc},
		{"no alloc claim", f.sign(t, f.header(), f.claims("", nil)), errBadIdentity},
		{"unknown key", f.sign(t, map[string]any{"alg": "EdDSA", "kid": "nope"}, f.claims("live", nil)), errBadIdentity},
		{"alg none", b64.EncodeToString([]byte(`{"alg":"none","kid":"`+f.root.KeyID+`"}`)) + "." + parts[1] + ".", errBadIdentity},
		{"alg HS256", f.sign(t, map[string]any{"alg": "HS256", "kid": f.root.KeyID}, f.claims("live", nil)), errBadIdentity},
		{"forged signature", forged, errBadIdentity},
		{"tampered claims", parts[0] + "." + b64.EncodeToString([]byte(`{"nomad_namespace":"default","nomad_job_id":"api","nomad_allocation_id":"live","aud":"nomadproject.io"}`)) + "." + parts[2], errBadIdentity},
		{"claims not JSON", signedPayload(f.priv, parts[0], "nope"), errBadIdentity},
		{"claims of the wrong types", signedPayload(f.priv, parts[0], `{"nomad_allocation_id":7,"aud":"nomadproject.io"}`), errBadIdentity},
		{"two parts", parts[0] + "." + parts[1], errBadIdentity},
		{"empty", "", errBadIdentity},
		{"dots", "..", errBadIdentity},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			claims, err := f.s.VerifyIdentity(tc.token)
			if tc.want == nil {
				if err != nil || claims.AllocID != "live" || claims.JobID != "web" {
					t.Fatalf("VerifyIdentity = %+v, %v; want it verified", claims, err)
				}
				return
			}
			if !errors.Is(err, tc.want) || claims != nil {
				t.Fatalf("VerifyIdentity = %+v, %v; want %v", claims, err, tc.want)
			}
		})
	}
}

// With ACLs on a workload identity gets Nomad's implicit policy: read and
// list its job's, group's and task's variables (and nomad/jobs), nothing
// else; with ACLs off every token may do everything, an identity's or a
// bogus one alike (Nomad does not even verify it then).
func TestVariableAccess(t *testing.T) {
	on, off := newIdentityFixture(t, true), newIdentityFixture(t, false)
	token := func(f *identityFixture) string { return f.sign(t, f.header(), f.claims("live", nil)) }
	stopped := on.sign(t, on.header(), on.claims("stopped", nil))
	cases := []struct {
		name          string
		f             *identityFixture
		token         string
		ns, path, op  string
		want          int // 0: allowed, else the HTTP status
		wantInMessage string
	}{
		{"on: nomad/jobs read", on, token(on), "default", "nomad/jobs", "read", 0, ""},
		{"on: own job read", on, token(on), "default", "nomad/jobs/web", "read", 0, ""},
		{"on: own job list", on, token(on), "default", "nomad/jobs/web", "list", 0, ""},
		{"on: own group", on, token(on), "default", "nomad/jobs/web/g", "read", 0, ""},
		{"on: own task", on, token(on), "default", "nomad/jobs/web/g/t", "read", 0, ""},
		{"on: under own job", on, token(on), "default", "nomad/jobs/web/other/x", "read", 0, ""},
		{"on: own job write", on, token(on), "default", "nomad/jobs/web", "write", 403, `web/t may not write variable "nomad/jobs/web"`},
		{"on: own job destroy", on, token(on), "default", "nomad/jobs/web", "destroy", 403, "may not destroy"},
		{"on: another job", on, token(on), "default", "nomad/jobs/api", "read", 403, "may not read"},
		{"on: a job name prefix", on, token(on), "default", "nomad/jobs/webby", "read", 403, "may not read"},
		{"on: outside nomad/jobs", on, token(on), "default", "app/config", "read", 403, "may not read"},
		{"on: nomad/jobsx", on, token(on), "default", "nomad/jobsx", "read", 403, "may not read"},
		{"on: another namespace", on, token(on), "prod", "nomad/jobs/web", "read", 403, "may not read"},
		{"on: stopped alloc", on, stopped, "default", "nomad/jobs/web", "read", 403, "terminal"},
		{"on: bogus JWT", on, "a.b.c", "default", "nomad/jobs/web", "read", 403, "invalid token"},
		{"on: anonymous", on, "", "default", "nomad/jobs/web", "read", 403, "Permission denied"},
		{"off: identity reads anywhere", off, token(off), "default", "app/config", "read", 0, ""},
		{"off: identity writes", off, token(off), "prod", "app/config", "write", 0, ""},
		{"off: identity destroys", off, token(off), "default", "nomad/jobs/api", "destroy", 0, ""},
		{"off: bogus JWT", off, "a.b.c", "default", "app/config", "read", 0, ""},
		{"off: anonymous", off, "", "default", "app/config", "write", 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f.s.AuthorizeVariable(tc.token, tc.ns, tc.path, tc.op)
			if tc.want == 0 {
				if err != nil {
					t.Fatalf("AuthorizeVariable = %v, want allowed", err)
				}
				return
			}
			var ce *coded.Error
			if !errors.As(err, &ce) || ce.Code != tc.want || !strings.Contains(err.Error(), tc.wantInMessage) {
				t.Fatalf("AuthorizeVariable = %v, want %d containing %q", err, tc.want, tc.wantInMessage)
			}
		})
	}
}

// signedPayload signs a raw payload under an encoded header.
func signedPayload(priv ed25519.PrivateKey, header, payload string) string {
	signed := header + "." + b64.EncodeToString([]byte(payload))
	return signed + "." + b64.EncodeToString(ed25519.Sign(priv, []byte(signed)))
}

// FuzzVerifyIdentity feeds the identity decoder arbitrary tokens: it never
// panics, refuses with a 403 only, and whatever it accepts is the claims
// of the one live allocation (only the root key's holder can sign).
func FuzzVerifyIdentity(f *testing.F) {
	fx := newIdentityFixture(f, true)
	valid := fx.sign(f, fx.header(), fx.claims("live", nil))
	parts := strings.Split(valid, ".")
	for _, seed := range []string{
		valid,
		fx.sign(f, fx.header(), fx.claims("live", map[string]any{"exp": identityEpoch.Add(-time.Hour).Unix()})),
		fx.sign(f, fx.header(), fx.claims("stopped", nil)),
		fx.sign(f, fx.header(), fx.claims("live", map[string]any{"aud": []string{"a", identityAudience}})),
		fx.sign(f, map[string]any{"alg": "HS256", "kid": fx.root.KeyID}, fx.claims("live", nil)),
		b64.EncodeToString([]byte(`{"alg":"none"}`)) + "." + parts[1] + ".",
		parts[0] + "." + parts[1],
		"", ".", "..", "a.b.c", "eyJ.eyJ.",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, token string) {
		claims, err := fx.s.VerifyIdentity(token)
		if err != nil {
			var ce *coded.Error
			if !errors.As(err, &ce) || ce.Code != 403 || claims != nil {
				t.Fatalf("refused with %v (%+v), want a 403 and no claims", err, claims)
			}
			return
		}
		if claims.AllocID != "live" || claims.JobID != "web" || claims.Namespace != "default" {
			t.Fatalf("accepted claims %+v", claims)
		}
	})
}
