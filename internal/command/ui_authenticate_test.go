package command

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
)

// TestUIAuthenticate: `ui -authenticate` opens the UI with a one-time
// token made for the CLI's token, which exchanges (once) for that token;
// without a usable token it fails before opening anything.
func TestUIAuthenticate(t *testing.T) {
	addr, c := testAgent(t, func(cfg *config.Config) { cfg.ACL.Enabled = true })
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	var opened string
	var out, errb strings.Builder
	e := newEnv(&out, &errb, func(string) string { return "" })
	e.openURL = func(u string) error { opened = u; return nil }
	if code := e.dispatch([]string{"ui", "-authenticate", "-address", addr, "-token", root.SecretID}); code != 0 {
		t.Fatalf("ui -authenticate: %d %s %s", code, out.String(), errb.String())
	}
	m := regexp.MustCompile(`^` + regexp.QuoteMeta(addr) + `/ui/\?ott=([0-9a-f-]{36})$`).FindStringSubmatch(opened)
	if m == nil || !strings.Contains(out.String(), "with a one-time token") {
		t.Fatalf("opened %q, printed %q", opened, out.String())
	}
	anon, err := api.NewClient(&api.Config{Address: addr})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := anon.ACLTokens().ExchangeOneTimeToken(m[1], nil)
	if err != nil || got.SecretID != root.SecretID {
		t.Fatalf("exchange: %+v %v", got, err)
	}
	if _, _, err := anon.ACLTokens().ExchangeOneTimeToken(m[1], nil); err == nil {
		t.Fatal("the one-time token exchanged twice")
	}

	opened = ""
	r := run(t, "ui", "-authenticate", "-show-url", "-address", addr)
	if r.code != 1 || !strings.Contains(r.stderr, "one-time token") || opened != "" {
		t.Fatalf("ui -authenticate without a token: %+v", r)
	}
}
