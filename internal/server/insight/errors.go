package insight

import (
	"errors"
	"fmt"
)

// InputError is a question the answers refuse (an unknown group, node or
// kind): the server answers it with 400, naming the field.
type InputError struct{ msg string }

func (e *InputError) Error() string { return e.msg }

func badInput(format string, args ...any) error {
	return &InputError{msg: fmt.Sprintf(format, args...)}
}

// IsInput reports whether err is an InputError.
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}
