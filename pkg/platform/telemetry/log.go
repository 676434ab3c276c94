package telemetry

import (
	"context"
	"io"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// NewLogger returns the JSON logger of a service: one object per line,
// with trace_id and span_id when the record's context carries a span (use
// the *Context logging methods).
func NewLogger(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(LogHandler(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})))
}

// LogHandler wraps h so that every record logged with a context holding a
// valid span context gets trace_id and span_id attributes.
func LogHandler(h slog.Handler) slog.Handler { return traceHandler{h} }

type traceHandler struct{ slog.Handler }

func (h traceHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h traceHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return traceHandler{h.Handler.WithAttrs(as)}
}

func (h traceHandler) WithGroup(name string) slog.Handler {
	return traceHandler{h.Handler.WithGroup(name)}
}
