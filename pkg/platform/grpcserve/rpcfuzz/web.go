package rpcfuzz

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
)

// Framing is how a request goes over HTTP: besides gRPC itself, the
// browsers' Connect and gRPC-Web (the same server serves all three).
type Framing string

// The HTTP framings Check sends each input over, when the Target has a
// BaseURL.
const (
	Connect Framing = "connect"
	GRPCWeb Framing = "grpc-web"
)

// CallHTTP sends payload to the method named name over framing (HTTP/1.1,
// tg.BaseURL) and returns the call's status: OK when the reply (a
// stream's first message) is a message, the refusal otherwise. Client
// streaming methods are not sent (neither framing carries them over
// HTTP/1.1): ok is false.
func (tg *Target) CallHTTP(ctx context.Context, framing Framing, name string, payload []byte) (m protoreflect.MethodDescriptor, st *status.Status, ok bool, err error) {
	m = tg.method(name)
	if m.IsStreamingClient() {
		return m, nil, false, nil
	}
	timeout := tg.timeout(m)
	ctx, cancel := context.WithTimeout(tg.Caller(ctx), timeout)
	defer cancel()
	body, ct := payload, "application/proto"
	stream := m.IsStreamingServer()
	if framing == GRPCWeb || stream {
		body = append([]byte{0, 0, 0, 0, 0}, payload...)
		binary.BigEndian.PutUint32(body[1:5], uint32(len(payload)))
		ct = "application/connect+proto"
		if framing == GRPCWeb {
			ct = "application/grpc-web+proto"
		}
	}
	url := fmt.Sprintf("%s/%s/%s", strings.TrimSuffix(tg.BaseURL, "/"), tg.Service.FullName(), m.Name())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return m, nil, true, err
	}
	req.Header.Set("Content-Type", ct)
	if framing == Connect {
		req.Header.Set("Connect-Protocol-Version", "1")
	} else {
		req.Header.Set("X-Grpc-Web", "1")
	}
	md, _ := metadata.FromOutgoingContext(ctx)
	for k, vs := range md {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	client := tg.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return m, status.New(codes.DeadlineExceeded, "no answer in time"), true, nil
		}
		return m, nil, true, err
	}
	defer resp.Body.Close()
	st, err = WebStatus(resp, framing, stream)
	if err != nil && ctx.Err() != nil {
		return m, status.New(codes.DeadlineExceeded, "no answer in time"), true, nil
	}
	return m, st, true, err
}

// WebStatus reads a Connect or gRPC-Web answer (stream: a server
// streaming call's) up to its first message or its end, and returns its
// status with its details: OK when a message came first.
func WebStatus(resp *http.Response, framing Framing, stream bool) (*status.Status, error) {
	if framing == GRPCWeb {
		if c := resp.Header.Get("Grpc-Status"); c != "" { // trailers-only
			return grpcWebStatus(textproto.MIMEHeader(resp.Header))
		}
		flags, msg, err := readFrame(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("grpc-web answer %d: %w", resp.StatusCode, err)
		}
		if flags&0x80 == 0 {
			return status.New(codes.OK, ""), nil
		}
		h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(msg, "\r\n"...)))).ReadMIMEHeader()
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("grpc-web trailers %q: %w", msg, err)
		}
		return grpcWebStatus(h)
	}
	if !stream {
		if resp.StatusCode == http.StatusOK {
			return status.New(codes.OK, ""), nil
		}
		b, _ := io.ReadAll(resp.Body)
		return connectStatus(b)
	}
	flags, msg, err := readFrame(resp.Body)
	if err != nil {
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			return connectStatus(b)
		}
		return nil, fmt.Errorf("connect stream answer %d: %w", resp.StatusCode, err)
	}
	if flags&2 == 0 {
		return status.New(codes.OK, ""), nil
	}
	var end struct {
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(msg, &end); err != nil {
		return nil, fmt.Errorf("connect end-of-stream %q: %w", msg, err)
	}
	if len(end.Error) == 0 {
		return status.New(codes.OK, ""), nil
	}
	return connectStatus(end.Error)
}

func readFrame(r io.Reader) (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	msg := make([]byte, binary.BigEndian.Uint32(hdr[1:]))
	_, err := io.ReadFull(r, msg)
	return hdr[0], msg, err
}

// grpcWebStatus is the status in gRPC-Web trailers (or trailers-only
// headers): grpc-status, grpc-message, grpc-status-details-bin.
func grpcWebStatus(h textproto.MIMEHeader) (*status.Status, error) {
	code, err := strconv.Atoi(strings.TrimSpace(h.Get("Grpc-Status")))
	if err != nil {
		return nil, fmt.Errorf("grpc-status %q", h.Get("Grpc-Status"))
	}
	if bin := h.Get("Grpc-Status-Details-Bin"); bin != "" {
		b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(bin, "="))
		if err != nil {
			return nil, fmt.Errorf("grpc-status-details-bin: %w", err)
		}
		var p spb.Status
		if err := proto.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("grpc-status-details-bin: %w", err)
		}
		return status.FromProto(&p), nil
	}
	return status.New(codes.Code(code), h.Get("Grpc-Message")), nil
}

// connectCodes are the Connect protocol's code names.
var connectCodes = map[string]codes.Code{
	"canceled": codes.Canceled, "unknown": codes.Unknown, "invalid_argument": codes.InvalidArgument,
	"deadline_exceeded": codes.DeadlineExceeded, "not_found": codes.NotFound, "already_exists": codes.AlreadyExists,
	"permission_denied": codes.PermissionDenied, "resource_exhausted": codes.ResourceExhausted,
	"failed_precondition": codes.FailedPrecondition, "aborted": codes.Aborted, "out_of_range": codes.OutOfRange,
	"unimplemented": codes.Unimplemented, "internal": codes.Internal, "unavailable": codes.Unavailable,
	"data_loss": codes.DataLoss, "unauthenticated": codes.Unauthenticated,
}

// connectStatus is the status of a Connect error (JSON: code, message,
// details of type and base64 value).
func connectStatus(b []byte) (*status.Status, error) {
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Details []struct {
			Type  string `json:"type"`
			Value string `json:"value"`
		} `json:"details"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("connect error %q: %w", b, err)
	}
	code, ok := connectCodes[e.Code]
	if !ok {
		return nil, fmt.Errorf("connect error code %q", e.Code)
	}
	p := &spb.Status{Code: int32(code), Message: e.Message}
	for _, d := range e.Details {
		v, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(d.Value, "="))
		if err != nil {
			return nil, fmt.Errorf("connect error detail %s: %w", d.Type, err)
		}
		p.Details = append(p.Details, &anypb.Any{TypeUrl: "type.googleapis.com/" + d.Type, Value: v})
	}
	return status.FromProto(p), nil
}
