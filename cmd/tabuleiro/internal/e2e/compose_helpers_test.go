package e2e

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/otlptranslator"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"

	"tabuleiro.dev/cmd/tabuleiro/internal/otelstub"
)

// waitHTTP waits until url answers 200 (polling: the edge's health is
// plain HTTP), failing with the process's exit if it exits first.
func waitHTTP(ctx context.Context, t *testing.T, p *process, url string) {
	t.Helper()
	var last string
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited before %s answered 200: %s (last answer: %s)", p.name, url, p.exited(), last)
		case <-ctx.Done():
			t.Fatalf("%s: %s never answered 200 (%s; last answer: %s)", p.name, url, p.exited(), last)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// exportedOTLP gives the metrics received by the collector stand-in their
// Prometheus names, as the collector's prometheus exporter would.
func exportedOTLP(t *testing.T, ms []otelstub.Metric) promSeries {
	t.Helper()
	keys := func(kvs []*commonpb.KeyValue) []string {
		out := make([]string, 0, len(kvs))
		for _, kv := range kvs {
			out = append(out, kv.GetKey())
		}
		return out
	}
	var rs []recorded
	for _, m := range ms {
		r := recorded{name: m.Metric.GetName(), unit: m.Metric.GetUnit()}
		switch {
		case m.Metric.GetSum() != nil:
			r.typ = sumType(m.Metric.GetSum().GetIsMonotonic())
			for _, p := range m.Metric.GetSum().GetDataPoints() {
				r.points = append(r.points, keys(p.GetAttributes()))
			}
		case m.Metric.GetGauge() != nil:
			r.typ = otlptranslator.MetricTypeGauge
			for _, p := range m.Metric.GetGauge().GetDataPoints() {
				r.points = append(r.points, keys(p.GetAttributes()))
			}
		case m.Metric.GetHistogram() != nil:
			r.typ = otlptranslator.MetricTypeHistogram
			for _, p := range m.Metric.GetHistogram().GetDataPoints() {
				r.points = append(r.points, keys(p.GetAttributes()))
			}
		default:
			t.Fatalf("metric %s from %s: data %T: extend the test", r.name, m.Service, m.Metric.GetData())
		}
		rs = append(rs, r)
	}
	if len(rs) == 0 {
		t.Fatal("the collector stand-in received no metric")
	}
	return promNames(t, rs)
}
