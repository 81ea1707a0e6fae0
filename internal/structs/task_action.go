package structs

import (
	"regexp"
	"slices"
)

// Action is a task's `action` block: a command an operator with
// alloc-exec may run in a running allocation of the task by name,
// without choosing the command themselves.
type Action struct {
	Name    string
	Command string
	Args    []string
}

// Copy returns a copy.
func (a *Action) Copy() *Action {
	if a == nil {
		return nil
	}
	c := *a
	c.Args = slices.Clone(a.Args)
	return &c
}

// maxActionNameLen bounds an action's name, as Nomad does.
const maxActionNameLen = 128

// validActionName is Nomad's documented alphabet for action names
// (letters, digits and dashes), plus underscores: refusing them would
// break jobs for no gain, the name is only ever a lookup key.
var validActionName = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// Action returns the task's action called name, or nil.
func (t *Task) Action(name string) *Action {
	for _, a := range t.Actions {
		if a != nil && a.Name == name {
			return a
		}
	}
	return nil
}

// validateActions checks each action has a well-formed name unique in the
// task and a command.
func (t *Task) validateActions(v validator) {
	seen := make(map[string]bool, len(t.Actions))
	for i, a := range t.Actions {
		av := v.index("Actions", i)
		if a == nil {
			av.failHere("is empty")
			continue
		}
		switch {
		case a.Name == "":
			av.fail("Name", "is required")
		case len(a.Name) > maxActionNameLen:
			av.fail("Name", "must be at most %d characters, got %d", maxActionNameLen, len(a.Name))
		case !validActionName.MatchString(a.Name):
			av.fail("Name", "%q may contain only letters, digits and dashes", a.Name)
		case seen[a.Name]:
			av.fail("Name", "%q is defined twice in the task", a.Name)
		}
		seen[a.Name] = true
		av.require("Command", a.Command)
	}
}
