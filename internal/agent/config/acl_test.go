package config

import (
	"strings"
	"testing"
	"time"
)

func TestLoadACLBlockAndNodeCredential(t *testing.T) {
	c, err := Load(write(t, "acl.hcl", `
acl {
  enabled    = true
  token_ttl  = "45s"
  policy_ttl = "2m"
}
server { node_registration_token = "srv-secret" }
client { node_registration_token = "cli-secret" }
`))
	if err != nil {
		t.Fatal(err)
	}
	if !c.ACL.Enabled || c.ACL.TokenTTL != 45*time.Second || c.ACL.PolicyTTL != 2*time.Minute {
		t.Fatalf("acl = %+v", c.ACL)
	}
	if c.Server.NodeRegistrationToken != "srv-secret" || c.Client.NodeRegistrationToken != "cli-secret" {
		t.Fatalf("node credentials %q %q", c.Server.NodeRegistrationToken, c.Client.NodeRegistrationToken)
	}
	if d := Default(); d.ACL.Enabled || d.ACL.TokenTTL != 30*time.Second {
		t.Fatalf("default acl = %+v", d.ACL)
	}
	merged := Default().Merge(c)
	if !merged.ACL.Enabled || merged.ACL.PolicyTTL != 2*time.Minute {
		t.Fatalf("merged acl = %+v", merged.ACL)
	}
}

func TestLoadACLBlockErrors(t *testing.T) {
	_, err := Load(write(t, "bad.hcl", "acl {\n  token_ttl = \"soon\"\n  bogus = 1\n}\n"))
	if err == nil || !strings.Contains(err.Error(), "bad.hcl:2:") || !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("err = %v", err)
	}
}
