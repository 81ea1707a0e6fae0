package jobspec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/nomad/api"
)

var actionSchema = schema([]string{"command", "args"})

// actions decodes a task's `action "name" { command, args }` blocks. A
// missing command and a name used twice in the task are reported at the
// block, where the author has to fix them.
func (b *block) actions() []*api.Action {
	var out []*api.Action
	seen := map[string]*hcl.Block{}
	for _, hb := range b.all("action") {
		name := hb.Labels[0]
		if first, dup := seen[name]; dup {
			b.d.diags = append(b.d.diags, errorf(hb.DefRange, "Duplicate action block",
				"The task already has an action %q, defined at %s; action names are unique per task.", name, pos(&first.DefRange)))
			continue
		}
		seen[name] = hb
		ab := b.d.openBlock(hb, actionSchema)
		a := &api.Action{Name: name}
		if !ab.has("command") {
			b.d.diags = append(b.d.diags, errorf(hb.DefRange, "Missing required argument",
				"The action block needs a command to run."))
		}
		ab.str("command", &a.Command)
		ab.strList("args", &a.Args)
		out = append(out, a)
	}
	return out
}
