package scaletest

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// EdgeConfig returns the path of the edge's HAProxy configuration, the
// file docker-compose.yml mounts into the official image.
func EdgeConfig() (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "deploy", "haproxy", "haproxy.cfg"), nil
}

// ServeDNS answers A queries for each name of hosts (the first label of
// the query) with its addresses, TTL 1 s, as compose's network names every
// replica of a service; any other name is NXDOMAIN. It returns its UDP
// address and stops when the test ends.
func ServeDNS(t testing.TB, hosts map[string][]net.IP) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { _ = pc.Close(); <-done })
	go func() {
		defer close(done)
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			label, _, _ := strings.Cut(q.Name.String(), ".")
			addrs, known := hosts[label]
			rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired}
			if !known {
				rh.RCode = dnsmessage.RCodeNameError
			}
			b := dnsmessage.NewBuilder(nil, rh)
			_ = b.StartQuestions()
			_ = b.Question(q)
			_ = b.StartAnswers()
			if known && q.Type == dnsmessage.TypeA {
				for _, a := range addrs {
					_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET, TTL: 1},
						dnsmessage.AResource{A: [4]byte(a.To4())})
				}
			}
			if out, err := b.Finish(); err == nil {
				_, _ = pc.WriteTo(out, from)
			}
		}
	}()
	return pc.LocalAddr().String()
}

// EdgeEnv is the environment of the edge's configuration: clients on bind,
// metrics on metrics, the services' replicas named by dns.
type EdgeEnv struct {
	Bind, Metrics, DNS   string
	LobbyName, LobbyPort string
	MatchName, MatchPort string
}

func (e EdgeEnv) vars() []string {
	return []string{"EDGE_BIND=" + e.Bind, "EDGE_METRICS_BIND=" + e.Metrics, "EDGE_DNS=" + e.DNS,
		"EDGE_LOBBY_NAME=" + e.LobbyName, "EDGE_LOBBY_PORT=" + e.LobbyPort,
		"EDGE_MATCH_NAME=" + e.MatchName, "EDGE_MATCH_PORT=" + e.MatchPort}
}

// NewEdge returns (not started) Debian's haproxy running the edge's
// configuration with env; its log goes to dir.
func NewEdge(t testing.TB, dir string, env EdgeEnv) *Proc {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		t.Fatalf("haproxy is not installed (scripts/services.sh installs Debian's): %v", err)
	}
	cfg, err := EdgeConfig()
	if err != nil {
		t.Fatal(err)
	}
	return &Proc{Name: "edge", Addr: env.Bind, bin: bin, args: []string{"-db", "-f", cfg},
		env: env.vars(), log: filepath.Join(dir, "edge.log"), dir: dir}
}

// EdgeMetrics reads the edge's Prometheus exporter: every sample line's
// value by its series (name and labels as exposed).
func EdgeMetrics(metricsAddr string) (map[string]float64, error) {
	c := &http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + metricsAddr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("metrics: %s", resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err == nil {
			out[line[:i]] = v
		}
	}
	return out, sc.Err()
}

// WaitEdgeBackends waits until the edge counts want[backend] servers up in
// each backend (its health checks passed), or the deadline passes. edge,
// when not nil, is the edge's process.
func WaitEdgeBackends(edge *Proc, metricsAddr string, want map[string]int, deadline time.Time) error {
	var last string
	for time.Now().Before(deadline) {
		if edge != nil && !edge.Alive() {
			return fmt.Errorf("edge exited (%s)", edge.ExitStatus())
		}
		m, err := EdgeMetrics(metricsAddr)
		ok := err == nil
		last = fmt.Sprint(err)
		for b, n := range want {
			got := m[`haproxy_backend_active_servers{proxy="`+b+`"}`]
			if int(got) != n {
				ok = false
				last = fmt.Sprintf("%s: %v servers up, want %d", b, got, n)
			}
		}
		if ok {
			return nil
		}
		poll(100 * time.Millisecond)
	}
	return fmt.Errorf("edge backends not up when the test's time ran out: %s", last)
}
