package state

import (
	"errors"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// Lock leases expire by the proposer's clock carried in each entry: the
// holder may renew before ExpiresAt, and nobody may acquire until the lock
// delay after it has passed.
func TestApplyVariable_LockLease(t *testing.T) {
	s := newStore(t)
	v := func(op, lockID string, now time.Duration) *structs.VariableApplyRequest {
		return &structs.VariableApplyRequest{Op: op, LockID: lockID, Now: int64(now),
			Var: &structs.VariableEncrypted{VariableMetadata: structs.VariableMetadata{Namespace: "default", Path: "l",
				Lock: &structs.VariableLock{TTL: 10 * time.Second, LockDelay: 5 * time.Second}}}}
	}
	must(t, s.ApplyVariable(1, v(structs.VarOpLockAcquire, "a", 0)))
	steps := []struct {
		name     string
		req      *structs.VariableApplyRequest
		conflict bool
	}{
		{"another acquirer while held", v(structs.VarOpLockAcquire, "b", 5*time.Second), true},
		{"a writer without the lock", v(structs.VarOpSet, "", 5*time.Second), true},
		{"the holder renews", v(structs.VarOpLockRenew, "a", 8*time.Second), false}, // now expires at 18s
		{"after the old expiry, still held", v(structs.VarOpLockAcquire, "b", 15*time.Second), true},
		{"within the delay after expiry", v(structs.VarOpLockAcquire, "b", 20*time.Second), true},
		{"a late renewal", v(structs.VarOpLockRenew, "a", 20*time.Second), true},
		{"after the delay", v(structs.VarOpLockAcquire, "b", 24*time.Second), false},
		{"the old holder releases", v(structs.VarOpLockRelease, "a", 25*time.Second), true},
		{"the new holder releases", v(structs.VarOpLockRelease, "b", 25*time.Second), false},
	}
	for i, st := range steps {
		err := s.ApplyVariable(uint64(i+2), st.req)
		var conflict *structs.VariableConflictError
		if got := errors.As(err, &conflict); got != st.conflict || (err != nil && !got) {
			t.Fatalf("%s: err %v, want conflict=%v", st.name, err, st.conflict)
		}
	}
	got, _ := s.VariableByPath(nil, "default", "l")
	if got.Lock != nil || got.CreateIndex != 1 {
		t.Fatalf("after release: %+v", got)
	}
}
