package ui_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/drover-project/drover/internal/testutil/agenttest"
)

// disabled answers whether the element sel names is disabled.
func (b *browser) disabled(sel string) bool {
	var d bool
	b.run("disabled "+sel, chromedp.WaitReady(sel, chromedp.ByQuery),
		chromedp.Evaluate(fmt.Sprintf(`document.querySelector(%q).disabled`, sel), &d))
	return d
}

func (b *browser) live() string {
	var s string
	b.run("live badge", chromedp.Text("#live", &s, chromedp.ByQuery))
	return s
}

// TestBrowser_ACL: with ACLs on, the UI says a token is needed instead
// of "No jobs yet"; saving a token restarts the event stream; a
// management token creates and revokes tokens by clicking; a read-only
// token sees the controls it cannot use disabled, and a 403 as such.
func TestBrowser_ACL(t *testing.T) {
	b := newBrowser(t)
	a := agenttest.Start(t, nil, func(cfg *config.Config) { cfg.DataDir = t.TempDir(); cfg.ACL.Enabled = true })
	c := agenttest.Client(t, a)
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetSecretID(root.SecretID)
	base := "http://" + a.HTTPAddr()
	register(t, c, mockJob("web", 1, ""))
	register(t, c, shellJob("shell", "while true; do sleep 1; done"))
	waitRunning(t, c, "web", 1)
	waitRunning(t, c, "shell", 1)
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "readonly",
		Rules: "namespace \"default\" {\n  policy = \"read\"\n}\nnode {\n  policy = \"read\"\n}\nagent {\n  policy = \"read\"\n}\n"}, nil); err != nil {
		t.Fatal(err)
	}
	nodes, _, err := c.Nodes().List(nil)
	if err != nil || len(nodes) != 1 {
		t.Fatalf("nodes %v %v", nodes, err)
	}

	// No token: the jobs page says what is missing; the stream is refused.
	b.mu.Lock()
	b.allow403 = true
	b.mu.Unlock()
	t.Cleanup(func() { b.mu.Lock(); b.allow403 = false; b.mu.Unlock() })
	b.visit(base, "/ui/jobs", "ACLs enabled and no token is set", "Settings")
	if l := b.live(); l != "offline" {
		t.Errorf("event stream without a token: %q, want offline", l)
	}

	// Saving the management token restarts the stream with it.
	b.visit(base, "/ui/settings/tokens", "No token is set")
	b.fill("#f-secret", root.SecretID)
	b.click(`form[data-action="save"] button[type=submit]`)
	b.waitText("signed in", "Token saved.", "Signed in", "management")
	testutil.WaitFor(t, 15*time.Second, "the event stream restarted with the token", func() (bool, string) { l := b.live(); return l == "live", l })
	b.visit(base, "/ui/jobs", "web", "running")
	var runLink bool
	b.run("run link", chromedp.Evaluate(`!!document.querySelector('a[href="/ui/jobs/run"]')`, &runLink))
	if !runLink {
		t.Error("no run job link for a management token")
	}

	// Exec with ACLs on: the token goes in the socket's first frame.
	b.visit(base, "/ui/exec/shell@default", "Connect")
	b.click(`form[data-action="connect"] button[type=submit]`)
	b.run("terminal", chromedp.WaitVisible(`#term .xterm-helper-textarea`, chromedp.ByQuery))
	b.run("type", chromedp.SendKeys(`#term .xterm-helper-textarea`, "echo acl-$((6*7))"+kb.Enter, chromedp.ByQuery))
	testutil.WaitFor(t, 20*time.Second, "the command's output", func() (bool, string) {
		var out string
		b.run("transcript", chromedp.Text("#transcript", &out, chromedp.ByQuery))
		return strings.Contains(out, "acl-42"), out
	})

	// Create a token by clicking, then revoke it.
	b.visit(base, "/ui/administration/tokens", "Tokens", "Bootstrap Token")
	b.visit(base, "/ui/administration/tokens/new", "Create token")
	b.fill("#f-name", "ui-made")
	b.fill("#f-policies", "readonly")
	b.click(`form[data-action="create"] button[type=submit]`)
	b.waitText("created", "Token created.")
	var secret string
	b.run("new secret", chromedp.Text("#new-secret", &secret, chromedp.ByQuery))
	var made *api.ACLToken
	testutil.WaitFor(t, 10*time.Second, "ui-made in the token list", func() (bool, string) {
		list, _, err := c.ACLTokens().List(nil)
		for _, tk := range list {
			if tk.Name == "ui-made" && len(tk.Policies) == 1 && tk.Policies[0] == "readonly" {
				made, _, err = c.ACLTokens().Info(tk.AccessorID, nil)
				return err == nil && made.SecretID == secret, fmt.Sprint(err)
			}
		}
		return false, fmt.Sprint(err)
	})
	b.visit(base, "/ui/administration/policies", "readonly")
	b.visit(base, "/ui/administration/policies/new", "Save policy")
	b.fill("#f-name", "ui-policy")
	b.fill("#f-rules", "namespace \"default\" {\n  policy = \"write\"\n}\n")
	b.click(`form[data-action="create"] button[type=submit]`)
	b.waitText("policy saved", "Policy ui-policy saved.")
	testutil.WaitFor(t, 10*time.Second, "ui-policy", func() (bool, string) {
		p, _, err := c.ACLPolicies().Info("ui-policy", nil)
		return err == nil && strings.Contains(p.Rules, "write"), fmt.Sprint(err)
	})
	b.visit(base, "/ui/administration/roles", "No roles")
	b.visit(base, "/ui/administration/tokens/"+made.AccessorID, "Token ui-made", "readonly")
	b.confirm(`button[data-action="revoke"]`)
	b.waitText("revoked", "Token revoked.")
	testutil.WaitFor(t, 10*time.Second, "ui-made revoked", func() (bool, string) {
		_, _, err := c.ACLTokens().Info(made.AccessorID, nil)
		return err != nil, fmt.Sprint(err)
	})

	// A read-only token: what it cannot do is disabled, a 403 says so.
	ro, _, err := c.ACLTokens().Create(&api.ACLToken{Name: "ro", Type: "client", Policies: []string{"readonly"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.run("header token", chromedp.SetValue("#token", ro.SecretID, chromedp.ByQuery), chromedp.Click("#token-form button", chromedp.ByQuery))
	b.visit(base, "/ui/jobs/web@default", "Job web", "Task groups")
	b.visit(base, "/ui/jobs/web@default", "Job web", "Task groups")
	if !b.disabled(`button[data-action="stop-job"]`) {
		t.Error("stop is enabled for a read-only token")
	}
	var scaleForms int
	b.run("scale forms", chromedp.Evaluate(`document.querySelectorAll('form[data-action="scale"]').length`, &scaleForms))
	if scaleForms != 0 {
		t.Error("a read-only token is offered scaling")
	}
	b.visit(base, "/ui/clients/"+nodes[0].ID, "Drain")
	if !b.disabled(`form[data-action="drain"] button[type=submit]`) || !b.disabled(`button[data-action="eligibility"]`) {
		t.Error("drain or eligibility enabled for node:read")
	}
	b.visit(base, "/ui/administration/tokens", "Permission denied (403)")
	b.screenshot("/ui/jobs/web@default (read-only)")
}
