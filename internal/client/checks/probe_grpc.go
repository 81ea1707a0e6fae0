package checks

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"

	"google.golang.org/protobuf/encoding/protowire"
)

// grpc.health.v1 speaks protobuf over HTTP/2; one unary call is small
// enough to make with net/http's own HTTP/2 (cleartext h2c or TLS) and
// protowire, so grpc checks cost the binary no gRPC library.
const grpcHealthPath = "/grpc.health.v1.Health/Check"

// grpcServing is HealthCheckResponse.ServingStatus SERVING; the others
// (UNKNOWN 0, NOT_SERVING 2, SERVICE_UNKNOWN 3) fail the check.
const grpcServing = 1

var grpcStatusNames = map[uint64]string{0: "UNKNOWN", 1: "SERVING", 2: "NOT_SERVING", 3: "SERVICE_UNKNOWN"}

// probeGRPC asks the target's grpc.health.v1 Health service about
// c.GRPCService and passes when it answers SERVING.
func probeGRPC(ctx context.Context, c Check) outcome {
	hc := grpcClient(c)
	defer hc.CloseIdleConnections()
	scheme := "http"
	if c.GRPCUseTLS {
		scheme = "https"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, scheme+"://"+c.Address+grpcHealthPath,
		bytes.NewReader(grpcFrame(c.GRPCService)))
	if err != nil {
		return outcome{output: err.Error()}
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("TE", "trailers")
	resp, err := hc.Do(req)
	if err != nil {
		return outcome{output: fmt.Sprintf("gRPC %s: %s", c.Address, describeErr(err))}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return outcome{output: fmt.Sprintf("gRPC %s: %s", c.Address, describeErr(err))}
	}
	if st := grpcStatus(resp); st != "0" {
		return outcome{output: fmt.Sprintf("gRPC %s: status %s %s", c.Address, st, grpcMessage(resp))}
	}
	serving, ok := parseHealthResponse(body)
	if !ok {
		return outcome{output: fmt.Sprintf("gRPC %s: malformed health response", c.Address)}
	}
	name := grpcStatusNames[serving]
	if name == "" {
		name = fmt.Sprint(serving)
	}
	return outcome{passing: serving == grpcServing, output: fmt.Sprintf("gRPC %s service %q: %s", c.Address, c.GRPCService, name)}
}

func grpcClient(c Check) *http.Client {
	var p http.Protocols
	tr := &http.Transport{Proxy: nil}
	if c.GRPCUseTLS {
		p.SetHTTP2(true)
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: c.TLSSkipVerify, ServerName: c.TLSServerName} //nolint:gosec // the job asked for it
	} else {
		p.SetUnencryptedHTTP2(true)
	}
	tr.Protocols = &p
	return &http.Client{Transport: tr}
}

// grpcFrame is one length-prefixed, uncompressed gRPC message holding
// HealthCheckRequest{service = 1}.
func grpcFrame(service string) []byte {
	var msg []byte
	if service != "" {
		msg = protowire.AppendTag(msg, 1, protowire.BytesType)
		msg = protowire.AppendString(msg, service)
	}
	out := make([]byte, 5, 5+len(msg))
	binary.BigEndian.PutUint32(out[1:], uint32(len(msg)))
	return append(out, msg...)
}

// grpcStatus reads grpc-status from the trailers, or from the headers of
// a trailers-only answer; "" (no status at all) is not "0".
func grpcStatus(resp *http.Response) string {
	if s := resp.Trailer.Get("Grpc-Status"); s != "" {
		return s
	}
	return resp.Header.Get("Grpc-Status")
}

func grpcMessage(resp *http.Response) string {
	if s := resp.Trailer.Get("Grpc-Message"); s != "" {
		return s
	}
	return resp.Header.Get("Grpc-Message")
}

// parseHealthResponse decodes one framed HealthCheckResponse and returns
// its status field (1); a missing field is proto3's default, UNKNOWN.
func parseHealthResponse(body []byte) (uint64, bool) {
	if len(body) < 5 || body[0] != 0 {
		return 0, false // too short, or compressed (never asked for)
	}
	n := binary.BigEndian.Uint32(body[1:5])
	if uint64(len(body)-5) < uint64(n) {
		return 0, false
	}
	msg := body[5 : 5+n]
	var status uint64
	for len(msg) > 0 {
		num, typ, tl := protowire.ConsumeTag(msg)
		if tl < 0 {
			return 0, false
		}
		msg = msg[tl:]
		if num == 1 && typ == protowire.VarintType {
			v, vl := protowire.ConsumeVarint(msg)
			if vl < 0 {
				return 0, false
			}
			status, msg = v, msg[vl:]
			continue
		}
		fl := protowire.ConsumeFieldValue(num, typ, msg)
		if fl < 0 {
			return 0, false
		}
		msg = msg[fl:]
	}
	return status, true
}
