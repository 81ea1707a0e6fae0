package fsm

import "errors"

// ErrCASConflict is returned by a compare-and-set write whose expected index
// no longer matches.
var ErrCASConflict = errors.New("compare-and-set conflict: the stored index has changed")
