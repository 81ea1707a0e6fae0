package config

import (
	"fmt"
	"strings"
)

// RenderReference renders docs/reference/agent-config.md from the key
// table (TestAgentConfigReference_IsCurrent keeps the file current).
func RenderReference() string {
	var b strings.Builder
	b.WriteString("# Agent configuration keys\n\n")
	b.WriteString("Generated from `internal/agent/config/keys.go` (the key table); do not edit by hand.\n")
	b.WriteString("Regenerate with `DROVER_UPDATE_DOCS=1 go test -run TestAgentConfigReference_IsCurrent ./internal/agent/config/`.\n\n")
	b.WriteString("Every key Nomad documents for its agent configuration is in one of three states:\n\n")
	b.WriteString("- **honoured**: decoded and acted on; the test named beside it shows it.\n")
	b.WriteString("- **refused**: the agent does not start; the error names the key at its file:line:col and says Drover does not support it (one error per key, all at once).\n")
	b.WriteString("- **warned**: accepted and ignored with a logged warning naming it; only keys that cannot change where or how anything runs.\n\n")
	b.WriteString("A refused or warned block covers every key inside it. A key in no Nomad document is refused too, with a \"did you mean\" when one is close. Keys marked (Drover) are Drover's own.\n\n")
	counts := map[KeyState]int{}
	for _, k := range keyTable {
		counts[k.State]++
	}
	fmt.Fprintf(&b, "%d keys: %d honoured, %d refused, %d warned.\n\n", len(keyTable), counts[Honoured], counts[Refused], counts[Warned])
	b.WriteString("| Key | State | Test / why |\n|---|---|---|\n")
	for _, k := range Keys() {
		name := "`" + k.Path + "`"
		if k.Block {
			name += " { }"
		}
		if k.Drover {
			name += " (Drover)"
		}
		note := k.Why
		if k.State == Honoured {
			note = "`" + k.Test + "`"
			if k.Why != "" {
				note += "; " + k.Why
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, k.State, strings.ReplaceAll(note, "|", "\\|"))
	}
	return b.String()
}
