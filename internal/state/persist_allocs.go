package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"
	"github.com/hashicorp/go-msgpack/v2/codec"

	"github.com/drover-project/drover/internal/structs"
)

// Allocs are written to snapshots without what they share in the store
// (alloc_compact.go): a million allocs each carrying their job, placement
// metrics and resources made a snapshot gigabytes long and its restore
// decode a million copies of the same job. An alloc record names its job
// by version, and its metrics and resources by a reference to a shared
// record written once, before the first alloc that uses it. Restore puts
// the sharing back.

// Record tags of compact allocs (see snapshotTables: append only).
const (
	tagAllocShared recordType = 9  // a sharedRecord
	tagAllocRef    recordType = 10 // an allocRecord
)

// Values of allocRecord.JobRef.
const (
	jobInline  = iota // Alloc.Job is in the record (not a stored job)
	jobLive           // the jobs table row of (Namespace, JobID)
	jobVersion        // the job_version row of (Namespace, JobID, JobVersion)
)

// allocRecord is an alloc in a snapshot. Alloc.Job, Metrics and
// AllocatedResources are left out when JobRef, MetricsRef or
// ResourcesRef name them.
type allocRecord struct {
	Alloc        *structs.Allocation
	JobRef       uint8
	JobVersion   uint64
	MetricsRef   uint64
	ResourcesRef uint64
}

// sharedRecord is a metrics or resources object shared by allocs.
type sharedRecord struct {
	Ref       uint64
	Metrics   *structs.AllocMetric
	Resources *structs.AllocatedResources
}

// allocPersister writes allocs as allocRecords.
type allocPersister struct {
	txn       *memdb.Txn
	enc       *codec.Encoder
	metrics   map[*structs.AllocMetric]uint64
	resources map[*structs.AllocatedResources]uint64
	nextRef   uint64
	// jobs remembers each job pointer's reference: the allocs of a group
	// share one job, and two index lookups per alloc were a sixth of a
	// million-alloc save.
	jobs map[*structs.Job]uint8
}

func persistAllocs(txn *memdb.Txn, enc *codec.Encoder) error {
	p := &allocPersister{
		txn: txn, enc: enc,
		metrics:   map[*structs.AllocMetric]uint64{},
		resources: map[*structs.AllocatedResources]uint64{},
		jobs:      map[*structs.Job]uint8{},
	}
	it, err := txn.Get(TableAllocs, "id")
	if err != nil {
		return err
	}
	for obj := it.Next(); obj != nil; obj = it.Next() {
		if err := p.write(obj.(*structs.Allocation)); err != nil {
			return err
		}
	}
	return nil
}

func (p *allocPersister) write(a *structs.Allocation) error {
	c := *a
	rec := allocRecord{Alloc: &c}
	ref, err := p.jobRef(a)
	if err != nil {
		return err
	}
	if ref != jobInline {
		rec.JobRef, rec.JobVersion, c.Job = ref, a.Job.Version, nil
	}
	if a.Metrics != nil {
		if rec.MetricsRef, err = shared(p, p.metrics, a.Metrics, sharedRecord{Metrics: a.Metrics}); err != nil {
			return err
		}
		c.Metrics = nil
	}
	if a.AllocatedResources != nil {
		if rec.ResourcesRef, err = shared(p, p.resources, a.AllocatedResources, sharedRecord{Resources: a.AllocatedResources}); err != nil {
			return err
		}
		c.AllocatedResources = nil
	}
	return p.record(tagAllocRef, &rec)
}

// shared returns obj's reference, writing its record the first time.
func shared[T comparable](p *allocPersister, refs map[T]uint64, obj T, rec sharedRecord) (uint64, error) {
	if ref, ok := refs[obj]; ok {
		return ref, nil
	}
	p.nextRef++
	rec.Ref = p.nextRef
	refs[obj] = rec.Ref
	return rec.Ref, p.record(tagAllocShared, &rec)
}

func (p *allocPersister) record(tag recordType, v any) error {
	if err := p.enc.Encode(tag); err != nil {
		return err
	}
	return p.enc.Encode(v)
}

// jobRef says whether the alloc's job is a stored row, and which.
func (p *allocPersister) jobRef(a *structs.Allocation) (uint8, error) {
	if a.Job == nil {
		return jobInline, nil
	}
	if ref, ok := p.jobs[a.Job]; ok {
		return ref, nil
	}
	ref, err := p.lookupJobRef(a)
	if err != nil {
		return 0, err
	}
	p.jobs[a.Job] = ref
	return ref, nil
}

func (p *allocPersister) lookupJobRef(a *structs.Allocation) (uint8, error) {
	live, err := jobByID(p.txn, nil, a.Job.Namespace, a.Job.ID)
	if err != nil {
		return 0, err
	}
	if live == a.Job {
		return jobLive, nil
	}
	v, err := first[structs.Job](p.txn, nil, TableJobVersion, "id", a.Job.Namespace, a.Job.ID, a.Job.Version)
	if err != nil {
		return 0, err
	}
	if v == a.Job {
		return jobVersion, nil
	}
	return jobInline, nil
}

// allocRestorer rebuilds allocs from their records. Allocs are inserted
// at the end (finish), when every job row of the snapshot is in.
type allocRestorer struct {
	shared  map[uint64]*sharedRecord
	pending []*allocRecord
	strs    interner
	// jobs holds the job each (namespace, job, reference, version) names:
	// thousands of allocs name the same one, and looking it up per alloc
	// was a tenth of a restore's time.
	jobs map[jobKey]*structs.Job
}

// jobKey is what an allocRecord says of its job.
type jobKey struct {
	namespace, id string
	ref           uint8
	version       uint64
}

func newAllocRestorer() *allocRestorer {
	return &allocRestorer{shared: map[uint64]*sharedRecord{}, jobs: map[jobKey]*structs.Job{}}
}

func (r *allocRestorer) decode(tag recordType, dec *codec.Decoder) error {
	switch tag {
	case tagAllocShared:
		rec := &sharedRecord{}
		if err := dec.Decode(rec); err != nil {
			return err
		}
		r.shared[rec.Ref] = rec
	case tagAllocRef:
		rec := &allocRecord{}
		if err := dec.Decode(rec); err != nil {
			return err
		}
		if rec.Alloc == nil {
			return fmt.Errorf("alloc record without an alloc")
		}
		if err := r.resolveShared(rec); err != nil {
			return err
		}
		r.pending = append(r.pending, rec)
	}
	return nil
}

func (r *allocRestorer) resolveShared(rec *allocRecord) error {
	a := rec.Alloc
	if rec.MetricsRef != 0 {
		s, ok := r.shared[rec.MetricsRef]
		if !ok || s.Metrics == nil {
			return fmt.Errorf("alloc %s: unknown metrics reference %d", a.ID, rec.MetricsRef)
		}
		a.Metrics = s.Metrics
	}
	if rec.ResourcesRef != 0 {
		s, ok := r.shared[rec.ResourcesRef]
		if !ok || s.Resources == nil {
			return fmt.Errorf("alloc %s: unknown resources reference %d", a.ID, rec.ResourcesRef)
		}
		a.AllocatedResources = s.Resources
	}
	return nil
}

// finish attaches each alloc's job and inserts the allocs.
func (r *allocRestorer) finish(txn *restoreTxn) error {
	tx := &writeTxn{interner: &r.strs}
	for _, rec := range r.pending {
		a := rec.Alloc
		if rec.JobRef != jobInline {
			job, err := r.job(txn, rec)
			if err != nil {
				return err
			}
			a.Job = job
		}
		if rec.JobRef != jobInline && a.Job == nil {
			return fmt.Errorf("alloc %s: job %s version %d not in the snapshot", a.ID, a.JobID, rec.JobVersion)
		}
		a.AllocatedResources.Seal() // as storeAlloc's copies are (sharedResources)
		tx.internAlloc(a)
		if err := txn.insert(TableAllocs, a); err != nil {
			return fmt.Errorf("restoring alloc %s: %w", a.ID, err)
		}
	}
	return nil
}

// job returns the stored job a record names (nil if the snapshot lacks
// it). Allocs are inserted after every job row, so the answer never
// changes during finish.
func (r *allocRestorer) job(txn *restoreTxn, rec *allocRecord) (*structs.Job, error) {
	a := rec.Alloc
	key := jobKey{namespace: a.Namespace, id: a.JobID, ref: rec.JobRef}
	if rec.JobRef == jobVersion {
		key.version = rec.JobVersion
	}
	if job, ok := r.jobs[key]; ok {
		return job, nil
	}
	var job *structs.Job
	var err error
	switch rec.JobRef {
	case jobLive:
		job, err = jobByID(txn.Txn, nil, a.Namespace, a.JobID)
	case jobVersion:
		job, err = first[structs.Job](txn.Txn, nil, TableJobVersion, "id", a.Namespace, a.JobID, rec.JobVersion)
	default:
		return nil, fmt.Errorf("alloc %s: unknown job reference %d", a.ID, rec.JobRef)
	}
	if err != nil {
		return nil, err
	}
	r.jobs[key] = job
	return job, nil
}
