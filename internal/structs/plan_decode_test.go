package structs

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/drover-project/drover/internal/testutil/benchentries"
	"github.com/hashicorp/go-msgpack/v2/codec"
)

// codecPlanResults decodes as every entry type but the plan result does.
func codecPlanResults(t testing.TB, buf []byte) (*ApplyPlanResultsRequest, error) {
	t.Helper()
	var out ApplyPlanResultsRequest
	err := Decode(buf, &out)
	return &out, err
}

// fastPlanResults decodes with the fast path alone; ok is false when it
// would have handed the entry to the codec.
func fastPlanResults(buf []byte) (out *ApplyPlanResultsRequest, ok bool) {
	out = new(ApplyPlanResultsRequest)
	r := planReader{b: buf}
	return out, r.planResults(out) && r.i == len(buf)
}

// samePlanResults fails unless DecodePlanResults gives what Decode gives
// for buf (both errors, or field for field equal values).
func samePlanResults(t *testing.T, what string, buf []byte) {
	t.Helper()
	want, wantErr := codecPlanResults(t, buf)
	var got ApplyPlanResultsRequest
	gotErr := DecodePlanResults(buf, &got)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%s: codec error %v, DecodePlanResults error %v", what, wantErr, gotErr)
	}
	if wantErr != nil {
		if wantErr.Error() != gotErr.Error() {
			t.Fatalf("%s: codec error %q, DecodePlanResults error %q", what, wantErr, gotErr)
		}
		return
	}
	if !reflect.DeepEqual(want, &got) {
		t.Fatalf("%s: DecodePlanResults differs from the codec:\n got %#v\nwant %#v", what, got, *want)
	}
}

// benchPlanEntries are the plan results among the entries a drover bench
// run committed (internal/fsm/testdata/bench-entries.bin.gz).
func benchPlanEntries(t testing.TB) [][]byte {
	t.Helper()
	entries, err := benchentries.Read("../fsm/testdata/bench-entries.bin.gz")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, e := range entries { // type byte, payload
		if MessageType(e.Data[0]) == ApplyPlanResultsRequestType {
			out = append(out, e.Data[1:])
		}
	}
	return out
}

func TestDecodePlanResults_AllocFields(t *testing.T) {
	// A field appended to Allocation or ApplyPlanResultsRequest must be
	// read by the fast path too (else every entry falls back).
	if n := reflect.TypeFor[Allocation]().NumField(); n != allocFields {
		t.Fatalf("Allocation has %d fields, the fast path reads %d: teach planReader.alloc the new ones", n, allocFields)
	}
	if n := reflect.TypeFor[DesiredTransition]().NumField(); n != 4 {
		t.Fatalf("DesiredTransition has %d fields, the fast path reads 4", n)
	}
	if n := reflect.TypeFor[ApplyPlanResultsRequest]().NumField(); n != 10 {
		t.Fatalf("ApplyPlanResultsRequest has %d fields, the fast path reads 10", n)
	}
}

// Real entries take the fast path and decode to what the codec gives.
func TestDecodePlanResults_SameAsCodec(t *testing.T) {
	entries := benchPlanEntries(t)
	if len(entries) == 0 {
		t.Fatal("no plan entries in the testdata")
	}
	for i, buf := range entries {
		if _, ok := fastPlanResults(buf); !ok {
			t.Fatalf("entry %d: the fast path handed a real entry to the codec", i)
		}
		samePlanResults(t, "bench entry", buf)
	}
	r := rand.New(rand.NewPCG(1, 2))
	fast := 0
	for i := range 500 {
		req := randomPlanResults(r)
		buf, err := Encode(ApplyPlanResultsRequestType, req)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := fastPlanResults(buf[1:]); ok {
			fast++
		}
		samePlanResults(t, "random entry", buf[1:])
		if i%50 == 0 {
			// truncated entries fail alike
			for cut := 1; cut < len(buf)-1; cut += 1 + len(buf)/40 {
				samePlanResults(t, "truncated random entry", buf[1:cut])
			}
		}
	}
	if fast < 400 {
		t.Errorf("the fast path took %d of 500 random entries", fast)
	}
}

// Real entries with one byte changed (a type byte turned into another
// type, a length into another length) decode as the codec decodes them,
// or fail as it fails.
func TestDecodePlanResults_MutatedEntries(t *testing.T) {
	buf := benchPlanEntries(t)[0]
	for i := range buf {
		for _, c := range []byte{0xc0, 0xa1, 0xca, 0x01, 0xff, 0xdc, 0x91, 0x80, 0xd3, 0xcf} {
			m := bytes.Clone(buf)
			m[i] = c
			samePlanResults(t, "mutated entry", m)
		}
	}
}

// An entry of the first format (structs as maps keyed by field name) and
// one with a field this build does not know go through the codec.
func TestDecodePlanResults_OtherFormats(t *testing.T) {
	req := randomPlanResults(rand.New(rand.NewPCG(3, 4)))
	var byName bytes.Buffer
	if err := codec.NewEncoder(&byName, MsgpackHandle).Encode(req); err != nil {
		t.Fatal(err)
	}
	if _, ok := fastPlanResults(byName.Bytes()); ok {
		t.Fatal("the fast path took an entry of maps")
	}
	samePlanResults(t, "by-name entry", byName.Bytes())

	buf, err := Encode(ApplyPlanResultsRequestType, req)
	if err != nil {
		t.Fatal(err)
	}
	// One more element in the request's array (a newer field).
	longer := append([]byte{0x90 | 11}, buf[2:]...)
	longer = append(longer, 0xa1, 'x')
	if _, ok := fastPlanResults(longer); ok {
		t.Fatal("the fast path took a request with a field it does not know")
	}
	samePlanResults(t, "longer entry", longer)
}

func FuzzDecodePlanResults(f *testing.F) {
	for _, buf := range benchPlanEntries(f)[:4] {
		f.Add(buf)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 8 {
		buf, err := Encode(ApplyPlanResultsRequestType, randomPlanResults(r))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(buf[1:])
	}
	f.Fuzz(func(t *testing.T, buf []byte) {
		samePlanResults(t, "fuzzed entry", buf)
	})
}

func BenchmarkDecodePlanResults(b *testing.B) {
	entries := benchPlanEntries(b)
	b.Run("codec", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, buf := range entries {
				var req ApplyPlanResultsRequest
				if err := Decode(buf, &req); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(entries)), "ns/entry")
	})
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, buf := range entries {
				var req ApplyPlanResultsRequest
				if err := DecodePlanResults(buf, &req); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(entries)), "ns/entry")
	})
}

// randomPlanResults is a plan result whose allocs have every field drawn
// at random (nil, empty and filled nested values; strings of every
// msgpack length class; the extremes of each integer type), neighbours
// often repeating each other's strings and resources as a group's allocs
// do.
func randomPlanResults(r *rand.Rand) *ApplyPlanResultsRequest {
	var req ApplyPlanResultsRequest
	fillRandom(r, reflect.ValueOf(&req).Elem(), 0)
	lists := []*[]*Allocation{&req.AllocsUpdated, &req.AllocsStopped, &req.AllocsPreempted}
	for _, l := range lists {
		switch r.IntN(4) {
		case 0:
			*l = nil
		case 1:
			*l = []*Allocation{}
		default:
			*l = make([]*Allocation, r.IntN(6))
			for k := range *l {
				if r.IntN(8) == 0 {
					continue // a nil element
				}
				a := new(Allocation)
				fillRandom(r, reflect.ValueOf(a).Elem(), 0)
				if k > 0 && (*l)[k-1] != nil && r.IntN(2) == 0 {
					prev := (*l)[k-1]
					a.Namespace, a.EvalID, a.JobID, a.TaskGroup, a.DesiredStatus = prev.Namespace, prev.EvalID, prev.JobID, prev.TaskGroup, prev.DesiredStatus
					a.AllocatedResources = prev.AllocatedResources
				}
				(*l)[k] = a
			}
		}
	}
	return &req
}

// fillRandom sets v, and what it reaches down to a few levels, at random.
func fillRandom(r *rand.Rand, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(randomString(r))
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := v.Type().Bits()
		switch r.IntN(5) {
		case 0:
			v.SetInt(0)
		case 1:
			v.SetInt(-1 << (bits - 1))
		case 2:
			v.SetInt(1<<(bits-1) - 1)
		default:
			v.SetInt(int64(r.Uint64()) >> (64 - bits) >> r.IntN(bits))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		bits := v.Type().Bits()
		switch r.IntN(4) {
		case 0:
			v.SetUint(0)
		case 1:
			v.SetUint(math.MaxUint64 >> (64 - bits))
		default:
			v.SetUint(r.Uint64() >> (64 - bits) >> r.IntN(bits))
		}
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(r.IntN(1000)) / 8)
	case reflect.Pointer:
		if depth > 3 || r.IntN(3) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fillRandom(r, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Struct:
		if v.Type().PkgPath() != "" && v.Type().PkgPath() != reflect.TypeFor[Allocation]().PkgPath() {
			return // time.Time and the like: left zero
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillRandom(r, v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // []byte: left nil
		}
		switch n := r.IntN(4); {
		case depth > 3 || n == 0:
		case n == 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			s := reflect.MakeSlice(v.Type(), n-1, n-1)
			for i := range s.Len() {
				fillRandom(r, s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Map:
		switch n := r.IntN(4); {
		case depth > 3 || n == 0:
		case n == 1:
			v.Set(reflect.MakeMap(v.Type()))
		default:
			m := reflect.MakeMap(v.Type())
			for range n - 1 {
				k := reflect.New(v.Type().Key()).Elem()
				fillRandom(r, k, depth+1)
				e := reflect.New(v.Type().Elem()).Elem()
				fillRandom(r, e, depth+1)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.Interface:
		if r.IntN(2) == 0 {
			v.Set(reflect.ValueOf(randomString(r)))
		}
	}
}

// randomString draws lengths across msgpack's string classes (fixstr,
// str8, str16, str32 is left out for size).
func randomString(r *rand.Rand) string {
	lengths := []int{0, 1, 31, 32, 255, 256, 300}
	n := lengths[r.IntN(len(lengths))]
	if r.IntN(4) == 0 {
		n = r.IntN(40)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + r.IntN(26))
	}
	return string(b)
}
