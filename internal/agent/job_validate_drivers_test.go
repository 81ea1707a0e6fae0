package agent

import (
	"strings"
	"testing"
)

// TestJobValidate_DriverConfig: built-in drivers' configs are checked
// against their schemas (DriverConfigValidated), a wrong field is a
// validation error naming task and field, and a driver Drover does not
// ship leaves DriverConfigValidated false.
func TestJobValidate_DriverConfig(t *testing.T) {
	_, c := testAgent(t, nil)

	good, _, err := c.Jobs().Validate(testAPIJob("good"), nil)
	if err != nil || !good.DriverConfigValidated || len(good.ValidationErrors) != 0 {
		t.Fatalf("docker job: %v %+v, want DriverConfigValidated and no errors", err, good)
	}

	typo := testAPIJob("typo")
	typo.TaskGroups[0].Tasks[0].Config["imagee"] = "nginx"
	bad, _, err := c.Jobs().Validate(typo, nil)
	if err != nil || !bad.DriverConfigValidated || len(bad.ValidationErrors) != 1 ||
		!strings.Contains(bad.Error, `"imagee"`) || !strings.Contains(bad.Error, `"server"`) {
		t.Fatalf("docker job with a typo: %v %+v, want one error naming task and field", err, bad)
	}

	custom := testAPIJob("custom")
	custom.TaskGroups[0].Tasks[0].Driver = "podman"
	other, _, err := c.Jobs().Validate(custom, nil)
	if err != nil || other.DriverConfigValidated || len(other.ValidationErrors) != 0 {
		t.Fatalf("third-party driver: %v %+v, want valid but DriverConfigValidated false", err, other)
	}
}
