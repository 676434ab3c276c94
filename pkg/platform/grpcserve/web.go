package grpcserve

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
	connectcors "connectrpc.com/cors"
	"connectrpc.com/vanguard"
	"connectrpc.com/vanguard/vanguardgrpc"
	"github.com/rs/cors"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"tabuleiro.dev/pkg/platform/affinity"
	"tabuleiro.dev/pkg/platform/reason"
)

// MaxWebMessageBytes bounds one message that the browser protocols' transcoder
// buffers (a request or a response of gRPC-Web or Connect); a larger one
// fails with RESOURCE_EXHAUSTED. It matches grpc-go's default receive limit.
const MaxWebMessageBytes = 4 << 20

// WebHandler returns the HTTP handler of srv's browser side: every service
// registered on srv is served over the Connect protocol (unary and server
// streaming, JSON or binary), over gRPC-Web, and over gRPC itself, by a
// vanguard transcoder in front of srv. Every call goes through srv's own
// interceptors (logging, recovery, authentication) and stats handler
// (OpenTelemetry), exactly as a call over native gRPC does, so the same
// status codes, tokens, limits and telemetry apply on every protocol.
//
// A request for any other path goes to extra (static files, for example);
// nil answers 404. origins are the origins allowed to call cross-origin
// (CORS), e.g. "https://play.example.com"; "*" allows any origin. With no
// origins, no CORS header is sent, so browsers allow same-origin calls
// only. Call WebHandler after every service is registered on srv.
func WebHandler(srv *grpc.Server, extra http.Handler, origins []string) (http.Handler, error) {
	topts := []vanguard.TranscoderOption{
		vanguard.WithDefaultServiceOptions(vanguard.WithMaxMessageBufferBytes(MaxWebMessageBytes)),
		vanguard.WithCodec(func(res vanguard.TypeResolver) vanguard.Codec { return newJSONCodec(res) }),
		vanguard.WithCompression("gzip", func() connect.Compressor { return gzip.NewWriter(io.Discard) },
			func() connect.Decompressor { return &limitedGzip{} }),
	}
	if extra != nil {
		topts = append(topts, vanguard.WithUnknownHandler(extra))
	}
	t, err := vanguardgrpc.NewTranscoder(srv, topts...)
	if err != nil {
		return nil, fmt.Errorf("browser protocols: %w", err)
	}
	return WithCORS(rejectMalformed(t), origins), nil
}

// emptyStreamMessage is the refusal of a call without its request message.
const emptyStreamMessage = "the request is empty: this call takes exactly one request message, and the client ended its side without sending one"

// rejectMalformed answers INVALID_ARGUMENT, before the transcoder sees it,
// to a browser-protocol call of a unary or server-streaming method whose
// request is malformed, where vanguard and grpc-go would answer INTERNAL or
// UNKNOWN (and the server log the caller's mistake as its own):
//   - gRPC-Web or Connect streaming framing: no message at all, more than
//     one, a frame cut short, a message flagged compressed with no
//     encoding named, or a flag that is not a message's;
//   - Connect unary: an empty JSON body, or a body said to be gzip that
//     is not.
//
// The request of these methods is one message, which the transcoder
// buffers anyway: it is read here (up to MaxWebMessageBytes and a frame
// header; a larger one is left to the transcoder's own limit) and passed
// on unchanged. Client-streaming calls (Play) are passed on as they come.
func rejectMalformed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct := r.Header.Get("Content-Type")
		grpcWeb := strings.HasPrefix(ct, "application/grpc-web")
		connectStream := strings.HasPrefix(ct, "application/connect+")
		mt, _, _ := mime.ParseMediaType(ct)
		connectUnary := !grpcWeb && !connectStream && r.Header.Get("Connect-Protocol-Version") != "" ||
			mt == "application/json" || mt == "application/proto"
		if r.Method != http.MethodPost || !grpcWeb && !connectStream && !connectUnary || !oneRequestMethod(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		if connectUnary && r.Header.Get("Connect-Protocol-Version") == "" {
			// The Connect protocol makes the header optional (plain curl
			// sends none); without it the transcoder would take the call
			// for a REST one, which no method here maps, and hand it to
			// the web client's files.
			r.Header.Set("Connect-Protocol-Version", "1")
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxWebMessageBytes+6))
		if err != nil {
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		_ = r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		if len(body) <= MaxWebMessageBytes+5 {
			var fault string
			switch {
			case grpcWeb:
				fault = framingFault(body, r.Header.Get("Grpc-Encoding"))
			case connectStream:
				fault = framingFault(body, r.Header.Get("Connect-Content-Encoding"))
			default:
				fault = unaryFault(body, ct, r.Header.Get("Content-Encoding"))
			}
			if fault != "" {
				refuseInvalid(w, ct, grpcWeb, connectStream, fault)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// framingFault checks an enveloped request body (gRPC-Web, Connect
// streaming): exactly one message frame, then for gRPC-Web nothing, for
// Connect nothing either (a client's end-of-stream frame carries nothing
// for these methods). encoding is the message encoding named, if any.
func framingFault(body []byte, encoding string) string {
	if len(body) == 0 {
		return emptyStreamMessage
	}
	if len(body) < 5 {
		return "the request's first frame is cut short: a frame has a 5-byte header (flags, length)"
	}
	flags, n := body[0], binary.BigEndian.Uint32(body[1:5])
	if flags&^1 != 0 {
		return fmt.Sprintf("the request's first frame has flags %#x: a request message frame has only the compressed flag (0x01) or none", flags)
	}
	if uint64(len(body)-5) < uint64(n) {
		return fmt.Sprintf("the request message is cut short: its frame says %d bytes, %d came", n, len(body)-5)
	}
	if flags&1 != 0 && (encoding == "" || encoding == "identity") {
		return "the request message is flagged compressed but the request names no encoding (grpc-encoding or connect-content-encoding)"
	}
	if rest := body[5+n:]; len(rest) > 0 {
		return "this call takes exactly one request message, and the client sent more"
	}
	return ""
}

// unaryFault checks a Connect unary request body.
func unaryFault(body []byte, contentType, encoding string) string {
	switch encoding {
	case "", "identity":
	case "gzip":
		if len(body) < 2 || body[0] != 0x1f || body[1] != 0x8b {
			return "the request body is said to be gzip (Content-Encoding) but is not gzip data"
		}
		return ""
	default:
		return "" // the transcoder refuses an encoding it does not know
	}
	if len(body) == 0 && strings.HasPrefix(contentType, "application/json") {
		return "the request body is empty: a JSON request message is at least {}"
	}
	return ""
}

// refuseInvalid writes an INVALID_ARGUMENT answer in the request's protocol.
func refuseInvalid(w http.ResponseWriter, ct string, grpcWeb, connectStream bool, why string) {
	// The status as the services' own refusals carry it: INVALID_ARGUMENT
	// with an INVALID_REQUEST ErrorInfo (clients show refusals by reason).
	st := reason.New(codes.InvalidArgument, reason.InvalidRequest, why, nil).Proto()
	switch {
	case grpcWeb:
		// A trailers-only response: the status in the headers.
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Grpc-Status", strconv.Itoa(int(codes.InvalidArgument)))
		w.Header().Set("Grpc-Message", grpcMessageEncode(why))
		if b, err := proto.Marshal(st); err == nil {
			w.Header().Set("Grpc-Status-Details-Bin", base64.RawStdEncoding.EncodeToString(b))
		}
		w.WriteHeader(http.StatusOK)
	case connectStream:
		// The end-of-stream message (flag 2), JSON whatever the codec.
		end, _ := json.Marshal(map[string]any{"error": connectError(st)})
		frame := make([]byte, 5, 5+len(end))
		frame[0] = 2
		binary.BigEndian.PutUint32(frame[1:], uint32(len(end)))
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(append(frame, end...))
	default:
		b, _ := json.Marshal(connectError(st))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(b)
	}
}

// connectError is st in the Connect protocol's JSON error form: code,
// message and details (each detail's type name and its bytes in base64).
func connectError(st *spb.Status) map[string]any {
	details := make([]map[string]string, 0, len(st.GetDetails()))
	for _, d := range st.GetDetails() {
		details = append(details, map[string]string{
			"type":  strings.TrimPrefix(d.GetTypeUrl(), "type.googleapis.com/"),
			"value": base64.RawStdEncoding.EncodeToString(d.GetValue()),
		})
	}
	return map[string]any{"code": "invalid_argument", "message": st.GetMessage(), "details": details}
}

// grpcMessageEncode percent-encodes a grpc-message value (the gRPC
// spec's encoding: printable ASCII but '%' as is).
func grpcMessageEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c <= 0x7e && c != '%' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// oneRequestMethod reports whether path (/package.Service/Method) names a
// registered unary or server-streaming method: one that takes exactly one
// request message.
func oneRequestMethod(path string) bool {
	svc, method, ok := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if !ok {
		return false
	}
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(svc + "." + method))
	if err != nil {
		return false
	}
	md, ok := d.(protoreflect.MethodDescriptor)
	return ok && !md.IsStreamingClient()
}

// limitedGzip is the browser protocols' gzip decompressor: a message
// that inflates past MaxWebMessageBytes fails with RESOURCE_EXHAUSTED as
// soon as it does. Vanguard's own inflates the whole message into memory
// before any limit applies: a 200 KB body took 700 MB.
type limitedGzip struct {
	gzip.Reader
	n int64
}

func (z *limitedGzip) Reset(r io.Reader) error {
	z.n = 0
	return z.Reader.Reset(r)
}

func (z *limitedGzip) Read(p []byte) (int, error) {
	n, err := z.Reader.Read(p)
	if z.n += int64(n); z.n > MaxWebMessageBytes {
		return n, connect.NewError(connect.CodeResourceExhausted,
			fmt.Errorf("message larger than %d bytes after decompression", MaxWebMessageBytes))
	}
	return n, err
}

// jsonCodec is vanguard's JSON codec, but a body that does not decode (not
// JSON, cut short, a wrong type, invalid UTF-8) is the caller's fault:
// INVALID_ARGUMENT with the reason, not the UNKNOWN vanguard reports.
type jsonCodec struct{ *vanguard.JSONCodec }

// newJSONCodec returns the JSON codec of the browser protocols. Unlike
// vanguard's default, a field at its zero value is left out (canonical
// proto3 JSON, as connect-go and protobuf-es write it): a Quoridor ply
// carries no "revealed":"BANQI_PIECE_UNSPECIFIED", a message no run of
// zeros, empty strings and empty lists. Readers take an absent field as
// its zero value.
func newJSONCodec(res vanguard.TypeResolver) jsonCodec {
	c := vanguard.NewJSONCodec(res)
	c.MarshalOptions.EmitUnpopulated = false
	return jsonCodec{c}
}

func (c jsonCodec) Unmarshal(data []byte, msg proto.Message) error {
	if err := c.JSONCodec.Unmarshal(data, msg); err != nil {
		return connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("malformed request message: %w", err))
	}
	return nil
}

// WithCORS answers CORS preflights and adds the CORS response headers of
// the Connect and gRPC-Web protocols (and Authorization, which carries the
// bearer token, and the match affinity header) for the allowed origins;
// with none it returns h unchanged.
func WithCORS(h http.Handler, origins []string) http.Handler {
	if len(origins) == 0 {
		return h
	}
	c := cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: connectcors.AllowedMethods(),
		AllowedHeaders: append(connectcors.AllowedHeaders(), "Authorization", affinity.Header),
		ExposedHeaders: connectcors.ExposedHeaders(),
		MaxAge:         int((2 * time.Hour).Seconds()),
	})
	return c.Handler(h)
}

// ParseOrigins splits a comma-separated list of CORS origins (the value of
// a *_CORS_ORIGINS variable or a --cors-origins flag), refusing entries that
// are not "*" or an http(s) origin with no path.
func ParseOrigins(s string) ([]string, error) {
	var out []string
	for o := range strings.SplitSeq(s, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		if o != "*" {
			rest, ok := strings.CutPrefix(o, "https://")
			if !ok {
				rest, ok = strings.CutPrefix(o, "http://")
			}
			if !ok || rest == "" || strings.ContainsAny(rest, "/?#") {
				return nil, fmt.Errorf("CORS origin %q: want \"*\" or scheme://host[:port] with no path", o)
			}
		}
		out = append(out, o)
	}
	return out, nil
}
