package structs

import "time"

// Every server endpoint has the shape
//
//	func (e *XEndpoint) Method(ctx context.Context, args *XRequest) (*XResponse, error)
//
// Requests embed QueryOptions (reads) or WriteRequest (writes); responses
// embed QueryMeta or WriteMeta. The types live here, not in the server, so
// the same values travel over the msgpack RPC (client calls, and a
// follower forwarding to the leader) as are passed in-process by the HTTP
// API.

// QueryOptions are the options of every read.
type QueryOptions struct {
	Region    string
	Namespace string

	// MinQueryIndex makes the read block until the answer's index exceeds
	// it, MaxQueryTime passes, or the caller's context ends.
	MinQueryIndex uint64
	MaxQueryTime  time.Duration

	// AllowStale lets a follower answer from its own state instead of
	// forwarding the read to the leader.
	AllowStale bool

	// List options: an ID prefix, a go-bexpr filter over the listed
	// objects, and a page of PerPage items starting at NextToken (the key
	// of the page's first item), in reverse key order when Reverse.
	Prefix    string
	Filter    string
	PerPage   int32
	NextToken string
	Reverse   bool

	// AuthToken is the caller's ACL secret (X-Nomad-Token).
	AuthToken string
}

// IsRead marks a request as a read (reads may be served stale).
func (q *QueryOptions) IsRead() bool { return true }

// AllowStaleRead reports whether a follower may answer.
func (q *QueryOptions) AllowStaleRead() bool { return q.AllowStale }

// RequestNamespace is the namespace the request addresses.
func (q *QueryOptions) RequestNamespace() string { return q.Namespace }

// RequestRegion is the region the caller addressed ("" for the server's).
func (q *QueryOptions) RequestRegion() string { return q.Region }

// RequestToken is the caller's ACL secret.
func (q *QueryOptions) RequestToken() string { return q.AuthToken }

// SetQueryOptions replaces the read options: the HTTP layer fills a
// request that holds the path's keys with the options of the URL.
func (q *QueryOptions) SetQueryOptions(opts QueryOptions) { *q = opts }

// QueryMeta describes a read's answer.
type QueryMeta struct {
	// Index is the raft index of the answer (X-Nomad-Index): the modify
	// index of the object read, or of the table listed.
	Index uint64
	// LastContact is the time since the answering server heard from the
	// leader; 0 on the leader.
	LastContact time.Duration
	// KnownLeader reports whether the answering server knew a leader.
	KnownLeader bool
	// NextToken is the key of the next page's first item, "" on the last.
	NextToken string
}

// ReadMeta is the answer's metadata, whatever reply embeds it.
func (m QueryMeta) ReadMeta() QueryMeta { return m }

// WriteRequest carries the options of every write.
type WriteRequest struct {
	Region    string
	Namespace string
	AuthToken string
	// IdempotencyToken makes a retried write (job register) apply once.
	IdempotencyToken string
}

// IsRead marks a request as a write (always sent to the leader).
func (w *WriteRequest) IsRead() bool { return false }

// AllowStaleRead is false: writes are never served stale.
func (w *WriteRequest) AllowStaleRead() bool { return false }

// RequestNamespace is the namespace the request addresses.
func (w *WriteRequest) RequestNamespace() string { return w.Namespace }

// RequestRegion is the region the caller addressed ("" for the server's).
func (w *WriteRequest) RequestRegion() string { return w.Region }

// RequestToken is the caller's ACL secret.
func (w *WriteRequest) RequestToken() string { return w.AuthToken }

// WriteMeta describes a write's result.
type WriteMeta struct {
	// Index is the raft index at which the write committed.
	Index uint64
}

// RPCInfo is what forwarding and ACL checks need from any request.
type RPCInfo interface {
	IsRead() bool
	AllowStaleRead() bool
	RequestNamespace() string
	RequestToken() string
	RequestRegion() string
}
