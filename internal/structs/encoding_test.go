package structs

import (
	"fmt"
	"testing"
)

// benchPlanResults is a plan entry shaped like scenario a's: ten placed
// allocs of one job.
func benchPlanResults() *ApplyPlanResultsRequest {
	req := &ApplyPlanResultsRequest{EvalID: "eval-1", UpdatedAt: 1}
	for i := range 10 {
		req.AllocsUpdated = append(req.AllocsUpdated, &Allocation{
			ID: fmt.Sprintf("alloc-%036d", i), Namespace: "default", EvalID: "eval-1", Name: fmt.Sprintf("web.g[%d]", i),
			NodeID: fmt.Sprintf("node-%032d", i), NodeName: "node", JobID: "web", TaskGroup: "g",
			AllocatedResources: &AllocatedResources{
				Tasks:  map[string]*AllocatedTaskResources{"t": {CpuShares: 100, MemoryMB: 64}},
				Shared: AllocatedSharedResources{DiskMB: 300},
			},
			DesiredStatus: AllocDesiredStatusRun, ClientStatus: AllocClientStatusPending,
		})
	}
	return req
}

// go test -run ^$ -bench Encode -benchmem ./internal/structs
func BenchmarkEncode_PlanResults(b *testing.B) {
	req := benchPlanResults()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(ApplyPlanResultsRequestType, req); err != nil {
			b.Fatal(err)
		}
	}
}

// Encoders are reused: a small entry encoded after a large one carries
// nothing of it, and each result is the caller's own bytes.
func TestEncode_ReusedEncoderStartsClean(t *testing.T) {
	big, err := Encode(ApplyPlanResultsRequestType, benchPlanResults())
	if err != nil {
		t.Fatal(err)
	}
	small, err := Encode(EvalUpdateRequestType, &EvalUpdateRequest{EvalToken: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	if small[0] != byte(EvalUpdateRequestType) || len(small) >= len(big) {
		t.Fatalf("small entry: type %d, %d bytes (the large one has %d)", small[0], len(small), len(big))
	}
	var got EvalUpdateRequest
	if err := Decode(small[1:], &got); err != nil || got.EvalToken != "tok" || len(got.Evals) != 0 {
		t.Fatalf("decoded %+v, %v", got, err)
	}
	before := append([]byte(nil), big...)
	if _, err := Encode(ApplyPlanResultsRequestType, &ApplyPlanResultsRequest{EvalID: "other"}); err != nil {
		t.Fatal(err)
	}
	if string(before) != string(big) {
		t.Fatal("a later Encode changed an earlier result")
	}
}

// go test -run ^$ -bench Decode -benchmem ./internal/structs
func BenchmarkDecode_PlanResults(b *testing.B) {
	buf, err := Encode(ApplyPlanResultsRequestType, benchPlanResults())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var req ApplyPlanResultsRequest
		if err := Decode(buf[1:], &req); err != nil {
			b.Fatal(err)
		}
	}
}
