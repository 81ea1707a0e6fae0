package structs

import (
	"bytes"
	"encoding/binary"
	"math"
)

// DecodePlanResults decodes the payload of an ApplyPlanResultsRequestType
// entry (the bytes after the type byte) into out, a zero value, as
// Decode does: the result is field for field what Decode gives
// (TestDecodePlanResults_SameAsCodec, FuzzDecodePlanResults).
//
// A plan result is the entry every server applies for every placement,
// and most of its bytes are allocs. The fast path reads the request and
// its allocs (written as arrays of their fields, see Encode) without
// reflection; nested objects other than the allocs (the job, evals,
// deployment, an alloc's resources, metrics, task states and the like)
// are handed to the codec as they are. Strings an alloc shares with the
// alloc before it in the same list (namespace, eval, job, group, status)
// are decoded once, and so are resources whose bytes equal the previous
// alloc's: such allocs share one AllocatedResources object, which is why
// the decoded request's nested objects must be treated as read-only (the
// state store copies or shares them; it never changes them). Anything the
// fast path does not expect (the first format's maps keyed by field
// name, an alloc with more fields than this build knows, an encoding the
// encoder never writes) decodes through the codec instead.
func DecodePlanResults(buf []byte, out *ApplyPlanResultsRequest) error {
	r := planReader{b: buf}
	if r.planResults(out) && r.i == len(r.b) {
		return nil
	}
	*out = ApplyPlanResultsRequest{}
	return Decode(buf, out)
}

// planReader reads msgpack from b at i. A method that meets something
// it does not handle, or a nested value the codec refuses, returns false,
// and DecodePlanResults decodes the whole entry with the codec instead
// (which then fails, if it does, with its own error).
type planReader struct {
	b []byte
	i int

	// prevStr holds the strings of the previous alloc by field position,
	// prevRes its resources and their bytes: the allocs of one group
	// repeat them.
	prevStr    [allocFields]string
	prevRes    *AllocatedResources
	prevResRaw []byte
}

// allocFields is the number of fields of Allocation this build knows.
const allocFields = 31

func (r *planReader) planResults(out *ApplyPlanResultsRequest) bool {
	n, ok := r.arrayLen()
	if !ok || n > 10 {
		return false
	}
	for f := range n {
		var ok bool
		switch f {
		case 0:
			out.AllocsUpdated, ok = r.allocs()
		case 1:
			out.AllocsStopped, ok = r.allocs()
		case 2:
			out.AllocsPreempted, ok = r.allocs()
		case 3:
			ok = r.nested(&out.Job)
		case 4:
			ok = r.nested(&out.Deployment)
		case 5:
			ok = r.nested(&out.DeploymentUpdates)
		case 6:
			out.EvalID, ok = r.str(-1)
		case 7:
			ok = r.nested(&out.PreemptionEvals)
		case 8:
			out.UpdatedAt, ok = r.int64()
		case 9:
			ok = r.nested(&out.FinalEval)
		}
		if !ok {
			return false
		}
	}
	return true
}

// allocs reads a list of allocs: nil stays a nil slice, an empty array is
// an empty slice (as the codec gives).
func (r *planReader) allocs() ([]*Allocation, bool) {
	if r.nilValue() {
		return nil, true
	}
	n, ok := r.arrayLen()
	if !ok || n > len(r.b)-r.i {
		return nil, false
	}
	out := make([]*Allocation, n)
	r.prevStr, r.prevRes, r.prevResRaw = [allocFields]string{}, nil, nil
	for k := range out {
		if r.nilValue() {
			continue
		}
		a := new(Allocation)
		if !r.alloc(a) {
			return nil, false
		}
		out[k] = a
	}
	return out, true
}

func (r *planReader) alloc(a *Allocation) bool {
	n, ok := r.arrayLen()
	if !ok || n > allocFields {
		return false
	}
	for f := range n {
		var ok bool
		switch f {
		case 0:
			a.ID, ok = r.str(-1) // unique: not worth comparing
		case 1:
			a.Namespace, ok = r.str(f)
		case 2:
			a.EvalID, ok = r.str(f)
		case 3:
			a.Name, ok = r.str(-1)
		case 4:
			a.NodeID, ok = r.str(-1)
		case 5:
			a.NodeName, ok = r.str(-1)
		case 6:
			a.JobID, ok = r.str(f)
		case 7:
			ok = r.nested(&a.Job)
		case 8:
			a.TaskGroup, ok = r.str(f)
		case 9:
			a.AllocatedResources, ok = r.resources()
		case 10:
			ok = r.nested(&a.Metrics)
		case 11:
			a.DesiredStatus, ok = r.str(f)
		case 12:
			a.DesiredDescription, ok = r.str(f)
		case 13:
			ok = r.desiredTransition(&a.DesiredTransition)
		case 14:
			a.ClientStatus, ok = r.str(f)
		case 15:
			a.ClientDescription, ok = r.str(f)
		case 16:
			a.TaskStates, ok = r.taskStates()
		case 17:
			a.DeploymentID, ok = r.str(f)
		case 18:
			ok = r.nested(&a.DeploymentStatus)
		case 19:
			ok = r.nested(&a.RescheduleTracker)
		case 20:
			a.FollowupEvalID, ok = r.str(f)
		case 21:
			a.PreviousAllocation, ok = r.str(-1)
		case 22:
			a.NextAllocation, ok = r.str(-1)
		case 23:
			ok = r.nested(&a.PreemptedAllocations)
		case 24:
			a.PreemptedByAllocation, ok = r.str(f)
		case 25:
			a.CreateIndex, ok = r.uint64()
		case 26:
			a.ModifyIndex, ok = r.uint64()
		case 27:
			a.AllocModifyIndex, ok = r.uint64()
		case 28:
			a.CreateTime, ok = r.int64()
		case 29:
			a.ModifyTime, ok = r.int64()
		case 30:
			ok = r.nested(&a.NetworkStatus)
		}
		if !ok {
			return false
		}
	}
	return true
}

// resources reads an alloc's resources, reusing the previous alloc's
// object when the bytes are the same.
func (r *planReader) resources() (*AllocatedResources, bool) {
	if r.nilValue() {
		return nil, true
	}
	start := r.i
	if !r.skip(0) {
		return nil, false
	}
	raw := r.b[start:r.i]
	if r.prevRes != nil && bytes.Equal(raw, r.prevResRaw) {
		return r.prevRes, true
	}
	res := new(AllocatedResources)
	if Decode(raw, res) != nil {
		return nil, false
	}
	r.prevRes, r.prevResRaw = res, raw
	return res, true
}

// desiredTransition reads an alloc's desired transition, every field
// unset on a new placement, without the codec when its fields are nil or
// booleans.
func (r *planReader) desiredTransition(d *DesiredTransition) bool {
	if r.nilValue() {
		return true
	}
	start := r.i
	n, ok := r.arrayLen()
	if !ok || n > 4 {
		r.i = start
		return r.nested(d)
	}
	fields := [...]**bool{&d.Migrate, &d.Reschedule, &d.ForceReschedule, &d.NoShutdownDelay}
	for k := range n {
		if r.nilValue() {
			continue
		}
		if !r.need(1) || (r.b[r.i] != 0xc2 && r.b[r.i] != 0xc3) {
			return false
		}
		v := r.b[r.i] == 0xc3
		*fields[k] = &v
		r.i++
	}
	return true
}

// taskStates reads an alloc's task states; the empty map every new
// placement carries is made here, anything else goes to the codec.
func (r *planReader) taskStates() (map[string]*TaskState, bool) {
	if r.i < len(r.b) && r.b[r.i] == 0x80 {
		r.i++
		return map[string]*TaskState{}, true
	}
	var m map[string]*TaskState
	return m, r.nested(&m)
}

// nested decodes the next value into out with the codec (nil leaves out
// as it is, the zero value, as the codec does for a nil field).
func (r *planReader) nested(out any) bool {
	if r.nilValue() {
		return true
	}
	start := r.i
	if !r.skip(0) {
		return false
	}
	return Decode(r.b[start:r.i], out) == nil
}

func (r *planReader) nilValue() bool {
	if r.i < len(r.b) && r.b[r.i] == 0xc0 {
		r.i++
		return true
	}
	return false
}

// need reports whether n more bytes are there.
func (r *planReader) need(n int) bool { return n >= 0 && len(r.b)-r.i >= n }

func (r *planReader) arrayLen() (int, bool) {
	if !r.need(1) {
		return 0, false
	}
	c := r.b[r.i]
	switch {
	case c >= 0x90 && c <= 0x9f:
		r.i++
		return int(c & 0x0f), true
	case c == 0xdc:
		if !r.need(3) {
			return 0, false
		}
		n := int(binary.BigEndian.Uint16(r.b[r.i+1:]))
		r.i += 3
		return n, true
	case c == 0xdd:
		if !r.need(5) {
			return 0, false
		}
		n := binary.BigEndian.Uint32(r.b[r.i+1:])
		if n > math.MaxInt32 {
			return 0, false
		}
		r.i += 5
		return int(n), true
	}
	return 0, false
}

// str reads a string (nil is ""); field >= 0 compares it with the
// previous alloc's string at that position and reuses that one if equal.
func (r *planReader) str(field int) (string, bool) {
	if r.nilValue() {
		if field >= 0 {
			r.prevStr[field] = ""
		}
		return "", true
	}
	if !r.need(1) {
		return "", false
	}
	c := r.b[r.i]
	var n, head int
	switch {
	case c >= 0xa0 && c <= 0xbf:
		n, head = int(c&0x1f), 1
	case c == 0xd9 && r.need(2):
		n, head = int(r.b[r.i+1]), 2
	case c == 0xda && r.need(3):
		n, head = int(binary.BigEndian.Uint16(r.b[r.i+1:])), 3
	case c == 0xdb && r.need(5):
		u := binary.BigEndian.Uint32(r.b[r.i+1:])
		if u > math.MaxInt32 {
			return "", false
		}
		n, head = int(u), 5
	default:
		return "", false
	}
	if !r.need(head + n) {
		return "", false
	}
	raw := r.b[r.i+head : r.i+head+n]
	r.i += head + n
	if field < 0 {
		return string(raw), true
	}
	if prev := r.prevStr[field]; prev == string(raw) { // no allocation
		return prev, true
	}
	s := string(raw)
	r.prevStr[field] = s
	return s, true
}

// uint64 reads an unsigned integer in the encodings the encoder writes
// for one (positive fixint, uint8-64).
func (r *planReader) uint64() (uint64, bool) {
	if r.nilValue() {
		return 0, true
	}
	if !r.need(1) {
		return 0, false
	}
	c := r.b[r.i]
	switch {
	case c <= 0x7f:
		r.i++
		return uint64(c), true
	case c == 0xcc && r.need(2):
		r.i += 2
		return uint64(r.b[r.i-1]), true
	case c == 0xcd && r.need(3):
		r.i += 3
		return uint64(binary.BigEndian.Uint16(r.b[r.i-2:])), true
	case c == 0xce && r.need(5):
		r.i += 5
		return uint64(binary.BigEndian.Uint32(r.b[r.i-4:])), true
	case c == 0xcf && r.need(9):
		r.i += 9
		return binary.BigEndian.Uint64(r.b[r.i-8:]), true
	}
	return 0, false
}

// int64 reads a signed integer (fixints, int8-64, and uint8-64 up to
// MaxInt64).
func (r *planReader) int64() (int64, bool) {
	if r.nilValue() {
		return 0, true
	}
	if !r.need(1) {
		return 0, false
	}
	c := r.b[r.i]
	switch {
	case c <= 0x7f:
		r.i++
		return int64(c), true
	case c >= 0xe0:
		r.i++
		return int64(int8(c)), true
	case c == 0xd0 && r.need(2):
		r.i += 2
		return int64(int8(r.b[r.i-1])), true
	case c == 0xd1 && r.need(3):
		r.i += 3
		return int64(int16(binary.BigEndian.Uint16(r.b[r.i-2:]))), true
	case c == 0xd2 && r.need(5):
		r.i += 5
		return int64(int32(binary.BigEndian.Uint32(r.b[r.i-4:]))), true
	case c == 0xd3 && r.need(9):
		r.i += 9
		return int64(binary.BigEndian.Uint64(r.b[r.i-8:])), true
	case c >= 0xcc && c <= 0xcf:
		u, ok := r.uint64()
		if !ok || u > math.MaxInt64 {
			return 0, false
		}
		return int64(u), true
	}
	return 0, false
}

// maxSkipDepth bounds the nesting skip follows (the codec's own limit is
// deeper; a value this deep goes to the codec whole).
const maxSkipDepth = 64

// skip moves past one value of any type.
func (r *planReader) skip(depth int) bool {
	if depth > maxSkipDepth || !r.need(1) {
		return false
	}
	c := r.b[r.i]
	// fixed-size values: header byte plus n bytes
	n := -1
	switch {
	case c <= 0x7f, c >= 0xe0, c == 0xc0, c == 0xc2, c == 0xc3:
		n = 0
	case c >= 0xa0 && c <= 0xbf:
		n = int(c & 0x1f)
	case c == 0xcc, c == 0xd0:
		n = 1
	case c == 0xcd, c == 0xd1:
		n = 2
	case c == 0xce, c == 0xd2, c == 0xca:
		n = 4
	case c == 0xcf, c == 0xd3, c == 0xcb:
		n = 8
	case c == 0xd4:
		n = 2
	case c == 0xd5:
		n = 3
	case c == 0xd6:
		n = 5
	case c == 0xd7:
		n = 9
	case c == 0xd8:
		n = 17
	}
	if n >= 0 {
		if !r.need(1 + n) {
			return false
		}
		r.i += 1 + n
		return true
	}
	// length-prefixed bytes: str, bin, ext (ext has a type byte more)
	var size, head int
	switch c {
	case 0xd9, 0xc4:
		if !r.need(2) {
			return false
		}
		size, head = int(r.b[r.i+1]), 2
	case 0xda, 0xc5:
		if !r.need(3) {
			return false
		}
		size, head = int(binary.BigEndian.Uint16(r.b[r.i+1:])), 3
	case 0xdb, 0xc6:
		if !r.need(5) {
			return false
		}
		u := binary.BigEndian.Uint32(r.b[r.i+1:])
		if u > math.MaxInt32 {
			return false
		}
		size, head = int(u), 5
	case 0xc7:
		if !r.need(2) {
			return false
		}
		size, head = int(r.b[r.i+1]), 3
	case 0xc8:
		if !r.need(3) {
			return false
		}
		size, head = int(binary.BigEndian.Uint16(r.b[r.i+1:])), 4
	case 0xc9:
		if !r.need(5) {
			return false
		}
		u := binary.BigEndian.Uint32(r.b[r.i+1:])
		if u > math.MaxInt32 {
			return false
		}
		size, head = int(u), 6
	}
	if head > 0 {
		if !r.need(head + size) {
			return false
		}
		r.i += head + size
		return true
	}
	// containers
	var items int
	switch {
	case c >= 0x90 && c <= 0x9f, c == 0xdc, c == 0xdd:
		k, ok := r.arrayLen()
		if !ok {
			return false
		}
		items = k
	case c >= 0x80 && c <= 0x8f:
		r.i++
		items = 2 * int(c&0x0f)
	case c == 0xde:
		if !r.need(3) {
			return false
		}
		items = 2 * int(binary.BigEndian.Uint16(r.b[r.i+1:]))
		r.i += 3
	case c == 0xdf:
		if !r.need(5) {
			return false
		}
		u := binary.BigEndian.Uint32(r.b[r.i+1:])
		if u > math.MaxInt32/2 {
			return false
		}
		items = 2 * int(u)
		r.i += 5
	default:
		return false // 0xc1, never used
	}
	if items > len(r.b)-r.i {
		return false // every item takes a byte at least
	}
	for range items {
		if !r.skip(depth + 1) {
			return false
		}
	}
	return true
}
