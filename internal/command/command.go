package command

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// cmd describes one command. Flags and Run are closures over the
// command's own option variables, built fresh for every invocation.
type cmd struct {
	Name     string // space-separated path, e.g. "job run"
	Args     string // positional arguments for the usage line
	Synopsis string
	Help     string // paragraphs printed after the usage line
	Read     bool   // read command: gets -json, -t, -verbose and -abs-time
	MinArgs  int
	MaxArgs  int // -1: unlimited
	Flags    func(fs *flag.FlagSet)
	Run      func(e *env, args []string) error
}

// registry lists the constructors of every command, by name.
var registry = map[string]func() *cmd{}

// register is called from each command file's init so adding a command is
// one file.
func register(name string, ctor func() *cmd) { registry[name] = ctor }

// Run dispatches args (without the program name) to a command. It is
// cmd/drover's entry point for everything but `agent` and `version`.
func Run(args []string, stdout, stderr io.Writer) int {
	e := newEnv(stdout, stderr, os.Getenv)
	return e.dispatch(args)
}

// dispatch finds the longest registered command name that prefixes args.
func (e *env) dispatch(args []string) int {
	name, rest := lookup(args)
	if name == "" {
		return e.unknown(args)
	}
	c := registry[name]()
	return e.runCmd(c, rest)
}

func lookup(args []string) (string, []string) {
	for n := len(args); n > 0; n-- {
		name := strings.Join(args[:n], " ")
		if _, ok := registry[name]; ok {
			return name, args[n:]
		}
	}
	return "", args
}

// unknown explains an unknown command; a known group (e.g. `drover job`)
// without a subcommand lists the group's subcommands instead.
func (e *env) unknown(args []string) int {
	// The longest group wins, so `drover operator snapshot` lists the
	// snapshot commands rather than every operator command.
	for n := len(args); n > 0; n-- {
		group := strings.Join(args[:n], " ")
		if subs := subcommands(group); len(subs) > 0 && (n == len(args) || isHelp(args[n])) {
			e.groupUsage(group, subs)
			return boolExit(n == len(args))
		}
	}
	fmt.Fprintf(e.stderr, "drover: unknown command %q\n\n", strings.Join(args, " "))
	fmt.Fprint(e.stderr, Usage())
	return 1
}

func boolExit(failed bool) int {
	if failed {
		return 1
	}
	return 0
}

func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

func subcommands(group string) []string {
	var out []string
	for name := range registry {
		if strings.HasPrefix(name, group+" ") {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func (e *env) groupUsage(group string, subs []string) {
	fmt.Fprintf(e.stderr, "Usage: drover %s <subcommand> [options] [args]\n\nSubcommands:\n", group)
	rows := [][]string{}
	for _, s := range subs {
		rows = append(rows, []string{"    " + strings.TrimPrefix(s, group+" "), registry[s]().Synopsis})
	}
	writeColumns(e.stderr, rows)
}

// Usage is the list of CLI commands, for cmd/drover's top-level help.
func Usage() string {
	var b strings.Builder
	top := map[string]bool{}
	for name := range registry {
		top[strings.SplitN(name, " ", 2)[0]] = true
	}
	names := make([]string, 0, len(top))
	for n := range top {
		names = append(names, n)
	}
	sort.Strings(names)
	rows := [][]string{}
	for _, n := range names {
		rows = append(rows, []string{"    " + n, groupSynopsis(n)})
	}
	b.WriteString("CLI commands:\n")
	writeColumns(&b, rows)
	return b.String()
}

// groupSynopsis is a command's synopsis, or a summary of a group's.
func groupSynopsis(n string) string {
	if ctor, ok := registry[n]; ok {
		return ctor().Synopsis
	}
	return groupSynopses[n]
}

var groupSynopses = map[string]string{
	"alloc":      "Interact with allocations",
	"deployment": "Interact with deployments",
	"eval":       "Interact with evaluations",
	"event":      "Follow the cluster's event stream",
	"job":        "Interact with jobs",
	"namespace":  "Interact with namespaces",
	"node":       "Interact with nodes",
	"operator":   "Cluster operator commands",
	"server":     "Interact with servers",
	"acl":        "Interact with ACL policies and tokens",
	"system":     "Interact with the system API",
	"plugin":     "Not supported by Drover: no CSI or device plugins",
	"scaling":    "Not supported by Drover: no scaling policies",
	"setup":      "Not supported by Drover: no Consul or Vault integration",
	"tls":        "Generate self-signed TLS certificates for Drover",
	"volume":     "Not supported by Drover: no CSI or dynamic host volume API",
}

// runCmd parses flags, checks the argument count and runs c, mapping its
// error to an exit code.
func (e *env) runCmd(c *cmd, args []string) int {
	fs := e.flagSet(c)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			e.printUsage(e.stdout, c, fs)
			return 0
		}
		fmt.Fprintf(e.stderr, "Error: %v\n\n", err)
		e.printUsage(e.stderr, c, fs)
		return 1
	}
	rest := fs.Args()
	if len(rest) < c.MinArgs || (c.MaxArgs >= 0 && len(rest) > c.MaxArgs) {
		fmt.Fprintf(e.stderr, "Error: %s takes %s\n\n", c.Name, argCount(c))
		e.printUsage(e.stderr, c, fs)
		return 1
	}
	return e.exit(c.Run(e, rest))
}

func argCount(c *cmd) string {
	switch {
	case c.MinArgs == c.MaxArgs && c.MinArgs == 0:
		return "no arguments"
	case c.MinArgs == c.MaxArgs:
		return fmt.Sprintf("%d argument(s)", c.MinArgs)
	case c.MaxArgs < 0:
		return fmt.Sprintf("at least %d argument(s)", c.MinArgs)
	}
	return fmt.Sprintf("%d to %d arguments", c.MinArgs, c.MaxArgs)
}

// exitError carries a specific exit code; a nil err means "exit quietly".
type exitError struct {
	code int
	err  error
}

func (x *exitError) Error() string {
	if x.err == nil {
		return fmt.Sprintf("exit %d", x.code)
	}
	return x.err.Error()
}

// exitCode returns an error that makes the command exit with code, printing
// nothing more.
func exitCode(code int) error { return &exitError{code: code} }

// exit prints err (if any) and returns its exit code.
func (e *env) exit(err error) int {
	if err == nil {
		return 0
	}
	var x *exitError
	if errors.As(err, &x) {
		if x.err != nil {
			fmt.Fprintf(e.stderr, "Error: %v\n", x.err)
		}
		return x.code
	}
	fmt.Fprintf(e.stderr, "Error: %v\n", err)
	return 1
}

// now is the clock for relative times; a var so tests can pin it.
var now = time.Now

// Group returns the entry point for one top-level command name (e.g.
// "job"), for cmd/drover's command table, which strips the name.
func Group(name string) func(args []string, stdout, stderr io.Writer) int {
	return func(args []string, stdout, stderr io.Writer) int {
		return Run(append([]string{name}, args...), stdout, stderr)
	}
}

// Known reports whether name is a registered command or group's first word.
func Known(name string) bool {
	for n := range registry {
		if n == name || strings.HasPrefix(n, name+" ") {
			return true
		}
	}
	return false
}

// Names lists every registered command, sorted.
func Names() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Refused is the reason a command is deliberately refused, "" if it is not.
func Refused(name string) string { return refusedCommands[name] }
