package command

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// The var commands manage Variables: encrypted key/value items at paths.

func init() {
	register("var put", varPutCmd)
	register("var get", varGetCmd)
	register("var list", varListCmd)
	register("var purge", varPurgeCmd)
	groupSynopses["var"] = "Interact with variables"
}

func varPutCmd() *cmd {
	var checkIndex optUint
	c := &cmd{
		Name: "var put", Args: "<path> <key>=<value>...", MinArgs: 2, MaxArgs: -1,
		Synopsis: "Create or replace a variable",
		Help:     "Stores the items given as key=value; a value @FILE is read from FILE.\nThe variable's items are replaced, not merged.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.Var(&checkIndex, "check-index", "Write only if the variable's modify index is this (0: only if it does not exist).")
	}
	c.Run = func(e *env, args []string) error {
		items, err := varItems(args[1:])
		if err != nil {
			return err
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		v := &api.Variable{Path: args[0], Items: items, ModifyIndex: checkIndex.v}
		var out *api.Variable
		if checkIndex.set {
			out, _, err = cl.Variables().CheckedUpdate(v, e.write())
		} else {
			out, _, err = cl.Variables().Update(v, e.write())
		}
		var conflict api.ErrCASConflict
		if errors.As(err, &conflict) {
			return errorf("check-index %d does not match: the variable's modify index is %d", checkIndex.v, conflict.Conflict.ModifyIndex)
		}
		if err != nil {
			return apiError("writing variable", err)
		}
		fmt.Fprintf(e.stdout, "Wrote variable %q with modify index %d\n", out.Path, out.ModifyIndex)
		return nil
	}
	return c
}

// varItems parses key=value arguments; @FILE values are read from a file.
func varItems(args []string) (api.VariableItems, error) {
	items := api.VariableItems{}
	for _, kv := range args {
		key, val, ok := strings.Cut(kv, "=")
		if !ok || key == "" {
			return nil, errorf("%q is not of the form key=value", kv)
		}
		if file, isFile := strings.CutPrefix(val, "@"); isFile {
			b, err := os.ReadFile(file)
			if err != nil {
				return nil, errorf("item %s: %v", key, err)
			}
			val = string(b)
		}
		items[key] = val
	}
	return items, nil
}

func varGetCmd() *cmd {
	var item string
	c := &cmd{
		Name: "var get", Args: "<path>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Show a variable and its items",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&item, "item", "", "Print only the value of this item.")
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		v, _, err := cl.Variables().Peek(args[0], e.query())
		if err != nil {
			return apiError("reading variable", err)
		}
		if v == nil {
			return errorf("variable %q not found", args[0])
		}
		if item != "" {
			val, ok := v.Items[item]
			if !ok {
				return errorf("variable %q has no item %q", args[0], item)
			}
			fmt.Fprintln(e.stdout, val)
			return nil
		}
		return e.output(v, func() error {
			writeKV(e.stdout, [][2]string{{"Namespace", v.Namespace}, {"Path", v.Path},
				{"Create Time", e.whenNanos(v.CreateTime)}, {"Check Index", fmt.Sprint(v.ModifyIndex)}})
			heading(e.stdout, "Items")
			keys := make([]string, 0, len(v.Items))
			for k := range v.Items {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			pairs := make([][2]string, 0, len(keys))
			for _, k := range keys {
				pairs = append(pairs, [2]string{k, v.Items[k]})
			}
			writeKV(e.stdout, pairs)
			return nil
		})
	}
	return c
}

func varListCmd() *cmd {
	c := &cmd{
		Name: "var list", Args: "[<prefix>]", MaxArgs: 1, Read: true,
		Synopsis: "List variables (paths and metadata, never items)",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		prefix := ""
		if len(args) == 1 {
			prefix = args[0]
		}
		list, _, err := cl.Variables().PrefixList(prefix, e.query())
		if err != nil {
			return apiError("listing variables", err)
		}
		return e.output(list, func() error {
			if len(list) == 0 {
				fmt.Fprintln(e.stdout, "No variables found")
				return nil
			}
			rows := [][]string{{"Namespace", "Path", "Last Updated"}}
			for _, v := range list {
				rows = append(rows, []string{v.Namespace, v.Path, e.whenNanos(v.ModifyTime)})
			}
			writeColumns(e.stdout, rows)
			return nil
		})
	}
	return c
}

func varPurgeCmd() *cmd {
	var checkIndex optUint
	c := &cmd{
		Name: "var purge", Args: "<path>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Delete a variable",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.Var(&checkIndex, "check-index", "Delete only if the variable's modify index is this.")
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		if checkIndex.set {
			_, err = cl.Variables().CheckedDelete(args[0], checkIndex.v, e.write())
		} else {
			_, err = cl.Variables().Delete(args[0], e.write())
		}
		var conflict api.ErrCASConflict
		if errors.As(err, &conflict) {
			return errorf("check-index %d does not match: the variable's modify index is %d", checkIndex.v, conflict.Conflict.ModifyIndex)
		}
		if err != nil {
			return apiError("purging variable", err)
		}
		fmt.Fprintf(e.stdout, "Purged variable %q\n", args[0])
		return nil
	}
	return c
}
