package command

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/template"
)

// output writes v as JSON (-json), through a Go template (-t), or as the
// human view drawn by human. Every read command goes through here so the
// three forms behave the same everywhere.
func (e *env) output(v any, human func() error) error {
	switch {
	case e.json && e.tmpl != "":
		return fmt.Errorf("-json and -t are mutually exclusive")
	case e.json:
		return e.printJSON(v)
	case e.tmpl != "":
		return e.printTemplate(v)
	}
	return human()
}

// outputList is output for a list: the table, or the none line when the
// list is empty.
func outputList[T any](e *env, items []T, none string, table func([]T)) error {
	return e.output(items, func() error {
		if len(items) == 0 {
			fmt.Fprintln(e.stdout, none)
			return nil
		}
		table(items)
		return nil
	})
}

func (e *env) printJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "    ")
	if err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	_, err = fmt.Fprintln(e.stdout, string(b))
	return err
}

func (e *env) printTemplate(v any) error {
	t, err := template.New("output").Funcs(template.FuncMap{
		"json": func(v any) (string, error) {
			b, err := json.MarshalIndent(v, "", "    ")
			return string(b), err
		},
		"join": strings.Join,
	}).Parse(e.tmpl)
	if err != nil {
		return fmt.Errorf("parsing template: %w", err)
	}
	if err := t.Execute(e.stdout, v); err != nil {
		return fmt.Errorf("executing template: %w", err)
	}
	return nil
}
