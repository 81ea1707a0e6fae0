package structs

import (
	"bytes"
	"reflect"
	"sync"

	"github.com/hashicorp/go-msgpack/v2/codec"
)

// MsgpackHandle decodes raft log entries (state snapshots decode with its
// settings and a read buffer: internal/state's restoreHandle), and
// encodes and decodes the client's local state. Decoded strings stay
// strings and untyped maps become map[string]any so a decoded Task.Config
// looks like the one that was encoded.
var MsgpackHandle = newMsgpackHandle(false)

// StructArrayHandle encodes raft log entries (Encode), RPCs and state
// snapshots (internal/state's Persist): each struct as an array of its
// fields in declaration order instead of a map keyed by their names.
// The names were two thirds of a plan entry's
// bytes and most of the time every server spent decoding it. Both
// handles decode both forms, so entries and calls encoded with names
// (by an earlier version) still decode.
//
// The price is that each field's position is now part of the format:
// fields of a struct that can be in an entry or a call are only ever
// appended, never reordered, removed or inserted (a field no longer used
// keeps its place). What was encoded before a field was appended decodes
// with that field zero, and what a newer version encodes (read by an
// older one, in a rolling upgrade) decodes without the fields it does
// not know. internal/fsm's TestEntryFields_OnlyEverAppended and
// internal/server's TestRPCFields_OnlyEverAppended hold every such
// struct to this (internal/testutil/wirefields). A Go struct inside an
// `any` field (task config, scaling policies) would also travel as an
// array and decode as one; those fields only ever hold what JSON and HCL
// decode into.
var StructArrayHandle = newMsgpackHandle(true)

func newMsgpackHandle(structsAsArrays bool) *codec.MsgpackHandle {
	h := &codec.MsgpackHandle{}
	h.RawToString = true
	h.WriteExt = true
	h.MapType = reflect.TypeOf(map[string]any(nil))
	h.StructToArray = structsAsArrays
	return h
}

// encodeState is a reusable encoder and the buffer it writes to.
type encodeState struct {
	buf bytes.Buffer
	enc *codec.Encoder
}

// encoders reuses encoders and their buffers across Encode calls: every
// raft entry is encoded once, and a fresh encoder and a buffer grown by
// doubling cost several times the entry's size in garbage.
var encoders = sync.Pool{New: func() any {
	e := &encodeState{}
	e.enc = codec.NewEncoder(&e.buf, StructArrayHandle)
	return e
}}

// maxPooledEncodeBuffer keeps a rare huge entry (a big job) from pinning
// its buffer in the pool.
const maxPooledEncodeBuffer = 1 << 20

// Encode prefixes the msgpack encoding of msg (structs as arrays, see
// StructArrayHandle) with its message type byte.
// The result is the caller's own (raft keeps it), allocated once at its
// exact size.
func Encode(t MessageType, msg any) ([]byte, error) {
	e := encoders.Get().(*encodeState)
	e.buf.Reset()
	e.buf.WriteByte(byte(t))
	e.enc.Reset(&e.buf)
	err := e.enc.Encode(msg)
	out := bytes.Clone(e.buf.Bytes())
	if e.buf.Cap() <= maxPooledEncodeBuffer {
		encoders.Put(e)
	}
	return out, err
}

// decoders reuses decoders across Decode calls (every server decodes
// every raft entry).
var decoders = sync.Pool{New: func() any { return codec.NewDecoderBytes(nil, MsgpackHandle) }}

// Decode decodes a msgpack payload (without the type byte) into out. The
// decoder reads buf in place, and copies what it keeps (strings, bytes).
func Decode(buf []byte, out any) error {
	dec := decoders.Get().(*codec.Decoder)
	dec.ResetBytes(buf)
	err := dec.Decode(out)
	dec.ResetBytes(nil) // do not pin buf in the pool
	decoders.Put(dec)
	return err
}

// MessageType is the first byte of every raft log entry.
type MessageType uint8

// Raft log entry types. Values are persisted: append only, never renumber.
const (
	JobRegisterRequestType           MessageType = 1
	JobDeregisterRequestType         MessageType = 2
	EvalUpdateRequestType            MessageType = 3
	EvalDeleteRequestType            MessageType = 4
	NodeRegisterRequestType          MessageType = 5
	NodeDeregisterRequestType        MessageType = 6
	NodeUpdateStatusRequestType      MessageType = 7
	NodeUpdateDrainRequestType       MessageType = 8
	NodeUpdateEligibilityType        MessageType = 9
	AllocUpdateRequestType           MessageType = 10
	AllocClientUpdateRequestType     MessageType = 11
	ApplyPlanResultsRequestType      MessageType = 12
	DeploymentStatusUpdateType       MessageType = 13
	SchedulerConfigRequestType       MessageType = 14
	JobBatchDeregisterRequestType    MessageType = 15
	AllocUpdateDesiredTransitionType MessageType = 16
	DeploymentPromoteRequestType     MessageType = 17
	// Manual alloc health (`update { health_check = "manual" }`); 18 is
	// Nomad's number for the same entry.
	DeploymentAllocHealthRequestType MessageType = 18

	// Job history (job_history.go).
	JobStabilityRequestType  MessageType = 80
	JobVersionTagRequestType MessageType = 81

	// Node pools (node_pool.go).
	NodePoolUpsertRequestType MessageType = 82
	NodePoolDeleteRequestType MessageType = 83
	// Namespaces (namespace.go).
	NamespaceUpsertRequestType MessageType = 50
	NamespaceDeleteRequestType MessageType = 51
	// Autopilot configuration (cluster.go).
	AutopilotConfigRequestType MessageType = 92
)

// ACL entry types. Numbered apart from the others so branches adding
// entry types in parallel do not collide.
const (
	ACLPolicyUpsertRequestType   MessageType = 40
	ACLPolicyDeleteRequestType   MessageType = 41
	ACLTokenUpsertRequestType    MessageType = 42
	ACLTokenDeleteRequestType    MessageType = 43
	ACLTokenBootstrapRequestType MessageType = 44
	// ACL roles (acl_role.go); 94-95 were set aside for them.
	ACLRoleUpsertRequestType MessageType = 94
	ACLRoleDeleteRequestType MessageType = 95
	// Auth methods, binding rules and one-time tokens
	// (acl_auth_method.go): 200-205, clear of every other range.
	ACLAuthMethodUpsertRequestType   MessageType = 200
	ACLAuthMethodDeleteRequestType   MessageType = 201
	ACLBindingRuleUpsertRequestType  MessageType = 202
	ACLBindingRuleDeleteRequestType  MessageType = 203
	OneTimeTokenUpsertRequestType    MessageType = 204
	OneTimeTokenDeleteRequestType    MessageType = 205
	OIDCAuthRequestUpsertRequestType MessageType = 206
	OIDCAuthRequestDeleteRequestType MessageType = 207
)

// Native service discovery, variables and the keyring (60-79 are this
// feature's range).
const (
	ServiceRegistrationUpsertRequestType     MessageType = 60
	ServiceRegistrationDeleteByIDRequestType MessageType = 61
	VariableApplyRequestType                 MessageType = 62
	RootKeyUpsertRequestType                 MessageType = 63
	// A full key rotation's steps (98-99 were set aside for it).
	RootKeyStateRequestType   MessageType = 98
	VariablesRekeyRequestType MessageType = 99
)

// Keyring removal (`operator root keyring remove`).
const RootKeyDeleteRequestType MessageType = 96
