package ui_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil/agenttest"
)

// TestBrowser_OneTimeTokenSignsIn: a UI URL with ?ott= (what `drover ui
// -authenticate` opens) signs the browser in with the token the one-time
// token was made for, drops the ott from the address bar, and shows the
// jobs; the same one-time token a second time is refused and said so.
func TestBrowser_OneTimeTokenSignsIn(t *testing.T) {
	b := newBrowser(t)
	a := agenttest.Start(t, nil, func(cfg *config.Config) { cfg.DataDir = t.TempDir(); cfg.ACL.Enabled = true })
	c := agenttest.Client(t, a)
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetSecretID(root.SecretID)
	register(t, c, mockJob("web", 1, ""))
	ott, _, err := c.ACLTokens().UpsertOneTimeToken(nil)
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + a.HTTPAddr()
	b.visit(base, "/ui/jobs?ott="+ott.OneTimeSecretID, "Signed in with a one-time token", "web")
	var saved, href string
	b.run("saved token and address", chromedp.Evaluate(`localStorage.getItem('drover.token')`, &saved), chromedp.Evaluate(`location.href`, &href))
	if saved != root.SecretID {
		t.Errorf("saved token %q, want the management token's secret", saved)
	}
	if href != base+"/ui/jobs" {
		t.Errorf("address after the exchange: %s, want the ott removed", href)
	}

	// Used once: a second exchange fails, and the page says so.
	b.run("sign out", chromedp.Evaluate(`localStorage.removeItem('drover.token')`, nil))
	b.mu.Lock()
	b.allow403 = true
	b.mu.Unlock()
	t.Cleanup(func() { b.mu.Lock(); b.allow403 = false; b.mu.Unlock() })
	b.run("navigate again", chromedp.Navigate(base+"/ui/jobs?ott="+ott.OneTimeSecretID))
	b.waitText("reused ott", "Signing in with the one-time token failed: 403")
}
