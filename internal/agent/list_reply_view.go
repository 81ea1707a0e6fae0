package agent

import (
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/structs"
)

// The whole-reply cache (list_reply_cache.go) serves every caller, not
// only those who see everything: an entry is keyed by the caller's view,
// what the ACL decides about the listing, never by its token. The view
// is derived per request from the token resolved just now (auth's
// resolved-token cache starts over at every change of the ACL tables and
// checks expiry on each use), so a changed policy or a deleted token
// counts from the next request on. A caller the endpoint would refuse
// (an unknown token, no capability) goes the uncached way, to the
// endpoint's own 403, which is never kept. The endpoint resolves the
// token again as it builds the reply: a reply is kept only when the ACL
// tables did not change from the view to the reply (held), so an entry
// is always its view's.
//
// What each endpoint filters by (server: access.go's rule, then
// auth.VisibleOnly; no listing redacts fields by capability):
//
//   - /v1/nodes: node read, or a 403; every node otherwise. The view of
//     every allowed caller is the unfiltered one.
//   - /v1/jobs (list-jobs) and /v1/allocations (read-job): a namespace
//     other than "*" needs the capability there, or a 403, and is then
//     listed whole: the unfiltered view. With namespace=* an object is
//     listed when the capability is allowed in its namespace, so the
//     reply is a function of the objects and of where the ACL allows the
//     capability, which is the view: the namespaces the state has (at
//     the namespaces table's index, part of the view) where it is
//     allowed, and how the ACL decides on any other name
//     (acl.NamespaceOperationElsewhere: objects may outlive their
//     namespace). A caller allowed everywhere has the unfiltered view.

// listViewCapability is the namespace capability a listing filters by,
// by path; nodes need node read.
var listViewCapability = map[string]string{
	"/v1/jobs":        acl.NamespaceCapabilityListJobs,
	"/v1/allocations": acl.NamespaceCapabilityReadJob,
}

// listView is a list request's view: key names it ("" for the
// unfiltered one), and with ACLs on, aclIndex is the ACL tables' index
// (auth.ResolutionIndex) read before the caller's token was resolved.
type listView struct {
	key      string
	acl      bool
	aclIndex uint64
}

// replyView returns the view of the caller of a list request: "" for
// the unfiltered one (ACLs off, management, or nothing filtered), else a
// text naming it. ok is false when the request is to go the uncached way.
func (h *HTTPServer) replyView(r *http.Request) (v listView, ok bool) {
	au := h.srv.Auth()
	if !au.ACLEnabled() {
		return v, true
	}
	v.acl, v.aclIndex = true, au.ResolutionIndex()
	a, err := au.ResolveToken(requestToken(r))
	if err != nil || a == nil {
		return v, false // the endpoint refuses it
	}
	if a.IsManagement() {
		return v, true
	}
	if r.URL.Path == "/v1/nodes" {
		return v, a.AllowNodeRead()
	}
	capability, known := listViewCapability[r.URL.Path]
	if !known {
		return v, false
	}
	ns := r.URL.Query().Get("namespace")
	if ns == "" {
		ns = structs.DefaultNamespace
	}
	if ns != "*" {
		return v, a.AllowNamespaceOperation(ns, capability)
	}
	v.key, ok = h.namespacesView(a, capability)
	return v, ok
}

// held reports whether a reply built since the view was derived is the
// view's, to be kept under its key: the endpoint resolves the token again
// when it builds the reply, and a token, policy or role changed between
// the two may have given it another ACL (the reply is still the right
// answer to this request, only not kept).
func (h *HTTPServer) held(v listView) bool {
	return !v.acl || h.srv.Auth().ResolutionIndex() == v.aclIndex
}

// testHookViewed, when set, runs after a list request's view is derived
// (tests: a policy change between the view and the build).
var testHookViewed atomic.Pointer[func()]

// namespacesView is the view of a listing of every namespace: see above.
// The namespaces are read between two reads of their table's index, so
// the names are those of that index.
func (h *HTTPServer) namespacesView(a *acl.ACL, capability string) (string, bool) {
	st := h.srv.State()
	const table = "namespaces" // state.TableNamespaces
	index := st.Index(table)
	all, err := st.Namespaces(nil, "")
	if err != nil || st.Index(table) != index {
		return "", false
	}
	names := make(map[string]bool, len(all))
	var b strings.Builder
	b.WriteString("ns@")
	b.WriteString(strconv.FormatUint(index, 10))
	b.WriteString(":")
	allowedEverywhere := true
	for _, n := range all { // by name
		names[n.Name] = true
		if a.AllowNamespaceOperation(n.Name, capability) {
			b.WriteString(strconv.Quote(n.Name))
			b.WriteString(",")
		} else {
			allowedEverywhere = false
		}
	}
	elsewhere := a.NamespaceOperationElsewhere(func(name string) bool { return names[name] }, capability)
	if allowedEverywhere && elsewhere == "*" {
		return "", true
	}
	b.WriteString(" elsewhere:")
	b.WriteString(elsewhere)
	return b.String(), true
}

// answersLocally reports whether the endpoint answers r from this
// server's own state, as server.forward decides: a leader past its
// leadership barrier (LeaderActive comes after it) answers every read;
// any server that has replayed the raft log it had at start answers a
// stale one (?stale), its reply's index its own tables', its
// LastContact and KnownLeader its own (metaOf, as server.queryMeta).
func (h *HTTPServer) answersLocally(r *http.Request) bool {
	if h.srv.IsLeader() && h.srv.LeaderActive() {
		return true
	}
	q, err := parseQuery(r)
	return err == nil && q.AllowStale && h.srv.AnswersStaleReads()
}
