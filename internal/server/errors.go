package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/drover-project/drover/internal/rpcwire"
)

var (
	// ErrNoLeader means the cluster has no leader to accept writes.
	ErrNoLeader = errors.New("no cluster leader")
	// ErrShutdown means the server is shutting down.
	ErrShutdown = errors.New("server is shutting down")
)

// CodedError is an error with the HTTP status code that describes it.
type CodedError struct {
	Code int
	Msg  string
}

func (e *CodedError) Error() string { return e.Msg }

// NewCodedError returns an error carrying an HTTP status code.
func NewCodedError(code int, format string, args ...any) error {
	return &CodedError{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// BadRequest is a 400 error.
func BadRequest(format string, args ...any) error {
	return NewCodedError(http.StatusBadRequest, format, args...)
}

// NotFound is a 404 error.
func NotFound(format string, args ...any) error {
	return NewCodedError(http.StatusNotFound, format, args...)
}

// ErrorCode returns the HTTP status for err: its own code, 400 for
// validation failures, 503 without a leader, else 500.
func ErrorCode(err error) int {
	var ce *CodedError
	var remote *rpcwire.CodedError
	switch {
	case errors.As(err, &ce):
		return ce.Code
	case errors.As(err, &remote):
		// An error another server answered (a forwarded request).
		return remote.Code
	case errors.Is(err, ErrNoLeader):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
