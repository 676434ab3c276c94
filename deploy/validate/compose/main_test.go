package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repoFile is the stack's real compose file; the test checks it loads and
// keeps every rule, with the committed example env file.
const (
	repoFile = "../../../docker-compose.yml"
	repoEnv  = "../../compose.env.example"
)

func TestRepoComposeFileIsValid(t *testing.T) {
	checked, err := Validate(context.Background(), repoFile, []string{repoEnv})
	if err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	for name := range required {
		found := false
		for _, c := range checked {
			found = found || c == name
		}
		if !found {
			t.Errorf("service %q was not checked", name)
		}
	}
}

// mutate loads the real compose file, applies one textual change, writes it
// next to the real one's relative paths and validates it.
func mutate(t *testing.T, old, new string) error {
	t.Helper()
	src, err := os.ReadFile(repoFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), old) {
		t.Fatalf("docker-compose.yml does not contain %q", old)
	}
	text := strings.Replace(string(src), old, new, 1)
	dir := t.TempDir()
	file := filepath.Join(dir, "docker-compose.yml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	env, err := filepath.Abs(repoEnv)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Validate(context.Background(), file, []string{env})
	return err
}

func TestBrokenComposeFilesFail(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"misspelled service field", "    stop_grace_period: 30s", "    stop_grace_perod: 30s", "stop_grace_perod"},
		{"misspelled healthcheck field", "      retries: 20\n    restart: unless-stopped\n\n  postgres:", "      retires: 20\n    restart: unless-stopped\n\n  postgres:", "retires"},
		{"misspelled top-level key", "\nvolumes:\n", "\nvolume:\n", "volume"},
		{"health check removed", "    healthcheck: *grpc-healthcheck\n    restart: unless-stopped\n\n  # The one public address", "    restart: unless-stopped\n\n  # The one public address", "\"bot\" has no health check"},
		{"store not awaited healthy", "    depends_on:\n      postgres:\n        condition: service_healthy\n    restart: \"no\"", "    depends_on:\n      postgres:\n        condition: service_started\n    restart: \"no\"", "postgres"},
		{"one match replica", "    deploy:\n      replicas: 2\n    # Match", "    deploy:\n      replicas: 1\n    # Match", "want at least 2"},
		{"redis without append-only", `"--appendonly", "yes"`, `"--appendonly", "no"`, "appendonly"},
		{"lobby published again", "    # Not published: clients reach lobby and match through edge.\n", "    ports:\n      - \"127.0.0.1:8081:8080\"\n", "publishes ports"},
		{"edge on every interface", "      - \"127.0.0.1:8080:8080\"", "      - \"8080:8080\"", "loopback"},
		{"edge not published", "    ports:\n      # Published on loopback only: plaintext never leaves the machine.\n      - \"127.0.0.1:8080:8080\"\n", "", "must publish 127.0.0.1:8080:8080"},
		{"edge before match is healthy", "      match:\n        condition: service_healthy\n    restart: unless-stopped\n\n  otel-collector:", "      match:\n        condition: service_completed_successfully\n    restart: unless-stopped\n\n  otel-collector:", "wait for \"match\""},
		{"bot with the default grace", "          memory: 256M\n    stop_grace_period: 30s\n", "          memory: 256M\n", "\"bot\" needs stop_grace_period"},
		{"redis evicting", "\"--maxmemory-policy\", \"noeviction\"", "\"--maxmemory-policy\", \"allkeys-lru\"", "noeviction"},
		{"edge without health check", "      test: [\"CMD\", \"bash\", \"-c\", \"exec 3<>/dev/tcp/127.0.0.1/8404 && printf 'GET /healthz HTTP/1.0\\\\r\\\\n\\\\r\\\\n' >&3 && grep -q '^ok' <&3\"]\n", "      disable: true\n", "\"edge\" has no health check"},
		{"edge stopped with SIGTERM", "    stop_signal: SIGUSR1\n", "", "must stop with SIGUSR1"},
		{"edge without its configuration", "      - ./deploy/haproxy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro\n", "      - ./deploy/haproxy/other.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro\n", "must mount deploy/haproxy/haproxy.cfg"},
		{"missing secret variable", "${TABULEIRO_TOKEN_KEY:?set", "${TABULEIRO_TOKEN_KEY_MISSING:?set", "TABULEIRO_TOKEN_KEY_MISSING"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := mutate(t, tt.old, tt.new)
			if err == nil {
				t.Fatalf("validation passed, want an error mentioning %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not mention %q", err, tt.want)
			}
		})
	}
}

// clusterEnv writes the example env file with its "Redis Cluster" block's
// variables uncommented, except those named in drop, and returns its path.
func clusterEnv(t *testing.T, drop ...string) string {
	t.Helper()
	src, err := os.ReadFile(repoEnv)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	in, found := false, 0
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "# Redis Cluster"):
			in = true
		case in && l == "":
			in = false
		case in && strings.HasPrefix(l, "# TABULEIRO_"):
			name, _, _ := strings.Cut(strings.TrimPrefix(l, "# "), "=")
			found++
			if !slices.Contains(drop, name) {
				lines[i] = strings.TrimPrefix(l, "# ")
			}
		}
	}
	if found != 3 {
		t.Fatalf("compose.env.example's Redis Cluster block has %d variables, want 3 (URL and both WAITs)", found)
	}
	file := filepath.Join(t.TempDir(), "cluster.env")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// The cluster profile as compose.env.example documents it passes; without
// the recorder's WAIT (a game recorded in PostgreSQL that a failover
// brings back unfinished) or the commits' WAIT, it fails.
func TestClusterProfileWaitsForReplicas(t *testing.T) {
	if _, err := Validate(context.Background(), repoFile, []string{clusterEnv(t)}); err != nil {
		t.Fatalf("cluster profile as documented: %v", err)
	}
	for _, v := range []string{"TABULEIRO_RECORDER_WAIT_REPLICAS", "TABULEIRO_REDIS_WAIT_REPLICAS"} {
		_, err := Validate(context.Background(), repoFile, []string{clusterEnv(t, v)})
		want := "MATCH_" + strings.TrimPrefix(v, "TABULEIRO_")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("cluster profile without %s: %v, want an error naming %s", v, err, want)
		}
	}
}
