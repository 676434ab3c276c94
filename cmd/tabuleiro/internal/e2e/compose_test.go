package e2e

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/redis/go-redis/v9"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"gopkg.in/yaml.v3"

	"tabuleiro.dev/cmd/tabuleiro/internal/otelstub"
	"tabuleiro.dev/cmd/tabuleiro/internal/scaletest"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/testenv"
)

// composeService is what this test reads of a docker-compose.yml service.
type composeService struct {
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	Deploy      struct {
		Replicas int `yaml:"replicas"`
	} `yaml:"deploy"`
	DependsOn  map[string]any `yaml:"depends_on"`
	Profiles   []string       `yaml:"profiles"`
	Image      string         `yaml:"image"`
	StopSignal string         `yaml:"stop_signal"`
	Volumes    []string       `yaml:"volumes"`
}

// readCompose reads the repository's docker-compose.yml (anchors and
// merge keys resolved by the YAML decoder).
func readCompose(t *testing.T) map[string]composeService {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir(t), "../docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Services map[string]composeService `yaml:"services"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return f.Services
}

// readEnvFile reads KEY=VALUE lines (compose's .env format, comments and
// blank lines skipped).
func readEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var composeVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}`)

// interpolate expands compose's ${VAR}, ${VAR:-default}, ${VAR-default},
// ${VAR:?message} and ${VAR?message} from vars.
func interpolate(s string, vars map[string]string) (string, error) {
	var err error
	out := composeVar.ReplaceAllStringFunc(s, func(m string) string {
		g := composeVar.FindStringSubmatch(m)
		v, set := vars[g[1]]
		switch g[2] {
		case ":-":
			if v == "" {
				return g[3]
			}
		case "-":
			if !set {
				return g[3]
			}
		case ":?", "?":
			if !set || (g[2] == ":?" && v == "") {
				err = fmt.Errorf("%s is required: %s", g[1], g[3])
			}
		}
		return v
	})
	return out, err
}

// replicaPort returns a port free on both 127.0.0.1 and 127.0.0.2 a
// moment ago: two replicas of a service listen on it, one on each
// address, as two containers listen on the same port.
func replicaPort(t *testing.T) string {
	t.Helper()
	for range 100 {
		a, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		_, port, _ := net.SplitHostPort(a.Addr().String())
		b, err := net.Listen("tcp", "127.0.0.2:"+port)
		a.Close()
		if err == nil {
			b.Close()
			return port
		}
	}
	t.Fatal("no port free on both 127.0.0.1 and 127.0.0.2")
	return ""
}

// startOrder sorts the services of run so that each comes after those it
// depends on (compose's depends_on), by name among equals.
func startOrder(t *testing.T, services map[string]composeService, run []string) []string {
	t.Helper()
	var order []string
	done := map[string]bool{}
	for len(order) < len(run) {
		var ready []string
		for _, name := range run {
			if done[name] {
				continue
			}
			ok := true
			for dep := range services[name].DependsOn {
				ok = ok && (done[dep] || !slices.Contains(run, dep))
			}
			if ok {
				ready = append(ready, name)
			}
		}
		if len(ready) == 0 {
			t.Fatalf("depends_on has a cycle among %v", run)
		}
		sort.Strings(ready)
		for _, name := range ready {
			done[name] = true
		}
		order = append(order, ready...)
	}
	return order
}

// TestComposeTopologyAsProcesses runs docker-compose.yml's stack as
// processes: Redis with compose's command line, lobby, match and bot with
// compose's replica counts (two match, two bot) and the edge, each built
// from the repository and given its compose environment verbatim —
// interpolated from deploy/compose.env.example, with a token key of the
// test's own and TABULEIRO_OTLP_ENDPOINT set as the observability profile
// sets it — where only the compose host names and ports are rewritten to
// loopback: each replica listens on the same port on 127.0.0.1 or
// 127.0.0.2, dns:/// targets name a DNS stand-in that answers a service
// name with its replicas (as compose's network does), the edge's backends
// are listed, and the OTLP collector is a stand-in. PostgreSQL is the test
// server's (a fresh database: its URL's user, password and database are
// the test server's). Each process starts once those it depends on serve
// (health checks, compose's order). The test plays a bot game and a
// matchmaking game through the edge, checks health through it, then holds
// the dashboard's and the alert rules' queries against the metrics the
// processes actually exported, and stops every process with SIGTERM.
//
// Not run (deploy/README.md, "Not run here"): the images, the migrate
// one-shot (lobby and match apply the migrations at start-up, as they do
// in compose after it), the collector, Jaeger, Prometheus and Grafana.
func TestComposeTopologyAsProcesses(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	began := time.Now()
	since := func() time.Duration { return time.Since(began).Round(100 * time.Millisecond) }
	services := readCompose(t)
	_, dbURL := testEnv(t)
	var bin string
	built := make(chan error, 1)
	go func() {
		var err error
		bin, err = binaries()
		built <- err
	}()

	// The variables compose interpolates: the example .env, a real key,
	// the collector of the observability profile.
	key, err := auth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	iss, err := auth.NewIssuer(key)
	if err != nil {
		t.Fatal(err)
	}
	vars := readEnvFile(t, filepath.Join(deployDir(t), "compose.env.example"))
	vars["TABULEIRO_TOKEN_KEY"] = auth.EncodeKey(key)
	vars["TABULEIRO_OTLP_ENDPOINT"] = "http://otel-collector:4317"

	// Redis as compose runs it, on a loopback port.
	redisSvc := services["redis"]
	if len(redisSvc.Command) == 0 || redisSvc.Command[0] != "redis-server" {
		t.Fatalf("compose's redis command is %q: this test runs redis-server with its arguments", redisSvc.Command)
	}
	redisAddr := testenv.FreeAddr(t)
	rh, rp, _ := net.SplitHostPort(redisAddr)
	redisProc := startProcess(t, "redis", "redis-server", []string{"PATH=" + os.Getenv("PATH")},
		append(slices.Clone(redisSvc.Command[1:]), "--bind", rh, "--port", rp, "--dir", t.TempDir())...)
	rdb := redis.NewClient(&redis.Options{Addr: redisAddr})
	defer rdb.Close()
	for rdb.Ping(ctx).Err() != nil {
		select {
		case <-redisProc.done:
			t.Fatalf("redis-server %v exited before answering: %v", redisSvc.Command, redisProc.err)
		case <-ctx.Done():
			t.Fatalf("redis-server never answered: %v", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if v, _ := rdb.ConfigGet(ctx, "maxmemory-policy").Result(); v["maxmemory-policy"] != "noeviction" {
		t.Errorf("redis-server with compose's command: maxmemory-policy %v", v)
	}
	dbURL = freshDatabase(ctx, t, dbURL)
	col := otelstub.Start(t)

	// Where each compose service runs: replicas on one port, one per
	// loopback address.
	run := []string{"bot", "match", "lobby", "edge"}
	port := map[string]string{}
	hosts := map[string][]net.IP{}
	replicas := map[string]int{}
	for _, name := range run {
		svc, ok := services[name]
		if !ok {
			t.Fatalf("docker-compose.yml has no service %s", name)
		}
		replicas[name] = max(svc.Deploy.Replicas, 1)
		if replicas[name] > 2 {
			t.Fatalf("%s has %d replicas: this test runs at most two (127.0.0.1 and 127.0.0.2)", name, replicas[name])
		}
		port[name] = replicaPort(t)
		for i := range replicas[name] {
			hosts[name] = append(hosts[name], net.IPv4(127, 0, 0, byte(1+i)))
		}
	}
	if replicas["match"] != 2 || replicas["bot"] != 2 {
		t.Errorf("compose runs %d match and %d bot replicas; this test expects two of each", replicas["match"], replicas["bot"])
	}
	dns := scaletest.ServeDNS(t, hosts)
	// The edge is the official HAProxy image with the repository's
	// configuration mounted: here Debian's haproxy with the same file.
	edgeSvc := services["edge"]
	edgeConfig := filepath.Join(deployDir(t), "haproxy", "haproxy.cfg")
	if !strings.HasPrefix(edgeSvc.Image, "haproxy:") || !slices.Contains(edgeSvc.Volumes, "./deploy/haproxy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro") {
		t.Fatalf("compose's edge is %q with volumes %v: this test runs haproxy with deploy/haproxy/haproxy.cfg", edgeSvc.Image, edgeSvc.Volumes)
	}
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		t.Fatalf("haproxy is not installed (scripts/services.sh installs Debian's): %v", err)
	}
	edgeMetrics := testenv.FreeAddr(t)
	hostPort := regexp.MustCompile(`(dns:///)?\b([a-z][a-z0-9-]*):(\d+)\b`)
	rewrite := func(name, value string, self string) (string, error) {
		if u, err := url.Parse(value); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
			if u.Host != "postgres:5432" {
				return "", fmt.Errorf("a PostgreSQL URL on %s", u.Host)
			}
			return dbURL, nil
		}
		var rerr error
		out := hostPort.ReplaceAllStringFunc(value, func(m string) string {
			g := hostPort.FindStringSubmatch(m)
			host, dnsScheme := g[2], g[1] != ""
			switch {
			case host == "redis":
				return redisAddr
			case host == "otel-collector":
				return col.Addr()
			case slices.Contains(run, host) && dnsScheme:
				return "dns://" + dns + "/" + host + ":" + port[host]
			case slices.Contains(run, host):
				var list []string
				for _, a := range hosts[host] {
					list = append(list, net.JoinHostPort(net.IP(a[:]).String(), port[host]))
				}
				return strings.Join(list, ",")
			}
			if _, ok := services[host]; ok {
				rerr = fmt.Errorf("%s names compose service %s, which this test does not run", name, host)
			}
			return m
		})
		// 0.0.0.0 is not matched by the pattern (digits first).
		out = strings.ReplaceAll(out, "0.0.0.0:8080", self)
		// The edge's own: its metrics port, compose's DNS, the services'
		// ports (each service has its own here).
		switch name {
		case "EDGE_METRICS_BIND":
			out = edgeMetrics
		case "EDGE_DNS":
			out = dns
		case "EDGE_LOBBY_PORT":
			out = port["lobby"]
		case "EDGE_MATCH_PORT":
			out = port["match"]
		}
		return out, rerr
	}

	if err := <-built; err != nil {
		t.Fatal(err)
	}
	t.Logf("%v: built", since())
	procs := map[string][]*process{}
	addrs := map[string][]string{}
	for _, name := range startOrder(t, services, run) {
		for i := range replicas[name] {
			self := net.JoinHostPort(net.IP(hosts[name][i][:]).String(), port[name])
			var env []string
			for k, v := range services[name].Environment {
				v, err := interpolate(v, vars)
				if err != nil {
					t.Fatalf("%s: %s: %v", name, k, err)
				}
				if v, err = rewrite(k, v, self); err != nil {
					t.Fatalf("%s: %s: %v", name, k, err)
				}
				env = append(env, k+"="+v)
			}
			sort.Strings(env)
			pname := fmt.Sprintf("%s-%d", name, i+1)
			shown := slices.Clone(env)
			for j, kv := range shown {
				if k, _, _ := strings.Cut(kv, "="); strings.HasSuffix(k, "_TOKEN_KEY") {
					shown[j] = k + "=(the test's key)"
				}
			}
			t.Logf("%v: %s at %s: %s", since(), pname, self, strings.Join(shown, " "))
			if name == "edge" {
				procs[name] = append(procs[name], startProcess(t, pname, haproxy, env, "-db", "-f", edgeConfig))
			} else {
				procs[name] = append(procs[name], startProcess(t, pname, filepath.Join(bin, name), env))
			}
			addrs[name] = append(addrs[name], self)
		}
		// Like compose's depends_on condition service_healthy: the next
		// service starts once every replica of this one serves.
		for i, p := range procs[name] {
			if name == "edge" {
				waitHTTP(ctx, t, p, "http://"+edgeMetrics+"/healthz")
				if err := scaletest.WaitEdgeBackends(nil, edgeMetrics, map[string]int{"lobby": replicas["lobby"], "match": replicas["match"]}, testenv.Deadline(t)); err != nil {
					t.Fatal(err)
				}
			} else {
				p.waitServing(ctx, t, addrs[name][i])
			}
		}
	}
	edge := addrs["edge"][0]
	t.Logf("%v: every process serves", since())

	// Health through the edge (grpc.health.v1 goes to lobby).
	st := &stack{issuer: iss}
	conn := st.client(t, edge)
	if r, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil || r.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health through the edge: %v, %v", r, err)
	}
	// A bot game (lobby → a match replica → a bot replica) and a
	// matchmaking game, both through the edge.
	id, plies := st.playBotGame(ctx, t, conn, conn, 2)
	t.Logf("bot game %s: %d plies through the edge", id, plies)
	playPair(ctx, t, iss, conn, conn)
	t.Logf("%v: games played", since())

	// The recorder writes both games in the background; wait until a match
	// replica has exported it (compose's export interval), then stop
	// everything (each flushes its metrics on SIGTERM).
	if err := col.Wait(ctx, func(c *otelstub.Collector) bool {
		m, ok := c.Last("match", "tabuleiro.match.outbox.written")
		return ok && otelstub.Sum(m) >= 1
	}); err != nil {
		t.Fatalf("no match replica exported tabuleiro.match.outbox.written: %v", err)
	}
	t.Logf("%v: the outbox's metric exported", since())
	// The edge's own series (HAProxy's exporter), for the alerts on it.
	edgeSeries, err := scaletest.EdgeMetrics(edgeMetrics)
	if err != nil {
		t.Fatalf("edge metrics: %v", err)
	}
	// The same games over gRPC-Web and Connect, on HTTP/1.1 and h2c.
	h2c := &http.Transport{Protocols: new(http.Protocols)}
	h2c.Protocols.SetUnencryptedHTTP2(true)
	for _, hc := range []*http.Client{{Transport: &http.Transport{}}, {Transport: h2c}} {
		for _, opts := range [][]connect.ClientOption{nil, {connect.WithGRPCWeb()}} {
			id, plies := st.playBotGameWeb(ctx, t, hc, "http://"+edge, 2, opts...)
			t.Logf("bot game %s: %d plies through the edge (%T, %d options)", id, plies, hc.Transport, len(opts))
		}
	}
	_ = conn.Close() // players gone: the edge's drain has nothing to wait for
	order := startOrder(t, services, run)
	slices.Reverse(order)
	for _, name := range order {
		var wg sync.WaitGroup
		for _, p := range procs[name] {
			wg.Go(func() {
				// compose's stop_signal (the edge's SIGUSR1, HAProxy's
				// soft stop), SIGTERM by default.
				sig := syscall.SIGTERM
				switch s := services[name].StopSignal; s {
				case "", "SIGTERM":
				case "SIGUSR1":
					sig = syscall.SIGUSR1
				default:
					t.Errorf("%s: stop_signal %s: extend the test", name, s)
				}
				t0 := time.Now()
				if err := p.stop(ctx, sig); err != nil {
					t.Errorf("%s: exit after %v: %v", p.name, sig, err)
				}
				t.Logf("%s stopped %v after %v", p.name, time.Since(t0).Round(10*time.Millisecond), sig)
			})
		}
		wg.Wait()
	}

	t.Logf("%v: every process stopped", since())
	have := exportedOTLP(t, col.Metrics())
	var names []string
	for n := range have {
		names = append(names, n)
	}
	slices.Sort(names)
	t.Logf("exported series: %s", strings.Join(names, " "))
	for series := range edgeSeries { // name{label="value",...}
		name, labels, _ := strings.Cut(series, "{")
		if have[name] == nil {
			have[name] = map[string]bool{}
		}
		for _, kv := range strings.Split(strings.TrimSuffix(labels, "}"), ",") {
			if k, _, ok := strings.Cut(kv, "="); ok {
				have[name][k] = true
			}
		}
	}
	holdQueries(t, have, nil)
}
