package structs

import (
	"maps"
	"regexp"
	"strings"
	"time"
)

// Variables: encrypted key/value items at file-like paths, per namespace.
// The servers store only ciphertext (VariableEncrypted); the endpoint
// encrypts before a write is proposed and decrypts after a read.

// Limits of a variable, as Nomad sets them.
const (
	MaxVariablePathLength = 128
	// MaxVariableSize bounds the encoded items (keys and values).
	MaxVariableSize = 64 * 1024
)

// variablePathRE: RFC 3986 unreserved characters that do not clash with
// template syntax (no "." or "@").
var variablePathRE = regexp.MustCompile(`^[a-zA-Z0-9\-_~/]+$`)

// VariableMetadata is what listing a variable shows.
type VariableMetadata struct {
	Namespace   string
	Path        string
	CreateIndex uint64
	ModifyIndex uint64
	CreateTime  int64 // unix nanos, decided before raft
	ModifyTime  int64
	Lock        *VariableLock
}

// VariableLock is a lease on a variable: while held (ExpiresAt in the
// future, or within LockDelay after it) only the holder may change it.
type VariableLock struct {
	ID        string
	TTL       time.Duration
	LockDelay time.Duration
	// ExpiresAt is when the lease ends unless renewed (unix nanos).
	ExpiresAt int64
}

// Copy returns a deep copy.
func (m VariableMetadata) Copy() VariableMetadata {
	if m.Lock != nil {
		l := *m.Lock
		m.Lock = &l
	}
	return m
}

// Held reports whether the lock keeps others out at now (unix nanos).
func (l *VariableLock) Held(now int64) bool {
	return l != nil && now < l.ExpiresAt+int64(l.LockDelay)
}

// VariableEncrypted is the stored form: metadata and the sealed items.
type VariableEncrypted struct {
	VariableMetadata
	// Data is the AES-GCM sealed msgpack of the items (nonce first).
	Data []byte
	// KeyID names the root key that sealed Data.
	KeyID string
}

// Copy returns a deep copy.
func (v *VariableEncrypted) Copy() *VariableEncrypted {
	if v == nil {
		return nil
	}
	c := *v
	c.VariableMetadata = v.VariableMetadata.Copy()
	c.Data = append([]byte(nil), v.Data...)
	return &c
}

// VariableDecrypted is a variable with its items in the clear: what the
// API sends and receives, never what is stored.
type VariableDecrypted struct {
	VariableMetadata
	Items map[string]string
}

// Copy returns a deep copy.
func (v *VariableDecrypted) Copy() *VariableDecrypted {
	if v == nil {
		return nil
	}
	c := *v
	c.VariableMetadata = v.VariableMetadata.Copy()
	c.Items = maps.Clone(v.Items)
	return &c
}

// ValidateVariablePath checks a path against Nomad's rules; the error names
// the field.
func ValidateVariablePath(path string) error {
	v := newValidator()
	switch {
	case path == "":
		v.fail("Path", "missing")
	case len(path) > MaxVariablePathLength:
		v.fail("Path", "longer than %d bytes", MaxVariablePathLength)
	case !variablePathRE.MatchString(path):
		v.fail("Path", "%q may contain only letters, digits, '-', '_', '~' and '/'", path)
	case strings.HasPrefix(path, "/") || strings.HasSuffix(path, "/") || strings.Contains(path, "//"):
		v.fail("Path", "%q has an empty segment", path)
	case path == "nomad" || (strings.HasPrefix(path, "nomad/") && path != "nomad/jobs" && !strings.HasPrefix(path, "nomad/jobs/") && !isJobTemplatePath(path)):
		v.fail("Path", "%q is reserved: under nomad/ only nomad/jobs and its children, and nomad/job-templates/<name>, may be written", path)
	}
	return v.err()
}

// isJobTemplatePath: a job template of the web UI, one level below
// nomad/job-templates (as Nomad allows).
func isJobTemplatePath(path string) bool {
	name, ok := strings.CutPrefix(path, "nomad/job-templates/")
	return ok && name != "" && !strings.Contains(name, "/")
}

// ValidateVariableItems checks the items of a write.
func ValidateVariableItems(items map[string]string) error {
	v := newValidator()
	if len(items) == 0 {
		v.fail("Items", "a variable needs at least one item")
		return v.err()
	}
	size := 0
	for k, val := range items {
		if k == "" {
			v.fail("Items", "empty key")
			return v.err()
		}
		size += len(k) + len(val)
	}
	if size > MaxVariableSize {
		v.fail("Items", "%d bytes, over the %d byte limit", size, MaxVariableSize)
	}
	return v.err()
}

// Variable operations of a VariableApplyRequest.
const (
	VarOpSet         = "set"
	VarOpDelete      = "delete"
	VarOpLockAcquire = "lock-acquire"
	VarOpLockRenew   = "lock-renew"
	VarOpLockRelease = "lock-release"
)

// VariableApplyRequest is the raft payload of every variable write. The
// check (CAS index, lock ownership) runs in the FSM against the state the
// entry meets, so concurrent writers cannot both win.
type VariableApplyRequest struct {
	Op  string
	Var *VariableEncrypted
	// CheckIndex, when set, must equal the stored ModifyIndex (0: the
	// variable must not exist).
	CheckIndex *uint64
	// LockID: for acquire, the new lock's ID (decided before raft); for
	// everything else, the caller's lock, needed while the variable is
	// locked.
	LockID string
	// Now is the proposer's clock (unix nanos): timestamps and lock expiry.
	Now int64
}

// VariablesApplyArgs is the RPC/HTTP argument of a write.
type VariablesApplyArgs struct {
	Op         string
	Var        *VariableDecrypted
	CheckIndex *uint64
	WriteRequest
}

// VariablesApplyResponse answers a write: the variable as written (nil
// after a delete), or on a CAS/lock conflict the stored one.
type VariablesApplyResponse struct {
	Output   *VariableDecrypted
	Conflict *VariableDecrypted
	WriteMeta
}

// VariablesReadRequest reads one variable.
type VariablesReadRequest struct {
	Path string
	QueryOptions
}

// VariablesReadResponse answers a read (Data nil when absent).
type VariablesReadResponse struct {
	Data *VariableDecrypted
	QueryMeta
}

// VariablesListRequest lists metadata under QueryOptions.Prefix.
type VariablesListRequest struct{ QueryOptions }

// VariablesListResponse answers a listing.
type VariablesListResponse struct {
	Data []*VariableMetadata
	QueryMeta
}

// VariableConflictError is the FSM's answer to a write whose CAS index or
// lock did not match: Current is the stored variable (nil when absent).
type VariableConflictError struct {
	Current *VariableEncrypted
	Reason  string
}

func (e *VariableConflictError) Error() string { return "variable conflict: " + e.Reason }
