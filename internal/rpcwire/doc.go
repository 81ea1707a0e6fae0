// Package rpcwire is the internal RPC's wire, shared by every caller (the
// client agent's rpcclient, and servers forwarding to the leader or asking
// each other for raft stats): a TCP connection that starts with
// structs.RPCMultiplexByte, a yamux session over it, and net/rpc calls
// encoded with msgpack on its streams: one call at a time per stream, and a
// Pool reuses the stream of a finished call for the next. Errors keep their
// HTTP status across the wire (see EncodeError / DecodeError).
//
// # Protocol bytes
//
// Clients and servers connect to a server's rpc address (port 4647). The
// first byte of a connection selects the protocol: 0x01
// (structs.RPCMultiplexByte) is a yamux session (hashicorp/yamux) whose
// streams carry net/rpc calls encoded with msgpack, one at a time
// (hashicorp/net-rpc-msgpackrpc, structs.StructArrayHandle); 0x02
// (structs.RPCRaftByte) is a raft connection between servers; 0x04
// (structs.RPCTLSByte) starts mutual TLS, inside which one of those bytes
// follows (DialTLS, DialProtocol). One TCP connection per client; calls run
// concurrently on their own streams, and a context cancels a call by closing
// its stream.
//
// # The pool
//
// Servers calling each other (Pool: forwarding, a follower's workers) keep
// one session per server (dropped when broken) and the stream of a finished
// call, with its codec, for the next call to that server: opening a stream
// per call cost a window-update frame each way, a goroutine on the server
// and two buffered codecs (a small call: 24.8 KB and 83 allocations, about
// 140 µs over loopback; reused, 0.7 KB, 19 allocations, about 80 µs; go test
// -bench Pool -benchmem ./internal/rpcwire). Only a stream whose call
// succeeded and was not canceled is reused; after an error reply the server
// may have stopped reading it. A session is dialed outside the pool's lock
// (a server whose packets are dropped delays only calls to it), and one
// that can no longer open a stream (its server went away) is dropped and
// dialed again within the call, since the request never left.
//
// # HTTP streams
//
// A stream whose first byte is structs.RPCStreamHTTPByte carries HTTP/1.1
// instead of net/rpc calls (httpstream.go): a client-only agent forwards
// the cluster API to its server over the session it already holds
// (OpenHTTPStream), and the server answers with its agent's HTTP handler
// (ServeHTTPStream), which checks the caller's token as on its own
// listener. Keep-alive reuses a stream for the next request.
//
// # Errors
//
// An error crosses the wire as text with its HTTP status and the sentinel
// codes clients act on (Encode / DecodeError, structs.EncodeRPCError): a 404
// on the leader is a 404 on the follower that forwarded.
package rpcwire
