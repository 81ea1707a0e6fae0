package command

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

func init() {
	register("fmt", fmtCmd)
	register("var init", varInitCmd)
}

func fmtCmd() *cmd {
	var check, list, write, recursive bool
	c := &cmd{Name: "fmt", Args: "[<path>...]", MaxArgs: -1, Synopsis: "Rewrites HCL job files to canonical format",
		Help: "Formats the .nomad, .nomad.hcl and .hcl files named (directories: their files; -recursive: below) " +
			"with hclwrite, in place. \"-\" formats stdin to stdout. -check exits 3 when a file is not formatted. " +
			"A file that does not parse is an error naming file:line:col."}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&check, "check", false, "Only check: exit 3 when a file needs formatting.")
		fs.BoolVar(&list, "list", true, "Print the names of the files changed.")
		fs.BoolVar(&write, "write", true, "Write the result back to the file.")
		fs.BoolVar(&recursive, "recursive", false, "Descend into directories.")
	}
	c.Run = func(e *env, args []string) error {
		if len(args) == 0 {
			args = []string{"."}
		}
		if len(args) == 1 && args[0] == "-" {
			src, err := io.ReadAll(e.stdin)
			if err != nil {
				return err
			}
			out, err := formatHCL("<stdin>", src)
			if err != nil {
				return err
			}
			_, err = e.stdout.Write(out)
			return err
		}
		var files []string
		for _, a := range args {
			st, err := os.Stat(a)
			if err != nil {
				return err
			}
			if !st.IsDir() {
				files = append(files, a)
				continue
			}
			err = filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.IsDir() && p != a && !recursive {
					return filepath.SkipDir
				}
				if !d.IsDir() && (strings.HasSuffix(p, ".nomad") || strings.HasSuffix(p, ".hcl")) {
					files = append(files, p)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		unformatted := false
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			out, err := formatHCL(f, src)
			if err != nil {
				return err
			}
			if bytes.Equal(src, out) {
				continue
			}
			unformatted = true
			if list {
				fmt.Fprintln(e.stdout, f)
			}
			if write && !check {
				if err := os.WriteFile(f, out, 0o644); err != nil {
					return err
				}
			}
		}
		if check && unformatted {
			return exitCode(3)
		}
		return nil
	}
	return c
}

// formatHCL formats src, refusing a file that does not parse.
func formatHCL(name string, src []byte) ([]byte, error) {
	if _, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos); diags.HasErrors() {
		return nil, errorf("%s", diags.Error())
	}
	return hclwrite.Format(src), nil
}

func varInitCmd() *cmd {
	var jsonOut, quiet bool
	c := &cmd{Name: "var init", Args: "[<file>]", MaxArgs: 1, Synopsis: "Create an example variable specification file"}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&jsonOut, "json", false, "Write JSON instead of HCL.")
		fs.BoolVar(&quiet, "quiet", false, "Print the specification instead of writing a file.")
	}
	c.Run = func(e *env, args []string) error {
		file, body := "spec.nv.hcl", exampleVarHCL
		if jsonOut {
			file, body = "spec.nv.json", exampleVarJSON
		}
		if len(args) == 1 {
			file = args[0]
		}
		if quiet {
			fmt.Fprint(e.stdout, body)
			return nil
		}
		return writeNewFile(e, file, body, "Example variable specification written to %s\n", "variable specification %q already exists")
	}
	return c
}

const exampleVarHCL = `# A variable: "drover var put @spec.nv.hcl" writes it. Tasks read it with
# a template (nomadVar "nomad/jobs/example") when the path is theirs.
path = "nomad/jobs/example"

items {
  username = "app"
  password = "change me"
}
`

const exampleVarJSON = `{
  "Path": "nomad/jobs/example",
  "Items": {
    "username": "app",
    "password": "change me"
  }
}
`
