package command

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// Reference is the CLI reference (docs/reference/cli.md), generated from
// the command definitions: each command's usage line, synopsis, help and
// own flags with their defaults, then the global flags once.
// TestCLIReference_UpToDate keeps the file equal to it.
func Reference() string {
	var b strings.Builder
	b.WriteString("# drover CLI reference\n\n")
	b.WriteString("Generated from the command definitions (`internal/command`); do not edit by hand:\n")
	b.WriteString("`go test ./internal/command -run TestCLIReference -update` rewrites it.\n")
	b.WriteString("`drover agent`, `drover config validate` and `drover version` are described by `drover agent -h`\n")
	b.WriteString("and `drover config validate -h`. Commands marked *refused* exist so that scripts written for\n")
	b.WriteString("Nomad fail with the reason; they exit 1 and change nothing.\n\n")
	e := newEnv(io.Discard, io.Discard, func(string) string { return "" })
	global := map[string]bool{}
	gfs := e.flagSet(&cmd{Name: "global"})
	gfs.VisitAll(func(f *flag.Flag) { global[f.Name] = true })
	read := map[string]bool{}
	rfs := e.flagSet(&cmd{Name: "read", Read: true})
	rfs.VisitAll(func(f *flag.Flag) {
		if !global[f.Name] {
			read[f.Name] = true
		}
	})
	for _, name := range Names() {
		c := registry[name]()
		fmt.Fprintf(&b, "## drover %s\n\n", name)
		if reason, refused := refusedCommands[name]; refused {
			fmt.Fprintf(&b, "*Refused*: %s.\n\n", reason)
			continue
		}
		fmt.Fprintf(&b, "```\ndrover %s [options] %s\n```\n\n%s.\n\n", name, c.Args, strings.TrimSuffix(c.Synopsis, "."))
		if c.Help != "" {
			fmt.Fprintf(&b, "%s\n\n", strings.Join(strings.Fields(c.Help), " "))
		}
		fs := e.flagSet(c)
		var rows []string
		fs.VisitAll(func(f *flag.Flag) {
			if global[f.Name] || read[f.Name] {
				return
			}
			def := ""
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" {
				def = fmt.Sprintf(" (default `%s`)", f.DefValue)
			}
			rows = append(rows, fmt.Sprintf("- `-%s%s`: %s%s", f.Name, flagArg(f), strings.Join(strings.Fields(f.Usage), " "), def))
		})
		if c.Read {
			rows = append(rows, "- `-json`, `-t=<template>`, `-verbose`, `-abs-time`: output options of read commands")
		}
		if len(rows) > 0 {
			b.WriteString(strings.Join(rows, "\n") + "\n\n")
		}
	}
	b.WriteString("## Global options\n\nEvery command takes these (each defaults to its environment variable, DROVER_* first, then Nomad's NOMAD_*):\n\n")
	gfs.VisitAll(func(f *flag.Flag) {
		fmt.Fprintf(&b, "- `-%s%s`: %s\n", f.Name, flagArg(f), strings.Join(strings.Fields(f.Usage), " "))
	})
	return b.String()
}
