package command

import (
	"fmt"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// match is one object whose ID starts with the prefix a user typed, with
// the columns shown when the prefix turns out to be ambiguous.
type match struct {
	ID   string
	Cols []string
}

// resolve turns a user's ID prefix into one full ID: an exact match wins,
// a unique prefix match is taken, several are listed so the user can pick.
func (e *env) resolve(kind, prefix string, header []string, list func(prefix string) ([]match, error)) (string, error) {
	ms, err := list(prefix)
	if err != nil {
		return "", apiError("listing "+kind+"s", err)
	}
	for _, m := range ms {
		if m.ID == prefix {
			return m.ID, nil
		}
	}
	switch len(ms) {
	case 0:
		return "", fmt.Errorf("no %s with prefix or ID %q found", kind, prefix)
	case 1:
		return ms[0].ID, nil
	}
	return "", e.ambiguous(kind, prefix, header, ms)
}

func (e *env) ambiguous(kind, prefix string, header []string, ms []match) error {
	var b strings.Builder
	fmt.Fprintf(&b, "prefix %q matched %d %ss; use a longer prefix:\n\n", prefix, len(ms), kind)
	rows := [][]string{append([]string{"ID"}, header...)}
	for _, m := range ms {
		rows = append(rows, append([]string{m.ID}, m.Cols...))
	}
	writeColumns(&b, rows)
	return fmt.Errorf("%s", strings.TrimRight(b.String(), "\n"))
}

// prefixQuery is a list query restricted to IDs starting with prefix.
func (e *env) prefixQuery(prefix string) *api.QueryOptions {
	q := e.query()
	q.Prefix = prefix
	return q
}

func (e *env) resolveEval(prefix string) (string, error) {
	c, err := e.api()
	if err != nil {
		return "", err
	}
	return e.resolve("evaluation", prefix, []string{"Job ID", "Triggered By", "Status"}, func(p string) ([]match, error) {
		evals, _, err := c.Evaluations().List(e.prefixQuery(p))
		var ms []match
		for _, ev := range evals {
			ms = append(ms, match{ev.ID, []string{ev.JobID, ev.TriggeredBy, ev.Status}})
		}
		return ms, err
	})
}

func (e *env) resolveAlloc(prefix string) (string, error) {
	c, err := e.api()
	if err != nil {
		return "", err
	}
	return e.resolve("allocation", prefix, []string{"Job ID", "Task Group", "Desired", "Status"}, func(p string) ([]match, error) {
		allocs, _, err := c.Allocations().List(e.prefixQuery(p))
		var ms []match
		for _, a := range allocs {
			ms = append(ms, match{a.ID, []string{a.JobID, a.TaskGroup, a.DesiredStatus, a.ClientStatus}})
		}
		return ms, err
	})
}

func (e *env) resolveNode(prefix string) (string, error) {
	c, err := e.api()
	if err != nil {
		return "", err
	}
	return e.resolve("node", prefix, []string{"Name", "Status"}, func(p string) ([]match, error) {
		nodes, _, err := c.Nodes().List(e.prefixQuery(p))
		var ms []match
		for _, n := range nodes {
			ms = append(ms, match{n.ID, []string{n.Name, n.Status}})
		}
		return ms, err
	})
}

func (e *env) resolveDeployment(prefix string) (string, error) {
	c, err := e.api()
	if err != nil {
		return "", err
	}
	return e.resolve("deployment", prefix, []string{"Job ID", "Status"}, func(p string) ([]match, error) {
		ds, _, err := c.Deployments().List(e.prefixQuery(p))
		var ms []match
		for _, d := range ds {
			ms = append(ms, match{d.ID, []string{d.JobID, d.Status}})
		}
		return ms, err
	})
}

// resolveJob accepts an exact job ID or a unique prefix of one.
func (e *env) resolveJob(prefix string) (string, error) {
	c, err := e.api()
	if err != nil {
		return "", err
	}
	return e.resolve("job", prefix, []string{"Type", "Status"}, func(p string) ([]match, error) {
		jobs, _, err := c.Jobs().List(e.prefixQuery(p))
		var ms []match
		for _, j := range jobs {
			ms = append(ms, match{j.ID, []string{j.Type, j.Status}})
		}
		return ms, err
	})
}
