package command

import (
	"strings"
	"testing"
)

func TestVarCommands(t *testing.T) {
	addr, c := testAgent(t, nil)
	mustRun := func(want string, args ...string) result {
		t.Helper()
		r := run(t, append(append([]string{args[0], args[1]}, "-address", addr), args[2:]...)...)
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("drover %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
		return r
	}
	mustRun(`Wrote variable "app/db"`, "var", "put", "app/db", "user=admin", "pass=s3cret")
	mustRun("s3cret", "var", "get", "-item", "pass", "app/db")
	mustRun("pass", "var", "get", "app/db")
	mustRun("app/db", "var", "list", "app/")

	// A stale check-index is refused and changes nothing.
	if r := run(t, "var", "put", "-address", addr, "-check-index", "1", "app/db", "user=other"); r.code == 0 || !strings.Contains(r.stderr, "check-index 1 does not match") {
		t.Fatalf("stale put: exit %d, %s", r.code, r.stderr)
	}
	if v, _, _ := c.Variables().Read("app/db", nil); v.Items["user"] != "admin" {
		t.Fatalf("refused put changed the variable: %+v", v.Items)
	}

	// The child runs while the lock is held; the lock is gone afterwards.
	r := mustRun("child ran", "var", "lock", "-ttl", "10s", "locks/job", "echo child ran")
	_ = r
	v, _, err := c.Variables().Read("locks/job", nil)
	if err != nil || v.Lock != nil {
		t.Fatalf("after var lock: %v, lock %+v", err, v.Lock)
	}
	if r := run(t, "var", "lock", "-address", addr, "locks/job", "exit 3"); r.code != 3 {
		t.Fatalf("child exit code not passed through: %d (%s)", r.code, r.stderr)
	}

	mustRun(`Purged variable "app/db"`, "var", "purge", "app/db")
	if r := run(t, "var", "get", "-address", addr, "app/db"); r.code == 0 || !strings.Contains(r.stderr, "not found") {
		t.Fatalf("get after purge: exit %d, %s", r.code, r.stderr)
	}
}
