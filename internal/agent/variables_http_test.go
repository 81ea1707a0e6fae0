package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

func TestVariables_CRUDAndCheckAndSet(t *testing.T) {
	_, c := testAgent(t, nil)
	vars := c.Variables()

	v, _, err := vars.Create(&api.Variable{Path: "app/db", Items: api.VariableItems{"user": "u", "pass": "s3cret"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Items["pass"] != "s3cret" || v.ModifyIndex == 0 || v.CreateTime == 0 || v.Namespace != "default" {
		t.Fatalf("created %+v", v)
	}
	got, _, err := vars.Read("app/db", nil)
	if err != nil || got.Items["user"] != "u" {
		t.Fatalf("read back: %v %+v", err, got)
	}

	// Check-and-set: the stale index loses, with the stored variable.
	stale := got.Copy()
	got.Items["pass"] = "rotated"
	updated, _, err := vars.CheckedUpdate(got, nil)
	if err != nil || updated.Items["pass"] != "rotated" || updated.ModifyIndex <= v.ModifyIndex {
		t.Fatalf("checked update: %v %+v", err, updated)
	}
	stale.Items["pass"] = "lost"
	_, _, err = vars.CheckedUpdate(stale, nil)
	var conflict api.ErrCASConflict
	if !errors.As(err, &conflict) || conflict.Conflict.ModifyIndex != updated.ModifyIndex {
		t.Fatalf("stale update: %v, want a CAS conflict at %d", err, updated.ModifyIndex)
	}
	if _, _, err := vars.CheckedCreate(&api.Variable{Path: "app/db", Items: api.VariableItems{"a": "b"}}, nil); !errors.As(err, &conflict) {
		t.Fatalf("create over an existing variable with cas=0: %v", err)
	}

	vars.Create(&api.Variable{Path: "app/cache", Items: api.VariableItems{"k": "v"}}, nil)
	vars.Create(&api.Variable{Path: "other/x", Items: api.VariableItems{"k": "v"}}, nil)
	list, _, err := vars.PrefixList("app/", nil)
	if err != nil || len(list) != 2 || list[0].Path != "app/cache" || list[1].Path != "app/db" {
		t.Fatalf("prefix list: %v %+v", err, list)
	}

	if _, err := vars.CheckedDelete("app/db", 1, nil); !errors.As(err, &conflict) {
		t.Fatalf("checked delete at a wrong index: %v", err)
	}
	if _, err := vars.Delete("app/db", nil); err != nil {
		t.Fatal(err)
	}
	if peek, _, err := vars.Peek("app/db", nil); err != nil || peek != nil {
		t.Fatalf("after delete: %v %+v", err, peek)
	}
}

func TestVariables_BadInputIs400NamingTheField(t *testing.T) {
	_, c := testAgent(t, nil)
	cases := map[string]*api.Variable{
		"Path":  {Path: "nomad/secrets", Items: api.VariableItems{"a": "b"}},
		"Items": {Path: "app/empty", Items: api.VariableItems{}},
	}
	for field, v := range cases {
		_, _, err := c.Variables().Create(v, nil)
		if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v, want a 400 naming %s", v.Path, err, field)
		}
	}
	big := strings.Repeat("x", 70*1024)
	if _, _, err := c.Variables().Create(&api.Variable{Path: "app/big", Items: api.VariableItems{"k": big}}, nil); err == nil || !strings.Contains(err.Error(), "Items") {
		t.Errorf("oversize variable: %v", err)
	}
	// Bad characters never reach the endpoint as a valid path.
	req, _ := http.NewRequest("PUT", c.Address()+"/v1/var/app/a.b", strings.NewReader(`{"Items":{"a":"b"}}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 400 {
		t.Fatalf("path with a dot: %v %v", err, resp.Status)
	}
}

func TestVariables_Locks(t *testing.T) {
	_, c := testAgent(t, nil)
	vars := c.Variables()
	held, _, err := vars.AcquireLock(&api.Variable{Path: "locks/leader", Items: api.VariableItems{"owner": "a"},
		Lock: &api.VariableLock{TTL: "30s", LockDelay: "5s"}}, nil)
	if err != nil || held.LockID() == "" || held.Lock.TTL != "30s" {
		t.Fatalf("acquire: %v %+v", err, held)
	}
	// A second acquirer and a writer without the lock ID are refused.
	var conflict api.ErrCASConflict
	if _, _, err := vars.AcquireLock(&api.Variable{Path: "locks/leader", Lock: &api.VariableLock{TTL: "30s"}}, nil); err == nil {
		t.Fatal("second acquire succeeded while the lock is held")
	}
	if _, _, err := vars.CheckedUpdate(&api.Variable{Path: "locks/leader", ModifyIndex: held.ModifyIndex, Items: api.VariableItems{"owner": "b"}}, nil); !errors.As(err, &conflict) {
		t.Fatalf("write without the lock: %v", err)
	}
	// The holder writes, renews and releases.
	mine := held.Copy()
	mine.Items = api.VariableItems{"owner": "a2"}
	if _, _, err := vars.Update(mine, nil); err != nil {
		t.Fatalf("holder's write: %v", err)
	}
	if md, _, err := vars.RenewLock(held.Copy(), nil); err != nil || md.Lock == nil || md.Lock.ID != held.LockID() {
		t.Fatalf("renew: %v %+v", err, md)
	}
	released, _, err := vars.ReleaseLock(held.Copy(), nil)
	if err != nil || released.Lock != nil || released.Items["owner"] != "a2" {
		t.Fatalf("release: %v %+v", err, released)
	}
}

func TestKeyring_RotateKeepsOldVariablesReadable(t *testing.T) {
	_, c := testAgent(t, nil)
	keys, _, err := c.Keyring().List(nil)
	if err != nil || len(keys) != 1 || keys[0].State != api.RootKeyStateActive || keys[0].Algorithm != "aes256-gcm" {
		t.Fatalf("initial keyring: %v %+v", err, keys)
	}
	if _, _, err := c.Variables().Create(&api.Variable{Path: "before", Items: api.VariableItems{"k": "old"}}, nil); err != nil {
		t.Fatal(err)
	}
	key, _, err := c.Keyring().Rotate(nil, nil)
	if err != nil || key.KeyID == keys[0].KeyID || key.State != api.RootKeyStateActive {
		t.Fatalf("rotate: %v %+v", err, key)
	}
	after, _, _ := c.Keyring().List(nil)
	states := map[string]api.RootKeyState{}
	for _, k := range after {
		states[k.KeyID] = k.State
	}
	if states[keys[0].KeyID] != api.RootKeyStateInactive || states[key.KeyID] != api.RootKeyStateActive {
		t.Fatalf("after rotation: %v", states)
	}
	if v, _, err := c.Variables().Read("before", nil); err != nil || v.Items["k"] != "old" {
		t.Fatalf("variable sealed with the old key: %v %+v", err, v)
	}
	code, body := rawPut(t, c.Address()+"/v1/operator/keyring/rotate?full=maybe")
	if code != http.StatusBadRequest || !strings.Contains(body, "full") {
		t.Fatalf("full=maybe: %d %s, want a 400 naming full", code, body)
	}
	// A full rotation re-seals "before" with the new key and deprecates
	// both older keys.
	full, _, err := c.Keyring().Rotate(&api.KeyringRotateOptions{Full: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, func() string {
		ks, _, err := c.Keyring().List(nil)
		if err != nil {
			return err.Error()
		}
		for _, k := range ks {
			if k.KeyID != full.KeyID && k.State != api.RootKeyStateDeprecated {
				return fmt.Sprintf("key %s still %s", k.KeyID, k.State)
			}
		}
		return ""
	})
	if v, _, err := c.Variables().Read("before", nil); err != nil || v.Items["k"] != "old" {
		t.Fatalf("variable after the full rotation: %v %+v", err, v)
	}
}

// rawPut sends an empty PUT and returns status and body.
func rawPut(t *testing.T, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestJWKSListsTheKeyringsPublicKeys(t *testing.T) {
	_, c := testAgent(t, nil)
	keys, _, err := c.Keyring().List(nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(c.Address() + "/.well-known/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set struct {
		Keys []struct{ Kid, Kty, Crv, X, Alg string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		t.Fatal(err)
	}
	if len(set.Keys) != 1 || set.Keys[0].Kid != keys[0].KeyID || set.Keys[0].Kty != "OKP" || set.Keys[0].Crv != "Ed25519" || set.Keys[0].Alg != "EdDSA" || set.Keys[0].X == "" {
		t.Fatalf("jwks %+v for keyring %+v", set, keys)
	}
}

func TestVariables_ListPages(t *testing.T) {
	_, c := testAgent(t, nil)
	for _, p := range []string{"a/1", "a/2", "a/3", "b/1"} {
		if _, _, err := c.Variables().Create(&api.Variable{Path: p, Items: api.VariableItems{"k": "v"}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	q := &api.QueryOptions{Prefix: "a/", PerPage: 2}
	for page := 0; ; page++ {
		list, meta, err := c.Variables().List(q)
		if err != nil || page > 3 {
			t.Fatalf("page %d: %v", page, err)
		}
		for _, v := range list {
			got = append(got, v.Path)
		}
		if meta.NextToken == "" {
			break
		}
		q.NextToken = meta.NextToken
	}
	if strings.Join(got, ",") != "a/1,a/2,a/3" {
		t.Fatalf("paged listing: %v", got)
	}
}
