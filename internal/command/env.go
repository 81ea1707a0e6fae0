package command

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

const defaultAddress = "http://127.0.0.1:4646"

// env is what every command runs with: its output streams, the global and
// output options, and a lazily built API client.
type env struct {
	stdout, stderr io.Writer
	stdin          io.Reader // os.Stdin; tests give their own
	getenv         func(string) string

	address, namespace, region string
	token                      string // ACL secret (-token, NOMAD_TOKEN)
	tls                        tlsFlags

	// Output options of read commands.
	json    bool
	tmpl    string
	verbose bool
	absTime bool
	client  *api.Client

	// jobPositions are where the HCL job file last parsed wrote each
	// block and attribute, by api path: a server's refusal naming a path
	// is shown at file:line:col (atPositions).
	jobPositions map[string]string

	// tty: stdout is a terminal, so live views may redraw in place.
	tty bool

	// Time and duration formatting; tests replace them to get stable
	// output without losing column alignment.
	relTime    func(t time.Time) string
	absTimeFmt func(t time.Time) string
	dur        func(d time.Duration) string
	// openURL, when set, opens a URL instead of the desktop's browser
	// (`login` with an OIDC method): tests play the browser.
	openURL func(u string) error
}

func newEnv(stdout, stderr io.Writer, getenv func(string) string) *env {
	return &env{stdout: stdout, stderr: stderr, stdin: os.Stdin, getenv: getenv, tty: isTerminal(stdout, getenv),
		relTime: relativeTime, absTimeFmt: absoluteTime, dur: shortDuration}
}

// flagSet builds the flag set of c: the global flags, the output flags of
// read commands, then c's own.
func (e *env) flagSet(c *cmd) *flag.FlagSet {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // runCmd prints errors and usage itself
	fs.StringVar(&e.address, "address", e.firstEnv("DROVER_ADDR", "NOMAD_ADDR"),
		"The address of the agent's HTTP API: http://, https://, or unix:// for a task's Task API socket (env DROVER_ADDR or NOMAD_ADDR; default "+defaultAddress+").")
	fs.StringVar(&e.namespace, "namespace", e.firstEnv("DROVER_NAMESPACE", "NOMAD_NAMESPACE"),
		"The target namespace (env DROVER_NAMESPACE or NOMAD_NAMESPACE).")
	fs.StringVar(&e.region, "region", e.firstEnv("DROVER_REGION", "NOMAD_REGION"),
		"The target region (env DROVER_REGION or NOMAD_REGION).")
	fs.StringVar(&e.token, "token", e.firstEnv("DROVER_TOKEN", "NOMAD_TOKEN"),
		"The ACL token's secret ID (env DROVER_TOKEN or NOMAD_TOKEN).")
	e.tls.register(fs, e)
	if c.Read {
		fs.BoolVar(&e.json, "json", false, "Output the API's JSON.")
		fs.StringVar(&e.tmpl, "t", "", "Format the output with a Go template.")
		fs.BoolVar(&e.verbose, "verbose", false, "Show full IDs and extra detail.")
		fs.BoolVar(&e.absTime, "abs-time", false, "Show absolute times instead of relative ones.")
	}
	if c.Flags != nil {
		c.Flags(fs)
	}
	return fs
}

// firstEnv is the first non-empty of the named environment variables.
// DROVER_* comes first: it is the more deliberate setting.
func (e *env) firstEnv(names ...string) string {
	for _, n := range names {
		if v := e.getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// api returns the client for the chosen agent, built once.
func (e *env) api() (*api.Client, error) {
	if e.client != nil {
		return e.client, nil
	}
	cfg := api.DefaultConfig()
	cfg.Address = e.address
	if cfg.Address == "" {
		cfg.Address = defaultAddress
	}
	cfg.Namespace, cfg.Region, cfg.SecretID = e.namespace, e.region, e.token
	if cfg.TLSConfig == nil {
		cfg.TLSConfig = &api.TLSConfig{}
	}
	e.tls.apply(cfg.TLSConfig)
	c, err := api.NewClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the API client for %s: %w", cfg.Address, err)
	}
	e.client = c
	return c, nil
}

// query and write return the per-call options carrying the namespace and
// region, for calls that take them explicitly.
func (e *env) query() *api.QueryOptions {
	return &api.QueryOptions{Namespace: e.namespace, Region: e.region}
}

func (e *env) write() *api.WriteOptions {
	return &api.WriteOptions{Namespace: e.namespace, Region: e.region}
}

// printUsage writes c's usage line, help text and options.
func (e *env) printUsage(w io.Writer, c *cmd, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: drover %s [options] %s\n\n", c.Name, c.Args)
	fmt.Fprintf(w, "  %s\n", c.Synopsis)
	if c.Help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(indent(c.Help, "  "), "\n"))
	}
	fmt.Fprint(w, "\nOptions:\n\n")
	fs.VisitAll(func(f *flag.Flag) {
		fmt.Fprintf(w, "  -%s%s\n    %s\n\n", f.Name, flagArg(f), f.Usage)
	})
}

// flagArg shows what a non-boolean flag takes, e.g. "=<value>".
func flagArg(f *flag.Flag) string {
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return ""
	}
	return "=<value>"
}

func indent(s, pre string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pre + l
		}
	}
	return strings.Join(lines, "\n")
}

// kvList is a repeatable flag of key=value pairs, e.g. -var and -meta.
type kvList []string

func (k *kvList) String() string     { return strings.Join(*k, ",") }
func (k *kvList) Set(v string) error { *k = append(*k, v); return nil }

// strList is a repeatable string flag.
type strList = kvList

// pairs splits the list into a map; a pair without '=' is an error.
func (k kvList) pairs() (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range k {
		key, val, ok := strings.Cut(kv, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("%q is not of the form key=value", kv)
		}
		out[key] = val
	}
	return out, nil
}

// optUint is a uint flag that remembers whether it was given, for options
// where 0 is meaningful (-check-index 0: "must not exist yet").
type optUint struct {
	v   uint64
	set bool
}

func (o *optUint) String() string { return strconv.FormatUint(o.v, 10) }
func (o *optUint) Set(s string) error {
	v, err := strconv.ParseUint(s, 10, 64)
	o.v, o.set = v, true
	return err
}
