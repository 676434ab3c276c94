package telemetry_test

import (
	"context"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"tabuleiro.dev/pkg/platform/envconfig"
	"tabuleiro.dev/pkg/platform/telemetry"
)

func provider(t *testing.T, env map[string]string) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	t.Helper()
	s, err := telemetry.Sampler(envconfig.Map(env))
	if err != nil {
		t.Fatal(err)
	}
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(s), sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, rec
}

// The default keeps about DefaultSampleRatio of new traces, and a child
// follows its parent's decision.
func TestDefaultSamplerIsParentBasedRatio(t *testing.T) {
	tp, rec := provider(t, nil)
	tr := tp.Tracer("t")
	const n = 4000
	for range n {
		ctx, root := tr.Start(context.Background(), "root")
		_, child := tr.Start(ctx, "child")
		child.End()
		root.End()
	}
	roots, children := 0, 0
	for _, s := range rec.Ended() {
		if s.Parent().IsValid() {
			children++
		} else {
			roots++
		}
	}
	if roots != children {
		t.Errorf("%d roots and %d children kept: a child must follow its parent", roots, children)
	}
	// Trace ids are random: the kept share is binomial around 10% (σ ≈ 19
	// of 4000), so 250–550 is a bound it leaves with negligible odds.
	if roots < 250 || roots > 550 {
		t.Errorf("%d of %d traces kept, want about %v", roots, n, telemetry.DefaultSampleRatio)
	}
}

func TestUntracedIsNeverSampled(t *testing.T) {
	tp, rec := provider(t, map[string]string{"OTEL_TRACES_SAMPLER": "always_on"})
	tr := tp.Tracer("t")
	ctx := telemetry.Untraced(context.Background())
	for range 100 {
		c, poll := tr.Start(ctx, "ZRANGE")
		_, inner := tr.Start(c, "inner")
		inner.End()
		poll.End()
	}
	if n := len(rec.Ended()); n != 0 {
		t.Fatalf("%d spans recorded under Untraced", n)
	}
	_, work := tr.Start(telemetry.Traced(ctx), "fire deadline")
	work.End()
	if n := len(rec.Ended()); n != 1 {
		t.Fatalf("%d spans recorded for the work a poll found, want 1", n)
	}
}

func TestSamplerFromEnv(t *testing.T) {
	for _, tt := range []struct {
		env     map[string]string
		wantErr bool
		want    string
	}{
		{env: map[string]string{"OTEL_TRACES_SAMPLER": "always_off"}, want: "AlwaysOffSampler"},
		{env: map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.5"}, want: "TraceIDRatioBased{0.5}"},
		{env: map[string]string{"OTEL_TRACES_SAMPLER": "sometimes"}, wantErr: true},
		{env: map[string]string{"OTEL_TRACES_SAMPLER_ARG": "2"}, wantErr: true},
	} {
		s, err := telemetry.Sampler(envconfig.Map(tt.env))
		if (err != nil) != tt.wantErr {
			t.Errorf("%v: err %v", tt.env, err)
			continue
		}
		if err == nil && !strings.Contains(s.Description(), tt.want) {
			t.Errorf("%v: sampler %s, want %s", tt.env, s.Description(), tt.want)
		}
	}
}
