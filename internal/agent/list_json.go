package agent

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/jsoncache"
	"github.com/drover-project/drover/internal/structs"
)

// stubCacheBytes bounds each list-stub cache. A stub is a few hundred
// bytes, so this holds about 200,000 allocs' and every node's; past it,
// stubs are encoded per request as before.
const stubCacheBytes = 128 << 20

// stubCaches keep the JSON of list stubs per object version: the state
// store stamps every stored version with its ModifyIndex and never
// changes it, so a stub's encoding is valid for ever (see package
// jsoncache).
type stubCaches struct {
	allocs *jsoncache.Cache[structs.Allocation]
	nodes  *jsoncache.Cache[structs.Node]
}

func newStubCaches() stubCaches {
	return stubCaches{
		allocs: jsoncache.New[structs.Allocation](stubCacheBytes),
		nodes:  jsoncache.New[structs.Node](stubCacheBytes),
	}
}

// jsonList is a list reply whose elements are already JSON: wrap writes
// it as the array json.Encoder would have written for the values.
type jsonList [][]byte

// listChunk is how much of a list reply is assembled before a write: big
// enough that a 30 MB listing takes few writes, small enough that it is
// never built whole.
const listChunk = 64 << 10

func (l jsonList) write(w http.ResponseWriter, r *http.Request, log *slog.Logger) {
	if _, pretty := r.URL.Query()["pretty"]; pretty {
		l.writePretty(w, r, log)
		return
	}
	if err := l.writeChunks(w); err != nil {
		log.Debug("http: write response", "path", r.URL.Path, "error", err)
	}
}

// writeChunks writes the unindented reply (the array and a newline) in
// writes of about listChunk bytes.
func (l jsonList) writeChunks(w io.Writer) error {
	buf := make([]byte, 0, listChunk)
	buf = append(buf, '[')
	for i, e := range l {
		if i > 0 {
			buf = append(buf, ',')
		}
		if len(buf)+len(e) > listChunk && len(buf) > 0 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		buf = append(buf, e...)
	}
	buf = append(buf, ']', '\n')
	_, err := w.Write(buf)
	return err
}

// writePretty indents the whole list, as json.Encoder's SetIndent would.
func (l jsonList) writePretty(w http.ResponseWriter, r *http.Request, log *slog.Logger) {
	if _, err := w.Write(l.bytes(true)); err != nil {
		log.Debug("http: write response", "path", r.URL.Path, "error", err)
	}
}

// size is the length of the unindented reply: the elements, the commas
// between them, the brackets and the newline.
func (l jsonList) size() int {
	n := 3 + max(len(l)-1, 0)
	for _, e := range l {
		n += len(e)
	}
	return n
}

// bytes is the whole reply write sends: the array and a newline,
// indented as json.Encoder's SetIndent would when pretty.
func (l jsonList) bytes(pretty bool) []byte {
	raw := make([]byte, 0, l.size())
	raw = append(raw, '[')
	for i, e := range l {
		if i > 0 {
			raw = append(raw, ',')
		}
		raw = append(raw, e...)
	}
	raw = append(raw, ']')
	if !pretty {
		return append(raw, '\n')
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "    "); err != nil {
		out.Reset()
		out.Write(raw)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// encodedList encodes each object's API view through cache; variant
// names the view's shape (the request's options), version an object's ID
// and ModifyIndex.
func encodedList[T any](cache *jsoncache.Cache[T], objs []*T, variant uint8,
	version func(*T) (string, uint64), view func(*T) any) (jsonList, error) {
	out := make(jsonList, 0, len(objs))
	for _, o := range objs {
		id, index := version(o)
		b, err := cache.Get(jsoncache.Key{ID: id, Index: index, Variant: variant}, o, view)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func allocVersion(a *structs.Allocation) (string, uint64) { return a.ID, a.ModifyIndex }
func nodeVersion(n *structs.Node) (string, uint64)        { return n.ID, n.ModifyIndex }

// allocStubOptions are /v1/allocations' reply shapes, as Nomad's:
// resources=true adds AllocatedResources, task_states=false drops
// TaskStates.
type allocStubOptions struct {
	resources, noTaskStates bool
}

func (o allocStubOptions) variant() uint8 {
	var v uint8
	if o.resources {
		v |= 1
	}
	if o.noTaskStates {
		v |= 2
	}
	return v
}

func (o allocStubOptions) view(a *structs.Allocation) any {
	stub := apiconv.AllocStubFromStructs(a, o.resources)
	if o.noTaskStates {
		stub.TaskStates = nil
	}
	return stub
}

// allocStubParams reads the shape options of an alloc listing.
func allocStubParams(r *http.Request) (allocStubOptions, error) {
	var o allocStubOptions
	var err error
	if o.resources, err = boolParam(r, "resources"); err != nil {
		return o, err
	}
	taskStates := true // Nomad's default: with task states
	if r.URL.Query().Has("task_states") {
		if taskStates, err = boolParamDefault(r, "task_states", true); err != nil {
			return o, err
		}
	}
	o.noTaskStates = !taskStates
	return o, nil
}
