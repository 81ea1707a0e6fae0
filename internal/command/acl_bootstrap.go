package command

import (
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/hashicorp/nomad/api"
)

func init() { register("acl bootstrap", aclBootstrapCmd) }

func aclBootstrapCmd() *cmd {
	c := &cmd{
		Name: "acl bootstrap", Args: "[<path>]", MaxArgs: 1, Read: true,
		Synopsis: "Create the first management token",
		Help: "Bootstraps the ACL system once and prints the management token. With a\n" +
			"path (or - for stdin), the file's content (a UUID) becomes its secret.",
	}
	c.Run = func(e *env, args []string) error {
		var secret string
		if len(args) == 1 {
			raw, err := readFileOrStdin(args[0])
			if err != nil {
				return err
			}
			secret = strings.TrimSpace(string(raw))
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		tok, _, err := cl.ACLTokens().BootstrapOpts(secret, e.write())
		if err != nil {
			return apiError("bootstrapping ACLs", err)
		}
		return e.output(tok, func() error { e.printToken(tok); return nil })
	}
	return c
}

// readFileOrStdin reads path, or standard input for "-".
func readFileOrStdin(path string) ([]byte, error) {
	var raw []byte
	var err error
	if path == "-" {
		raw, err = io.ReadAll(os.Stdin)
	} else {
		raw, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, errorf("reading %s: %v", path, err)
	}
	return raw, nil
}

// printToken writes a token's fields (Nomad's layout).
func (e *env) printToken(t *api.ACLToken) {
	expiry := "<none>"
	if t.ExpirationTime != nil {
		expiry = e.absTimeFmt(*t.ExpirationTime)
	}
	rows := [][2]string{
		{"Accessor ID", t.AccessorID},
		{"Secret ID", t.SecretID},
		{"Name", t.Name},
		{"Type", t.Type},
		{"Global", strconv.FormatBool(t.Global)},
		{"Create Time", e.absTimeFmt(t.CreateTime)},
		{"Expiry Time", expiry},
		{"Create Index", strconv.FormatUint(t.CreateIndex, 10)},
		{"Modify Index", strconv.FormatUint(t.ModifyIndex, 10)},
		{"Policies", "[" + strings.Join(t.Policies, " ") + "]"},
	}
	if len(t.Roles) > 0 {
		names := make([]string, 0, len(t.Roles))
		for _, r := range t.Roles {
			names = append(names, r.Name)
		}
		rows = append(rows, [2]string{"Roles", "[" + strings.Join(names, " ") + "]"})
	}
	writeKV(e.stdout, rows)
}
