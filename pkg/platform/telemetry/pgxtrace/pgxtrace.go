// Package pgxtrace traces PostgreSQL calls made through pgx (pgxpool, or
// database/sql over pgx/v5/stdlib): one client span per query, batch and
// connect, named after the SQL command, child of the caller's span.
//
//	cfg, _ := pgxpool.ParseConfig(url)
//	cfg.ConnConfig.Tracer = pgxtrace.New(tel.TracerProvider)
package pgxtrace

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

const scope = "tabuleiro.dev/pkg/platform/telemetry/pgxtrace"

// Tracer implements pgx.QueryTracer, pgx.BatchTracer and
// pgx.ConnectTracer.
type Tracer struct{ t trace.Tracer }

var (
	_ pgx.QueryTracer   = (*Tracer)(nil)
	_ pgx.BatchTracer   = (*Tracer)(nil)
	_ pgx.ConnectTracer = (*Tracer)(nil)
)

// New returns a tracer reporting to tp.
func New(tp trace.TracerProvider) *Tracer { return &Tracer{t: tp.Tracer(scope)} }

// operation is the SQL command of a statement ("SELECT", "INSERT", …).
func operation(sql string) string {
	sql = strings.TrimSpace(sql)
	for strings.HasPrefix(sql, "--") { // skip leading comment lines
		_, rest, ok := strings.Cut(sql, "\n")
		if !ok {
			return "SQL"
		}
		sql = strings.TrimSpace(rest)
	}
	op, _, _ := strings.Cut(sql, " ")
	if op == "" {
		return "SQL"
	}
	return strings.ToUpper(op)
}

func (t *Tracer) start(ctx context.Context, name string, attrs ...attribute.KeyValue) context.Context {
	attrs = append(attrs, attribute.String("db.system.name", "postgresql"))
	ctx, _ = t.t.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx
}

func end(ctx context.Context, err error) {
	span := trace.SpanFromContext(ctx)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// TraceQueryStart implements pgx.QueryTracer.
func (t *Tracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	op := operation(data.SQL)
	return t.start(ctx, "postgres "+op, attribute.String("db.operation.name", op), attribute.String("db.query.text", data.SQL))
}

// TraceQueryEnd implements pgx.QueryTracer.
func (t *Tracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	end(ctx, data.Err)
}

// TraceBatchStart implements pgx.BatchTracer.
func (t *Tracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	n := 0
	if data.Batch != nil {
		n = data.Batch.Len()
	}
	return t.start(ctx, "postgres BATCH", attribute.Int("db.operation.batch.size", n))
}

// TraceBatchQuery implements pgx.BatchTracer.
func (t *Tracer) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	if data.Err != nil {
		trace.SpanFromContext(ctx).RecordError(data.Err)
	}
}

// TraceBatchEnd implements pgx.BatchTracer.
func (t *Tracer) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchEndData) {
	end(ctx, data.Err)
}

// TraceConnectStart implements pgx.ConnectTracer.
func (t *Tracer) TraceConnectStart(ctx context.Context, _ pgx.TraceConnectStartData) context.Context {
	return t.start(ctx, "postgres CONNECT")
}

// TraceConnectEnd implements pgx.ConnectTracer.
func (t *Tracer) TraceConnectEnd(ctx context.Context, data pgx.TraceConnectEndData) {
	end(ctx, data.Err)
}
