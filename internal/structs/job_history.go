package structs

import "maps"

// What a job remembers beside its versions: the version tags operators
// set, the scaling events of its groups, and the source each version was
// submitted as.

// JobVersionTag names a job version (`job tag`); a tagged version is kept
// when older versions are pruned, and `job revert` can name it.
type JobVersionTag struct {
	Name        string
	Description string
	TaggedTime  int64 // unix nanoseconds
}

// Copy returns a copy of the tag.
func (t *JobVersionTag) Copy() *JobVersionTag { return copyPtr(t) }

// ScalingEvent is one change (or attempted change) of a group's count.
type ScalingEvent struct {
	Count         *int64
	PreviousCount int64
	Error         bool
	Message       string
	Meta          map[string]any
	EvalID        string
	Time          int64 // unix nanoseconds
	CreateIndex   uint64
}

// Copy returns a deep copy of the event.
func (e *ScalingEvent) Copy() *ScalingEvent {
	if e == nil {
		return nil
	}
	c := *e
	c.Count = copyPtr(e.Count)
	c.Meta = CopyMapAny(e.Meta)
	return &c
}

// JobTrackedScalingEvents is how many events are kept per task group.
const JobTrackedScalingEvents = 20

// JobScalingEvents holds a job's recent scaling events by task group,
// newest first.
type JobScalingEvents struct {
	Namespace     string
	JobID         string
	ScalingEvents map[string][]*ScalingEvent
	ModifyIndex   uint64
}

// Copy returns a deep copy.
func (j *JobScalingEvents) Copy() *JobScalingEvents {
	if j == nil {
		return nil
	}
	c := *j
	c.ScalingEvents = make(map[string][]*ScalingEvent, len(j.ScalingEvents))
	for g, evs := range j.ScalingEvents {
		c.ScalingEvents[g] = copyEach(evs, (*ScalingEvent).Copy)
	}
	return &c
}

// JobSubmission is the source a job version was submitted as (HCL or
// JSON) with its variables, for `job inspect -hcl`.
type JobSubmission struct {
	Namespace     string
	JobID         string
	Version       uint64
	Source        string
	Format        string
	VariableFlags map[string]string
	Variables     string
}

// Copy returns a deep copy.
func (s *JobSubmission) Copy() *JobSubmission {
	if s == nil {
		return nil
	}
	c := *s
	c.VariableFlags = maps.Clone(s.VariableFlags)
	return &c
}

// MaxJobSubmissionBytes bounds a stored submission's source and variables.
const MaxJobSubmissionBytes = 2 << 20

// ScalingEventEntry is a scaling event to record for one group, carried in
// the job register entry that applies the scale.
type ScalingEventEntry struct {
	Group string
	Event *ScalingEvent
}

// JobStabilityRequest (raft) marks a job version stable or not.
type JobStabilityRequest struct {
	Namespace string
	JobID     string
	Version   uint64
	Stable    bool
}

// JobVersionTagRequest (raft) tags a job version, or with Tag nil removes
// the tag named Name.
type JobVersionTagRequest struct {
	Namespace string
	JobID     string
	Version   uint64
	Name      string
	Tag       *JobVersionTag
}
