// Command compose validates docker-compose.yml offline with compose-go, the
// library behind `docker compose config`, and then checks the rules of
// deploy/README.md: every long-running service has a health check, services
// wait for healthy stores and for the migration job, match and bot run two
// replicas, Redis persists with append-only on, match on a Redis Cluster
// waits for a replica (WAIT 1), and clients reach lobby and
// match only through the edge (HAProxy with deploy/haproxy/haproxy.cfg,
// soft-stopped with SIGUSR1), published on loopback port 8080.
//
// Usage:
//
//	compose -f docker-compose.yml [-env-file deploy/compose.env.example]
//	compose -rules deploy/prometheus/rules.yml -runbooks deploy/README.md
//
// It exits 1 and prints every problem when the file does not load (schema,
// unknown field, missing variable) or breaks a rule.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

// Required lists the services the stack must define and the replicas each
// needs at least.
var required = map[string]int{
	"redis":          1,
	"postgres":       1,
	"migrate":        1,
	"lobby":          1,
	"match":          2,
	"bot":            2,
	"otel-collector": 1,
	"edge":           1,
}

// Edge is the only service clients reach: HAProxy, routing match.v1
// to match and the rest to lobby. The gRPC services publish
// no port.
const edge = "edge"

// backends are the services behind the edge; it waits until they are healthy.
var backends = []string{"lobby", "match"}

// Stores are the services whose dependents must wait until they are healthy.
var stores = []string{"redis", "postgres"}

func main() {
	file := flag.String("f", "docker-compose.yml", "compose file to validate")
	envFile := flag.String("env-file", "", "env file used for interpolation (default: .env next to the compose file)")
	rules := flag.String("rules", "", "Prometheus rule file whose alerts need runbooks in -runbooks")
	runbooks := flag.String("runbooks", "deploy/README.md", "the operator's guide with a \"### Runbook: <alert>\" section per alert")
	flag.Parse()

	if *rules != "" {
		r, err := os.ReadFile(*rules)
		if err == nil {
			var g []byte
			if g, err = os.ReadFile(*runbooks); err == nil {
				var alerts []string
				alerts, err = CheckRules(r, g)
				fmt.Printf("rules: %s: %d alerts, each with a runbook in %s\n", *rules, len(alerts), *runbooks)
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "rules: %v\n", err)
			os.Exit(1)
		}
		return
	}

	var envFiles []string
	if *envFile != "" {
		envFiles = []string{*envFile}
	}
	checked, err := Validate(context.Background(), *file, envFiles)
	for _, c := range checked {
		fmt.Println("  checked service", c)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "compose: %s: %v\n", *file, err)
		os.Exit(1)
	}
	fmt.Printf("compose: %s: %d services valid\n", *file, len(checked))
}

// Validate loads the compose file with every profile enabled and returns the
// names of the services it checked, or every problem it found.
func Validate(ctx context.Context, file string, envFiles []string) ([]string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	opts, err := cli.NewProjectOptions([]string{abs},
		cli.WithWorkingDirectory(filepath.Dir(abs)),
		cli.WithEnvFiles(envFiles...),
		cli.WithDotEnv,
		cli.WithProfiles([]string{"*"}),
		cli.WithName("tabuleiro"),
	)
	if err != nil {
		return nil, err
	}
	project, err := opts.LoadProject(ctx)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	return Check(project)
}

// Check applies the stack's rules to a loaded project.
func Check(p *types.Project) ([]string, error) {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	for name, n := range required {
		s, ok := p.Services[name]
		if !ok {
			bad("service %q is missing", name)
			continue
		}
		if got := s.GetScale(); got < n {
			bad("service %q runs %d replicas, want at least %d", name, got, n)
		}
	}

	// A service that another waits for with service_completed_successfully
	// is a one-shot job; it needs no health check.
	jobs := map[string]bool{}
	for _, s := range p.Services {
		for dep, d := range s.DependsOn {
			if d.Condition == types.ServiceConditionCompletedSuccessfully {
				jobs[dep] = true
			}
		}
	}

	names := make([]string, 0, len(p.Services))
	for name := range p.Services {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s := p.Services[name]
		if !jobs[name] {
			if s.HealthCheck == nil || s.HealthCheck.Disable || len(s.HealthCheck.Test) == 0 {
				bad("service %q has no health check", name)
			}
		} else if s.Restart != "" && s.Restart != types.RestartPolicyNo && !strings.HasPrefix(s.Restart, types.RestartPolicyOnFailure) {
			bad("one-shot job %q must not restart %q", name, s.Restart)
		}
		for dep, d := range s.DependsOn {
			if d.Condition == types.ServiceConditionStarted {
				bad("service %q depends on %q only being started: wait for service_healthy or service_completed_successfully", name, dep)
			}
			if slices.Contains(stores, dep) && d.Condition != types.ServiceConditionHealthy {
				bad("service %q must wait for store %q with condition service_healthy, has %q", name, dep, d.Condition)
			}
		}
		for k, v := range s.Environment.ToMapping() {
			if strings.HasPrefix(v, "<") || strings.HasPrefix(v, "change-me") {
				bad("service %q: %s is still a placeholder (%q): set it in .env", name, k, v)
			}
		}
	}
	for _, name := range []string{"lobby", "match"} {
		s, ok := p.Services[name]
		if !ok {
			continue
		}
		for _, dep := range []string{"redis", "postgres", "migrate"} {
			if _, ok := s.DependsOn[dep]; !ok {
				bad("service %q must depend on %q", name, dep)
			}
		}
		if s.DependsOn["migrate"].Condition != types.ServiceConditionCompletedSuccessfully {
			bad("service %q must wait for migrate with condition service_completed_successfully", name)
		}
	}
	for _, name := range []string{"lobby", "match", "bot"} {
		if s, ok := p.Services[name]; ok && len(s.Ports) > 0 {
			bad("service %q publishes ports: clients reach the services through %q", name, edge)
		}
	}
	if e, ok := p.Services[edge]; ok {
		for _, dep := range backends {
			if e.DependsOn[dep].Condition != types.ServiceConditionHealthy {
				bad("service %q must wait for %q with condition service_healthy", edge, dep)
			}
		}
		published := false
		for _, port := range e.Ports {
			if port.Target == 8080 && port.Published == "8080" {
				published = true
				if port.HostIP != "127.0.0.1" {
					bad("service %q publishes 8080 on %q: plaintext stays on loopback (127.0.0.1)", edge, port.HostIP)
				}
			}
		}
		if !published {
			bad("service %q must publish 127.0.0.1:8080:8080", edge)
		}
	}
	if r, ok := p.Services["redis"]; ok {
		cmd := strings.Join(r.Command, " ")
		if !strings.Contains(cmd, "--appendonly yes") {
			bad("redis must run with --appendonly yes, command is %q", cmd)
		}
		if !strings.Contains(cmd, "--maxmemory ") || !strings.Contains(cmd, "--maxmemory-policy noeviction") {
			bad("redis must run with --maxmemory and --maxmemory-policy noeviction (live games must not be evicted), command is %q", cmd)
		}
	}
	// The services drain on SIGTERM for up to their shutdown timeout (10 s)
	// and then flush telemetry: compose's default 10 s grace kills them
	// mid-drain.
	for _, name := range []string{"lobby", "match", "bot", edge} {
		if s, ok := p.Services[name]; ok && (s.StopGracePeriod == nil || time.Duration(*s.StopGracePeriod) < 20*time.Second) {
			bad("service %q needs stop_grace_period of at least 20s (shutdown timeout plus the OTLP flush)", name)
		}
	}
	// HAProxy drains on SIGUSR1 (soft stop); SIGTERM is its hard stop,
	// which cuts every call in flight.
	if e, ok := p.Services[edge]; ok {
		if e.StopSignal != "SIGUSR1" {
			bad("service %q must stop with SIGUSR1 (HAProxy's soft stop), not %q", edge, e.StopSignal)
		}
		mounted := false
		for _, v := range e.Volumes {
			mounted = mounted || strings.HasSuffix(v.Source, "/deploy/haproxy/haproxy.cfg") && v.Target == "/usr/local/etc/haproxy/haproxy.cfg"
		}
		if !mounted {
			bad("service %q must mount deploy/haproxy/haproxy.cfg at /usr/local/etc/haproxy/haproxy.cfg", edge)
		}
	}
	// On the cluster profile's Redis Cluster (each primary with a
	// replica), match waits for a primary's replica before it
	// acknowledges a ply and before it records a finished game (WAIT per
	// shard; the recorder's default of 1 is for Sentinel URLs only).
	if m, ok := p.Services["match"]; ok {
		env := m.Environment.ToMapping()
		if strings.HasPrefix(env["MATCH_REDIS_URL"], "redis-cluster://") {
			for _, k := range []string{"MATCH_REDIS_WAIT_REPLICAS", "MATCH_RECORDER_WAIT_REPLICAS"} {
				if n, err := strconv.Atoi(strings.TrimSpace(env[k])); err != nil || n < 1 {
					bad("service %q on a Redis Cluster (MATCH_REDIS_URL %s) needs %s of at least 1 (a primary's replica), has %q", "match", env["MATCH_REDIS_URL"], k, env[k])
				}
			}
		}
	}
	if pg, ok := p.Services["postgres"]; ok && len(pg.Volumes) == 0 {
		bad("postgres has no volume")
	}
	return names, errors.Join(errs...)
}
