// Package coded is the server's errors that carry the HTTP status that
// describes them (package server's CodedError, NewCodedError, BadRequest
// and NotFound are these), so the server's role packages (auth, ...) can
// answer 400, 403 or 503 without importing package server.
package coded

import (
	"errors"
	"fmt"
	"net/http"
)

// Error is an error with the HTTP status code that describes it. It
// keeps its cause, so errors.Is / errors.As see through it (to a
// structs.ValidationErrors, or structs.ErrNodeNotFound).
type Error struct {
	Code int
	Msg  string
	Err  error // the cause; nil when there is none
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// New returns an error carrying an HTTP status code. Format it with %w to
// keep the cause.
func New(code int, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Msg: err.Error(), Err: errors.Unwrap(err)}
}

// BadRequest is a 400 error.
func BadRequest(format string, args ...any) error {
	return New(http.StatusBadRequest, format, args...)
}

// NotFound is a 404 error.
func NotFound(format string, args ...any) error {
	return New(http.StatusNotFound, format, args...)
}
