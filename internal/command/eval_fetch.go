package command

import (
	"net/url"

	"github.com/hashicorp/nomad/api"
)

// evalView is an evaluation as Drover serves it: Nomad's fields plus the
// Drover-only Timeline, which the official client's type drops, so evals
// are read through the raw client.
type evalView struct {
	api.Evaluation
	Timeline []*timelineStep
}

// timelineStep is one lifecycle step: a stored status or a quasi-status
// (delayed, scheduling, applying, deleted).
type timelineStep struct {
	Status string
	Time   int64 // unix nanoseconds
	Worker string
	Note   string
}

// fetchEval reads one eval by full ID, with its related evals if asked.
func (e *env) fetchEval(id string, related bool) (*evalView, error) {
	cl, err := e.api()
	if err != nil {
		return nil, err
	}
	q := e.query()
	if related {
		q.Params = map[string]string{"related": "true"}
	}
	var ev evalView
	if _, err := cl.Raw().Query("/v1/evaluation/"+url.PathEscape(id), &ev, q); err != nil {
		return nil, apiError("reading evaluation "+id, err)
	}
	return &ev, nil
}
