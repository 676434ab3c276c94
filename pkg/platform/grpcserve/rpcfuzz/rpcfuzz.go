// Package rpcfuzz fuzzes a gRPC service's public requests over the wire:
// each input is a method and the bytes of one request message, sent as
// they are (so that malformed messages, invalid UTF-8 and any field value
// reach the server), and each must end without INTERNAL or UNKNOWN (a
// panic is INTERNAL through the recovery interceptor) and, when refused,
// leave the service's state as it was.
//
// A service's fuzz test builds its server with Tracker's ServerOptions,
// adds realistic requests as seeds (Seed) and calls Check from f.Fuzz.
// `go test` runs the seeds only; `go test -fuzz FuzzX` explores.
package rpcfuzz

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Tracker counts the calls a server is running, so that Check can wait
// until every handler has returned (a stream's clean-up included) before
// it compares the state.
type Tracker struct {
	mu   sync.Mutex
	n    int
	idle *sync.Cond
}

// NewTracker returns a tracker.
func NewTracker() *Tracker {
	t := &Tracker{}
	t.idle = sync.NewCond(&t.mu)
	return t
}

func (t *Tracker) enter() { t.mu.Lock(); t.n++; t.mu.Unlock() }
func (t *Tracker) leave() {
	t.mu.Lock()
	t.n--
	if t.n == 0 {
		t.idle.Broadcast()
	}
	t.mu.Unlock()
}

// Wait returns once no call is running.
func (t *Tracker) Wait() {
	t.mu.Lock()
	for t.n > 0 {
		t.idle.Wait()
	}
	t.mu.Unlock()
}

// ServerOptions are the interceptors that count the server's calls.
func (t *Tracker) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			t.enter()
			defer t.leave()
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			t.enter()
			defer t.leave()
			return h(srv, ss)
		}),
	}
}

// Target is a service under test.
type Target struct {
	Conn    *grpc.ClientConn
	Service protoreflect.ServiceDescriptor
	Tracker *Tracker
	// Caller returns the context of a call: the caller's token.
	Caller func(context.Context) context.Context
	// State returns what a refused request must leave unchanged, by name.
	State func(context.Context) (map[string]string, error)
	// Timeout bounds one unary call, default 10 s; StreamWait bounds the
	// wait for a stream's first message (or its end), default 1 s: a
	// stream that waits for something to happen is accepted, not an
	// error. A stream is cancelled after its first message.
	Timeout, StreamWait time.Duration
	// BaseURL ("http://127.0.0.1:PORT"), when set, is where Check sends
	// each input over the browsers' framings too, Connect and gRPC-Web
	// (HTTP/1.1, through HTTP): every refusal there must carry an
	// ErrorInfo reason, and none may be INTERNAL or UNKNOWN either. HTTP
	// is their client (nil: http.DefaultClient).
	BaseURL string
	HTTP    *http.Client
}

func (tg *Target) timeout(m protoreflect.MethodDescriptor) time.Duration {
	if m.IsStreamingServer() {
		return cmp.Or(tg.StreamWait, time.Second)
	}
	return cmp.Or(tg.Timeout, 10*time.Second)
}

// Seed adds each request to f as a (method, wire bytes) input; method is
// the RPC's name in the target's service.
func Seed(f *testing.F, method string, reqs ...proto.Message) {
	f.Helper()
	for _, r := range reqs {
		b, err := proto.Marshal(r)
		if err != nil {
			f.Fatalf("seed %s: %v", method, err)
		}
		f.Add(method, b)
	}
}

// method picks the RPC named name, or (a mutated name) one by its hash.
func (tg *Target) method(name string) protoreflect.MethodDescriptor {
	ms := tg.Service.Methods()
	if m := ms.ByName(protoreflect.Name(name)); m != nil {
		return m
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	return ms.Get(int(h.Sum32() % uint32(ms.Len())))
}

// rawCodec sends and receives bytes as they are.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}
func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}
func (rawCodec) Name() string { return "proto" }

// Call sends payload to the method named name and returns the call's
// status (a stream's: its first message, or how it ended).
func (tg *Target) Call(ctx context.Context, name string, payload []byte) (protoreflect.MethodDescriptor, error) {
	m := tg.method(name)
	full := fmt.Sprintf("/%s/%s", tg.Service.FullName(), m.Name())
	ctx, cancel := context.WithTimeout(tg.Caller(ctx), tg.timeout(m))
	defer cancel()
	codec := grpc.ForceCodecV2(rawCodec{})
	var out []byte
	if !m.IsStreamingClient() && !m.IsStreamingServer() {
		return m, tg.Conn.Invoke(ctx, full, &payload, &out, codec)
	}
	s, err := tg.Conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: m.IsStreamingServer(), ClientStreams: m.IsStreamingClient()}, full, codec)
	if err != nil {
		return m, err
	}
	if err := s.SendMsg(&payload); err != nil && err != io.EOF {
		return m, err
	}
	if err := s.RecvMsg(&out); err != nil && err != io.EOF {
		return m, err
	}
	return m, nil
}

// Check sends one input and fails t on INTERNAL or UNKNOWN, on a call
// that does not end in time, and on a refused call that changed the
// state; with a BaseURL, over gRPC, then Connect, then gRPC-Web.
func Check(t *testing.T, tg *Target, name string, payload []byte) {
	t.Helper()
	check(t, tg, fmt.Sprintf("grpc (%x)", payload), func(ctx context.Context) (protoreflect.MethodDescriptor, *status.Status, bool) {
		m, err := tg.Call(ctx, name, payload)
		return m, status.Convert(err), true
	})
	if tg.BaseURL == "" {
		return
	}
	for _, framing := range []Framing{Connect, GRPCWeb} {
		check(t, tg, fmt.Sprintf("%s (%x)", framing, payload), func(ctx context.Context) (protoreflect.MethodDescriptor, *status.Status, bool) {
			m, st, ok, err := tg.CallHTTP(ctx, framing, name, payload)
			if err != nil {
				t.Fatalf("%s over %s (%x): %v", m.Name(), framing, payload, err)
			}
			if ok && st.Code() != codes.OK && st.Code() != codes.DeadlineExceeded && !hasReason(st) {
				t.Fatalf("%s over %s (%x): %v without an ErrorInfo reason", m.Name(), framing, payload, st.Err())
			}
			return m, st, ok
		})
	}
}

func hasReason(st *status.Status) bool {
	for _, d := range st.Details() {
		if _, ok := d.(*errdetails.ErrorInfo); ok {
			return true
		}
	}
	return false
}

func check(t *testing.T, tg *Target, over string, call func(context.Context) (protoreflect.MethodDescriptor, *status.Status, bool)) {
	t.Helper()
	ctx := t.Context()
	before, err := tg.State(ctx)
	if err != nil {
		t.Fatalf("state: %v", err)
	}
	m, st, sent := call(ctx)
	if !sent {
		return
	}
	tg.Tracker.Wait()
	switch st.Code() {
	case codes.Internal, codes.Unknown, codes.DataLoss:
		t.Fatalf("%s over %s: %v, a server fault", m.Name(), over, st.Err())
	case codes.DeadlineExceeded:
		if !m.IsStreamingServer() {
			t.Fatalf("%s over %s: no answer in time", m.Name(), over)
		}
		return // a stream that waits for something to happen: accepted
	case codes.OK:
		return
	}
	after, err := tg.State(ctx)
	if err != nil {
		t.Fatalf("state: %v", err)
	}
	var changed []string
	for k := range maps.Keys(before) {
		if after[k] != before[k] {
			changed = append(changed, k)
		}
	}
	for k := range maps.Keys(after) {
		if _, ok := before[k]; !ok {
			changed = append(changed, k)
		}
	}
	if len(changed) > 0 {
		slices.Sort(changed)
		t.Fatalf("%s over %s refused (%v) but changed %v", m.Name(), over, st.Err(), changed)
	}
}

// RedisState is a Target.State of the keys under prefix, each by its
// value, except the keys containing one of volatile (bookkeeping that
// changes on its own or on any call: rate limits, heartbeats, stream
// leases). Values are read by type (not DUMP, which the embedded Redis
// has for strings only).
func RedisState(rdb redis.UniversalClient, prefix string, volatile ...string) func(context.Context) (map[string]string, error) {
	return func(ctx context.Context) (map[string]string, error) {
		out := map[string]string{}
		iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	keys:
		for iter.Next(ctx) {
			k := iter.Val()
			for _, v := range volatile {
				if strings.Contains(k, v) {
					continue keys
				}
			}
			v, err := value(ctx, rdb, k)
			if errors.Is(err, redis.Nil) {
				continue // gone meanwhile (expired)
			}
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", k, err)
			}
			out[k] = v
		}
		return out, iter.Err()
	}
}

func value(ctx context.Context, rdb redis.UniversalClient, k string) (string, error) {
	typ, err := rdb.Type(ctx, k).Result()
	if err != nil {
		return "", err
	}
	var v any
	switch typ {
	case "none":
		return "", redis.Nil
	case "string":
		v, err = rdb.Get(ctx, k).Result()
	case "hash":
		v, err = rdb.HGetAll(ctx, k).Result() // fmt prints maps sorted
	case "set":
		var m []string
		m, err = rdb.SMembers(ctx, k).Result()
		slices.Sort(m)
		v = m
	case "zset":
		v, err = rdb.ZRangeWithScores(ctx, k, 0, -1).Result()
	case "list":
		v, err = rdb.LRange(ctx, k, 0, -1).Result()
	case "stream":
		v, err = rdb.XRange(ctx, k, "-", "+").Result()
	default:
		return "", fmt.Errorf("type %s", typ)
	}
	return typ + " " + fmt.Sprint(v), err
}
