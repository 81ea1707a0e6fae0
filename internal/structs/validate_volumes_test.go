package structs

import (
	"strings"
	"testing"
)

func TestValidateVolumes(t *testing.T) {
	cases := []struct {
		name    string
		vols    map[string]*VolumeRequest
		mounts  []*VolumeMount
		wantErr string
	}{
		{"host volume mounted", map[string]*VolumeRequest{"data": {Type: "host", Source: "shared"}}, []*VolumeMount{{Volume: "data", Destination: "/srv"}}, ""},
		{"csi refused", map[string]*VolumeRequest{"data": {Type: "csi", Source: "x"}}, nil, "TaskGroups[0].Volumes[data].Type"},
		{"no source", map[string]*VolumeRequest{"data": {Type: "host"}}, nil, "TaskGroups[0].Volumes[data].Source"},
		{"unknown volume", nil, []*VolumeMount{{Volume: "nope", Destination: "/srv"}}, "TaskGroups[0].Tasks[0].VolumeMounts[0].Volume"},
		{"no destination", map[string]*VolumeRequest{"data": {Type: "host", Source: "s"}}, []*VolumeMount{{Volume: "data"}}, "TaskGroups[0].Tasks[0].VolumeMounts[0].Destination"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := &Job{ID: "j", Name: "j", Type: JobTypeService, Datacenters: []string{"dc1"}, TaskGroups: []*TaskGroup{{
				Name: "g", Count: 1, Volumes: tc.vols,
				Tasks: []*Task{{Name: "t", Driver: "raw_exec", VolumeMounts: tc.mounts}},
			}}}
			j.Canonicalize()
			err := j.Validate()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err %v, want one naming %s", err, tc.wantErr)
			}
		})
	}
}
