package server

import (
	"errors"
	"net/http"
	"syscall"

	"github.com/drover-project/drover/internal/rpcwire"
	"github.com/drover-project/drover/internal/server/coded"
	"github.com/drover-project/drover/internal/structs"
)

var (
	// ErrNoLeader means the cluster has no leader to accept writes.
	ErrNoLeader = errors.New("no cluster leader")
	// ErrShutdown means the server is shutting down.
	ErrShutdown = errors.New("server is shutting down")
)

// CodedError is an error with the HTTP status code that describes it
// (coded.Error, shared with the server's role packages). It keeps its
// cause, so errors.Is / errors.As see through it (to a
// structs.ValidationErrors, or structs.ErrNodeNotFound).
type CodedError = coded.Error

// NewCodedError returns an error carrying an HTTP status code. Format it
// with %w to keep the cause.
func NewCodedError(code int, format string, args ...any) error {
	return coded.New(code, format, args...)
}

// BadRequest is a 400 error.
func BadRequest(format string, args ...any) error { return coded.BadRequest(format, args...) }

// NotFound is a 404 error.
func NotFound(format string, args ...any) error { return coded.NotFound(format, args...) }

// DiskFullMessage is all a caller learns of a write that failed because a
// server's disk is full: the cause names the server's files.
const DiskFullMessage = "the server's disk is full: the write was not applied; retry once space is freed"

// IsDiskFull reports whether err comes from a full disk (ENOSPC).
func IsDiskFull(err error) bool { return errors.Is(err, syscall.ENOSPC) }

// DiskFull returns a 503 with DiskFullMessage for an error from a full
// disk, keeping err as its cause (errors.Is still sees ENOSPC); other
// errors are returned unchanged.
func DiskFull(err error) error {
	if !IsDiskFull(err) {
		return err
	}
	return &CodedError{Code: http.StatusServiceUnavailable, Msg: DiskFullMessage, Err: err}
}

// ErrorCode returns the HTTP status for err: its own code, 400 for
// validation failures, 404 for an unknown node, 503 without a leader or
// on a full disk, else 500.
func ErrorCode(err error) int {
	var ce *CodedError
	var verrs structs.ValidationErrors
	var remote *rpcwire.CodedError
	switch {
	case errors.As(err, &ce):
		return ce.Code
	case errors.As(err, &remote):
		// An error another server answered (a forwarded request).
		return remote.Code
	case errors.As(err, &verrs):
		return http.StatusBadRequest
	case errors.Is(err, structs.ErrNodeNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrNoLeader), IsDiskFull(err):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
