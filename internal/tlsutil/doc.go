// Package tlsutil builds the TLS configurations of Nomad's tls { } agent
// block: HTTPS for the API (optionally verifying client certificates) and
// mutual TLS on the RPC port, where a client checks the server's certificate
// against the cluster CA and, with verify_server_hostname, that it names
// server.<region>.nomad.
//
// tls { http rpc ca_file cert_file key_file verify_server_hostname
// verify_https_client } as in Nomad. http = true serves the API over HTTPS
// (verify_https_client: client certificates signed by ca_file required);
// agents forwarding client requests to each other use https with their own
// certificate, and nodes advertise TLSEnabled so the official client reaches
// them over https. rpc = true makes the RPC port speak mutual TLS only: a
// connection's first byte 0x04 (structs.RPCTLSByte) starts the handshake,
// after which the protocol byte (RPC or raft) follows inside TLS; plaintext
// connections are refused, and every peer must present a certificate signed
// by the CA. Servers dial each other (forwarding, raft) over the same TLS
// (rpcwire.DialTLS, DialProtocol). RPC clients (the client agent, the ACL
// resolver) check the server's chain against the CA and, with
// verify_server_hostname, that it names server.<region>.nomad (ServerName).
// Certificates are read once at agent start. tlstest generates a CA and
// certificates in tests. Every CLI command takes Nomad's global TLS flags
// (package command).
package tlsutil
