package apiconv

import (
	"maps"
	"slices"

	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

// JobToStructs converts a job received by the register, plan and validate
// endpoints. Nil pointers become zero values; the caller must call
// Canonicalize on the result to apply defaults. The server-owned fields
// (Status, Version, indexes, SubmitTime) are converted too, so the function
// also reads back jobs the API returned, but the register path must
// overwrite them rather than trust the client.
func JobToStructs(j *api.Job) *structs.Job {
	if j == nil {
		return nil
	}
	out := &structs.Job{
		Region:            deref(j.Region),
		Namespace:         deref(j.Namespace),
		ID:                deref(j.ID),
		ParentID:          deref(j.ParentID),
		Name:              deref(j.Name),
		Type:              deref(j.Type),
		Priority:          deref(j.Priority),
		AllAtOnce:         deref(j.AllAtOnce),
		Datacenters:       slices.Clone(j.Datacenters),
		NodePool:          deref(j.NodePool),
		Constraints:       constraintsToStructs(j.Constraints),
		Affinities:        affinitiesToStructs(j.Affinities),
		Spreads:           spreadsToStructs(j.Spreads),
		Update:            jobUpdateToStructs(j),
		Periodic:          periodicToStructs(j.Periodic),
		ParameterizedJob:  parameterizedToStructs(j.ParameterizedJob),
		Dispatched:        j.Dispatched,
		Payload:           slices.Clone(j.Payload),
		Reschedule:        rescheduleToStructs(j.Reschedule),
		Migrate:           migrateToStructs(j.Migrate),
		Meta:              maps.Clone(j.Meta),
		Stop:              deref(j.Stop),
		Status:            deref(j.Status),
		StatusDescription: deref(j.StatusDescription),
		Stable:            deref(j.Stable),
		Version:           deref(j.Version),
		VersionTag:        versionTagToStructs(j.VersionTag),
		SubmitTime:        deref(j.SubmitTime),
		CreateIndex:       deref(j.CreateIndex),
		ModifyIndex:       deref(j.ModifyIndex),
		JobModifyIndex:    deref(j.JobModifyIndex),
	}
	out.TaskGroups = convertPtrs(j.TaskGroups, func(g *api.TaskGroup) *structs.TaskGroup {
		return groupToStructs(j, g)
	})
	return out
}

// JobFromStructs converts a stored job for output. Every scalar pointer is
// set, so JobToStructs(JobFromStructs(j)) equals j.
func JobFromStructs(j *structs.Job) *api.Job {
	if j == nil {
		return nil
	}
	return &api.Job{
		Region:            new(j.Region),
		Namespace:         new(j.Namespace),
		ID:                new(j.ID),
		ParentID:          new(j.ParentID),
		Name:              new(j.Name),
		Type:              new(j.Type),
		Priority:          new(j.Priority),
		AllAtOnce:         new(j.AllAtOnce),
		Datacenters:       slices.Clone(j.Datacenters),
		NodePool:          new(j.NodePool),
		Constraints:       constraintsFromStructs(j.Constraints),
		Affinities:        affinitiesFromStructs(j.Affinities),
		Spreads:           spreadsFromStructs(j.Spreads),
		TaskGroups:        convertPtrs(j.TaskGroups, groupFromStructs),
		Update:            updateFromStructs(j.Update),
		Periodic:          periodicFromStructs(j.Periodic),
		ParameterizedJob:  parameterizedFromStructs(j.ParameterizedJob),
		Dispatched:        j.Dispatched,
		Payload:           slices.Clone(j.Payload),
		Reschedule:        rescheduleFromStructs(j.Reschedule),
		Migrate:           migrateFromStructs(j.Migrate),
		Meta:              maps.Clone(j.Meta),
		Stop:              new(j.Stop),
		Status:            new(j.Status),
		StatusDescription: new(j.StatusDescription),
		Stable:            new(j.Stable),
		Version:           new(j.Version),
		VersionTag:        versionTagFromStructs(j.VersionTag),
		SubmitTime:        new(j.SubmitTime),
		CreateIndex:       new(j.CreateIndex),
		ModifyIndex:       new(j.ModifyIndex),
		JobModifyIndex:    new(j.JobModifyIndex),
	}
}

// JobListStub converts a job for the job list endpoint. structs has no job
// summary type yet, so the caller passes the api form (nil is allowed and
// is what Nomad returns while a summary is missing).
func JobListStub(j *structs.Job, summary *api.JobSummary) *api.JobListStub {
	if j == nil {
		return nil
	}
	return &api.JobListStub{
		ID:                j.ID,
		ParentID:          j.ParentID,
		Name:              j.Name,
		Namespace:         j.Namespace,
		Datacenters:       slices.Clone(j.Datacenters),
		Type:              j.Type,
		Priority:          j.Priority,
		Periodic:          j.Periodic != nil, // as Nomad: a disabled periodic job is still listed as periodic
		ParameterizedJob:  j.IsParameterized(),
		Stop:              j.Stop,
		Status:            j.Status,
		StatusDescription: j.StatusDescription,
		JobSummary:        summary,
		CreateIndex:       j.CreateIndex,
		ModifyIndex:       j.ModifyIndex,
		JobModifyIndex:    j.JobModifyIndex,
		SubmitTime:        j.SubmitTime,
	}
}

func versionTagToStructs(t *api.JobVersionTag) *structs.JobVersionTag {
	if t == nil {
		return nil
	}
	return &structs.JobVersionTag{Name: t.Name, Description: t.Description, TaggedTime: t.TaggedTime}
}

func versionTagFromStructs(t *structs.JobVersionTag) *api.JobVersionTag {
	if t == nil {
		return nil
	}
	return &api.JobVersionTag{Name: t.Name, Description: t.Description, TaggedTime: t.TaggedTime}
}
