package auth

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestIdentityMayRead(t *testing.T) {
	c := &structs.IdentityClaims{Namespace: "default", JobID: "web", TaskGroup: "g", Task: "t"}
	for path, want := range map[string]bool{
		"nomad/jobs": true, "nomad/jobs/web": true, "nomad/jobs/web/g": true, "nomad/jobs/web/g/t": true,
		"nomad/jobs/web/g/t/extra": true, "nomad/jobs/web/other": true,
		"nomad/jobs/webby": false, "nomad/jobs/api": false, "app/db": false, "nomad/jobsx": false,
	} {
		if got := identityMay(c, "default", path, "read"); got != want {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
	if identityMay(c, "prod", "nomad/jobs/web", "read") {
		t.Error("another namespace's variable readable")
	}
}
