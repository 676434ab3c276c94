package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

func TestNewLoggerAddsTraceIDs(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logger := NewLogger(&buf, slog.LevelInfo).With("service", "test")
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("t").Start(context.Background(), "op")
	logger.InfoContext(ctx, "traced")
	span.End()
	logger.InfoContext(context.Background(), "untraced")

	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) != 2 {
		t.Fatalf("got %d lines: %s", len(lines), buf.String())
	}
	var traced, untraced map[string]any
	if err := json.Unmarshal(lines[0], &traced); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(lines[1], &untraced); err != nil {
		t.Fatal(err)
	}
	sc := span.SpanContext()
	if traced["trace_id"] != sc.TraceID().String() || traced["span_id"] != sc.SpanID().String() || traced["service"] != "test" {
		t.Errorf("traced line %v, want trace_id %s span_id %s service test", traced, sc.TraceID(), sc.SpanID())
	}
	if _, ok := untraced["trace_id"]; ok {
		t.Errorf("untraced line has a trace_id: %v", untraced)
	}
}
