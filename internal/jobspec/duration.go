package jobspec

import (
	"fmt"
	"math"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// toDuration accepts Nomad's duration forms: a Go duration string ("30s",
// "1h30m") or a whole number of nanoseconds, which older job files and
// the JSON API use.
func toDuration(v cty.Value) (time.Duration, error) {
	switch v.Type() {
	case cty.String:
		d, err := time.ParseDuration(v.AsString())
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q (use forms like \"30s\" or \"1h30m\")", v.AsString())
		}
		return d, nil
	case cty.Number:
		n, err := whole(math.MinInt64, math.MaxInt64)(v)
		return time.Duration(n), err
	default:
		return 0, fmt.Errorf("a duration string is required, got %s", v.Type().FriendlyName())
	}
}
