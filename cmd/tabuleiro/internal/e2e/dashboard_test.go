package e2e

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/otlptranslator"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"google.golang.org/grpc"
	"gopkg.in/yaml.v3"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/telemetry"
	"tabuleiro.dev/pkg/platform/testenv"
)

// deployDir is the repository's deploy/ folder.
func deployDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../../../deploy")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// promSeries is what Prometheus would hold from the services' export: the
// series names (with a histogram's _bucket, _sum and _count) and, for each,
// its label names.
type promSeries map[string]map[string]bool

// exported translates the OTLP metrics the services recorded into the
// Prometheus names the collector's prometheus exporter gives them (the
// same translator, otlptranslator, with suffixes and underscore escaping).
func exported(t *testing.T, rm metricdata.ResourceMetrics) promSeries {
	t.Helper()
	var ms []recorded
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			r := recorded{name: m.Name, unit: m.Unit}
			var sets []attribute.Set
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				r.typ = sumType(d.IsMonotonic)
				for _, p := range d.DataPoints {
					sets = append(sets, p.Attributes)
				}
			case metricdata.Sum[float64]:
				r.typ = sumType(d.IsMonotonic)
				for _, p := range d.DataPoints {
					sets = append(sets, p.Attributes)
				}
			case metricdata.Gauge[int64]:
				r.typ = otlptranslator.MetricTypeGauge
				for _, p := range d.DataPoints {
					sets = append(sets, p.Attributes)
				}
			case metricdata.Gauge[float64]:
				r.typ = otlptranslator.MetricTypeGauge
				for _, p := range d.DataPoints {
					sets = append(sets, p.Attributes)
				}
			case metricdata.Histogram[float64]:
				r.typ = otlptranslator.MetricTypeHistogram
				for _, p := range d.DataPoints {
					sets = append(sets, p.Attributes)
				}
			case metricdata.Histogram[int64]:
				r.typ = otlptranslator.MetricTypeHistogram
				for _, p := range d.DataPoints {
					sets = append(sets, p.Attributes)
				}
			default:
				t.Fatalf("metric %s: data of type %T: extend the test", m.Name, m.Data)
			}
			for _, set := range sets {
				var keys []string
				for _, kv := range set.ToSlice() {
					keys = append(keys, string(kv.Key))
				}
				r.points = append(r.points, keys)
			}
			ms = append(ms, r)
		}
	}
	return promNames(t, ms)
}

// recorded is one metric as exported: its OTLP name, unit and type, and
// the attribute keys of each data point.
type recorded struct {
	name, unit string
	typ        otlptranslator.MetricType
	points     [][]string
}

func sumType(monotonic bool) otlptranslator.MetricType {
	if monotonic {
		return otlptranslator.MetricTypeMonotonicCounter
	}
	return otlptranslator.MetricTypeNonMonotonicCounter
}

// promNames gives the recorded metrics their Prometheus names (a
// histogram's _bucket, _sum and _count) and label names.
func promNames(t *testing.T, ms []recorded) promSeries {
	t.Helper()
	namer := otlptranslator.NewMetricNamer("", otlptranslator.UnderscoreEscapingWithSuffixes)
	labels := otlptranslator.LabelNamer{}
	out := promSeries{}
	for _, m := range ms {
		if len(m.points) == 0 {
			continue // declared, never recorded: Prometheus would not see it
		}
		suffixes := []string{""}
		if m.typ == otlptranslator.MetricTypeHistogram {
			suffixes = []string{"_bucket", "_sum", "_count"}
		}
		name, err := namer.Build(otlptranslator.Metric{Name: m.name, Unit: m.unit, Type: m.typ})
		if err != nil {
			t.Fatal(err)
		}
		for _, sfx := range suffixes {
			if out[name+sfx] == nil {
				out[name+sfx] = map[string]bool{}
			}
			for _, keys := range m.points {
				for _, k := range keys {
					l, err := labels.Build(k)
					if err != nil {
						t.Fatal(err)
					}
					out[name+sfx][l] = true
				}
			}
		}
	}
	return out
}

// resourceLabels are the labels that come from a service's resource with
// the collector's resource_to_telemetry_conversion, not from the metric.
var resourceLabels = map[string]bool{"service_name": true, "service_instance_id": true, "service_namespace": true,
	"k8s_pod_name": true, "instance": true, "job": true, "le": true}

var (
	promStrings  = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promMatchers = regexp.MustCompile(`\{[^}]*\}`)
	promRanges   = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)`)
	promIdent    = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	promWords    = map[string]bool{"sum": true, "min": true, "max": true, "avg": true, "count": true, "rate": true, "irate": true,
		"increase": true, "histogram_quantile": true, "by": true, "without": true, "on": true, "ignoring": true, "and": true,
		"or": true, "unless": true, "bool": true, "offset": true, "topk": true, "bottomk": true, "abs": true, "clamp_min": true,
		"delta": true, "deriv": true, "absent": true, "group_left": true, "group_right": true, "max_over_time": true, "avg_over_time": true}
)

// queryRefs returns the series names an expression reads, with the labels
// it matches or groups on for each, and the labels in its groupings.
func queryRefs(expr string) (series map[string][]string, grouping []string) {
	series = map[string][]string{}
	// Label matchers right after a name: name{a="x"}.
	for _, m := range regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}`).FindAllStringSubmatch(expr, -1) {
		for _, part := range strings.Split(promStrings.ReplaceAllString(m[2], `""`), ",") {
			if l := strings.TrimSpace(strings.FieldsFunc(part, func(r rune) bool { return r == '=' || r == '!' || r == '~' })[0]); l != "" {
				series[m[1]] = append(series[m[1]], l)
			}
		}
	}
	for _, g := range promGrouping.FindAllStringSubmatch(expr, -1) {
		for _, l := range strings.Split(g[1], ",") {
			if l = strings.TrimSpace(l); l != "" {
				grouping = append(grouping, l)
			}
		}
	}
	rest := promGrouping.ReplaceAllString(expr, " ")
	rest = promStrings.ReplaceAllString(rest, " ")
	rest = promMatchers.ReplaceAllString(rest, " ")
	rest = promRanges.ReplaceAllString(rest, " ")
	for _, loc := range promIdent.FindAllStringIndex(rest, -1) {
		id := rest[loc[0]:loc[1]]
		after := strings.TrimLeft(rest[loc[1]:], " ")
		if promWords[id] || strings.HasPrefix(after, "(") {
			continue
		}
		if _, ok := series[id]; !ok {
			series[id] = nil
		}
	}
	return series, grouping
}

// queries are the dashboard's and the alert rules' expressions, by where
// they are.
func queries(t *testing.T) map[string]string {
	t.Helper()
	dir := deployDir(t)
	out := map[string]string{}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "grafana/dashboards/tabuleiro.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatal(err)
	}
	for _, p := range dash.Panels {
		for i, tg := range p.Targets {
			out["dashboard panel "+p.Title+" #"+string(rune('A'+i))] = tg.Expr
		}
	}
	type ruleFile struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	var rules ruleFile
	b, err = os.ReadFile(filepath.Join(dir, "prometheus/rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &rules); err != nil {
		t.Fatal(err)
	}
	var cr struct {
		Kind string   `yaml:"kind"`
		Spec ruleFile `yaml:"spec"`
	}
	b, err = os.ReadFile(filepath.Join(dir, "k8s/monitoring/prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &cr); err != nil {
		t.Fatal(err)
	}
	if cr.Kind != "PrometheusRule" || !reflect.DeepEqual(cr.Spec, rules) {
		t.Errorf("deploy/k8s/monitoring/prometheusrule.yaml's groups differ from deploy/prometheus/rules.yml")
	}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			out["alert "+r.Alert] = r.Expr
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d queries found: the dashboard or the rules did not parse", len(out))
	}
	return out
}

// TestDashboardAndAlertsQueryExportedMetrics runs the services with the
// SDK's metrics, plays a bot game and a matchmaking game, translates what
// they exported to Prometheus names as the collector does, and holds every
// query of the Grafana dashboard and of the alert rules against it: each
// series must exist and carry the labels the query matches or groups on.
// Not parallel: it reads the process-wide MeterProvider (like
// TestBotGameTelemetry).
func TestDashboardAndAlertsQueryExportedMetrics(t *testing.T) {
	reader, mp := meterProvider()
	tels := serviceTelemetry(t, mp)
	tels["lobby"].SetGlobal()
	s := startStack(t, stackOptions{Telemetry: tels})
	ctx := testenv.Context(t, context.Background())
	lobbyConn, matchConn := s.client(t, s.lobbyAddr), s.client(t, s.matchAddr)
	s.playBotGame(ctx, t, lobbyConn, matchConn, 2)

	// A matchmaking pair records the wait; the first to move resigns.
	playPair(ctx, t, s.issuer, lobbyConn, matchConn)

	// The recorder writes both games in the background: wait for them.
	var rm metricdata.ResourceMetrics
	for {
		if err := reader.Collect(ctx, &rm); err != nil {
			t.Fatal(err)
		}
		if sumOf(rm, "tabuleiro.match.outbox.written") >= 2 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the games never left the outbox")
		case <-time.After(10 * time.Millisecond):
		}
	}
	have := exported(t, rm)
	var names []string
	for n := range have {
		names = append(names, n)
	}
	slices.Sort(names)
	t.Logf("exported series: %s", strings.Join(names, " "))

	holdQueries(t, have, processOnly)
}

// processOnly are the series that only the services' processes export
// (their main registers them: the dependencies the alerts watch) or that
// the edge's own exporter serves (haproxy_*): TestComposeTopologyAsProcesses
// holds the queries on them, against the processes and a real HAProxy.
func processOnly(name string) bool {
	return strings.HasPrefix(name, "haproxy_") || name == "tabuleiro_dependency_up" || name == "tabuleiro_redis_replicas"
}

// holdQueries checks every query of the dashboard and of the alert rules
// against the series have: each series must exist and carry the labels the
// query matches or groups on. Series for which skip is true are not
// checked (nil: every series is).
func holdQueries(t *testing.T, have promSeries, skip func(name string) bool) {
	t.Helper()
	for where, expr := range queries(t) {
		series, grouping := queryRefs(expr)
		if len(series) == 0 {
			t.Errorf("%s: no metric in %q", where, expr)
		}
		for name := range series {
			if skip != nil && skip(name) {
				delete(series, name)
			}
		}
		if len(series) == 0 {
			continue
		}
		for name, matched := range series {
			labels, ok := have[name]
			if !ok {
				t.Errorf("%s: %s is not exported by any service (query %q)", where, name, expr)
				continue
			}
			for _, l := range matched {
				if !labels[l] && !resourceLabels[l] {
					t.Errorf("%s: %s has no label %s (query %q)", where, name, l, expr)
				}
			}
		}
		for _, l := range grouping {
			if resourceLabels[l] {
				continue
			}
			if !slices.ContainsFunc(mapsKeys(series), func(n string) bool { return have[n][l] }) {
				t.Errorf("%s: groups by %s, which none of its metrics carries (query %q)", where, l, expr)
			}
		}
	}
}

// playPair queues two players for Corners through lobby, and the one to
// move first resigns through match once they are paired.
func playPair(ctx context.Context, t *testing.T, issuer *auth.Issuer, lobbyConn, matchConn *grpc.ClientConn) {
	t.Helper()
	lobby := lobbyv1.NewLobbyServiceClient(lobbyConn)
	type found struct {
		m   *lobbyv1.Matched
		tok string
		err error
	}
	ch := make(chan found, 2)
	for i := range 2 {
		tok, _, err := issuer.IssuePlayer("dash-"+rand.Text()[:8], "p"+string(rune('a'+i)), true, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			r := found{tok: tok}
			st, err := lobby.FindMatch(auth.WithToken(ctx, tok), &lobbyv1.FindMatchRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3"})
			for err == nil {
				var m *lobbyv1.FindMatchResponse
				if m, err = st.Recv(); err == nil && m.GetMatched() != nil {
					r.m = m.GetMatched()
				}
			}
			if !errors.Is(err, io.EOF) || r.m == nil {
				r.err = err
			}
			ch <- r
		}()
	}
	r1, r2 := <-ch, <-ch
	if r1.err != nil || r2.err != nil {
		t.Fatalf("find match: %v, %v", r1.err, r2.err)
	}
	first := r1
	if r2.m.GetYourSeat() == gamev1.Seat_SEAT_FIRST {
		first = r2
	}
	resign(ctx, t, matchv1.NewMatchServiceClient(matchConn), first.tok, first.m.GetMatchId())
}

func mapsKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestRateWindowsCoverExports checks that every rate() window of the
// dashboard and the alerts spans at least four metric exports, at the
// services' default interval and at compose's: a window shorter than that
// draws gaps or nothing.
func TestRateWindowsCoverExports(t *testing.T) {
	compose, err := os.ReadFile(filepath.Join(deployDir(t), "../docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`OTEL_METRIC_EXPORT_INTERVAL: "(\d+)"`).FindSubmatch(compose)
	if m == nil {
		t.Fatal("docker-compose.yml sets no OTEL_METRIC_EXPORT_INTERVAL")
	}
	composeEvery, _ := time.ParseDuration(string(m[1]) + "ms")
	every := max(composeEvery, telemetry.DefaultMetricExportInterval)
	for where, expr := range queries(t) {
		for _, r := range promRanges.FindAllString(expr, -1) {
			d, err := time.ParseDuration(strings.Trim(r, "[]"))
			if err != nil {
				t.Errorf("%s: range %s: %v", where, r, err)
				continue
			}
			if d < 4*every {
				t.Errorf("%s: window %s holds fewer than four exports at %s", where, r, every)
			}
		}
	}
}
