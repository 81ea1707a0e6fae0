package structs

import "fmt"

// Host volumes: directories a client offers (agent config `host_volume`),
// which a group claims with a `volume` block and a task mounts with
// `volume_mount`.

// VolumeTypeHost is the only volume type Drover schedules (csi is not).
const VolumeTypeHost = "host"

// ClientHostVolumeConfig is one `host_volume "name" { path read_only }`.
type ClientHostVolumeConfig struct {
	Name     string
	Path     string
	ReadOnly bool
}

// Copy returns a copy.
func (v *ClientHostVolumeConfig) Copy() *ClientHostVolumeConfig { return copyPtr(v) }

// VolumeRequest is a group's `volume "name" { ... }` block.
type VolumeRequest struct {
	Name     string
	Type     string
	Source   string
	ReadOnly bool
	// PerAlloc appends the alloc's index to Source: source[0], source[1]...
	PerAlloc bool
}

// Copy returns a copy.
func (v *VolumeRequest) Copy() *VolumeRequest { return copyPtr(v) }

// SourceFor is the host volume an alloc of the given index uses.
func (v *VolumeRequest) SourceFor(allocIndex uint) string {
	if v.PerAlloc {
		return fmt.Sprintf("%s[%d]", v.Source, allocIndex)
	}
	return v.Source
}

// VolumeMount is a task's `volume_mount` block.
type VolumeMount struct {
	Volume          string
	Destination     string
	ReadOnly        bool
	PropagationMode string
}

// Copy returns a copy.
func (v *VolumeMount) Copy() *VolumeMount { return copyPtr(v) }
