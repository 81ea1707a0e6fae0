package structs

import (
	"errors"
	"strings"
)

// ErrNodeNotFound is the one sentinel for "the servers do not know this
// node" (never registered, or garbage collected): a client that gets it
// registers again. Server endpoints wrap it; after an RPC hop the client
// recognises it with errors.Is, by its code (see RPCError), not its text.
var ErrNodeNotFound = errors.New("node not found")

// ErrNodeRegistrationDenied is the sentinel of a Node.Register refused for
// its node registration token (none, or one the servers do not accept): a
// client that gets it tells its operator which setting to fix.
var ErrNodeRegistrationDenied = errors.New("node registration denied")

// RPCErrorCode classifies an error for the other side of the internal RPC,
// where net/rpc carries only the error's text.
type RPCErrorCode string

// The codes a client acts on.
const (
	RPCErrNodeNotFound           RPCErrorCode = "node-not-found"
	RPCErrNodeRegistrationDenied RPCErrorCode = "node-registration-denied"
)

// rpcCodes maps each code to the sentinel it stands for.
var rpcCodes = map[RPCErrorCode]error{
	RPCErrNodeNotFound:           ErrNodeNotFound,
	RPCErrNodeRegistrationDenied: ErrNodeRegistrationDenied,
}

// rpcErrorPrefix opens the wire form of a coded error: "rpc-error[CODE]: msg".
const rpcErrorPrefix = "rpc-error["

// RPCError is an error that crossed the internal RPC with its code. It
// matches its code's sentinel under errors.Is.
type RPCError struct {
	Code RPCErrorCode
	Msg  string
}

func (e *RPCError) Error() string { return rpcErrorPrefix + string(e.Code) + "]: " + e.Msg }

// Unwrap returns the sentinel the code stands for.
func (e *RPCError) Unwrap() error { return rpcCodes[e.Code] }

// EncodeRPCError gives err the code of the first sentinel it wraps, so the
// code survives net/rpc (which sends only Error()). Other errors pass
// unchanged.
func EncodeRPCError(err error) error {
	if err == nil {
		return nil
	}
	for code, sentinel := range rpcCodes {
		if errors.Is(err, sentinel) {
			return &RPCError{Code: code, Msg: err.Error()}
		}
	}
	return err
}

// DecodeRPCError turns the text of a server's error back into an
// *RPCError when it carries a code; ok is false otherwise.
func DecodeRPCError(text string) (err *RPCError, ok bool) {
	rest, found := strings.CutPrefix(text, rpcErrorPrefix)
	if !found {
		return nil, false
	}
	code, msg, found := strings.Cut(rest, "]: ")
	if !found {
		return nil, false
	}
	if _, known := rpcCodes[RPCErrorCode(code)]; !known {
		return nil, false
	}
	return &RPCError{Code: RPCErrorCode(code), Msg: msg}, true
}
