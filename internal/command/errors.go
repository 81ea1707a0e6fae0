package command

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// apiError explains a failed API call: what was being done, and why, with
// the agent's plain-text message instead of the client's wrapper text.
// A 404 for an unknown endpoint means the agent predates the feature.
func apiError(doing string, err error) error {
	var ue api.UnexpectedResponseError
	if !errors.As(err, &ue) {
		return fmt.Errorf("%s: %w", doing, err)
	}
	body := strings.TrimSpace(ue.Body())
	if ue.StatusCode() == 404 && strings.HasPrefix(body, "no such endpoint") {
		return fmt.Errorf("%s: the agent does not support this yet (%s)", doing, body)
	}
	if body == "" {
		body = ue.StatusText()
	}
	return fmt.Errorf("%s: %s (HTTP %d)", doing, body, ue.StatusCode())
}

// errorf is fmt.Errorf, named for symmetry with apiError.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
