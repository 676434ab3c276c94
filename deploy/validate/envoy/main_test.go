package main

import (
	"os"
	"strings"
	"testing"
)

// The repository's configurations: the edge's, its copy in the Kubernetes
// base, and the prod overlay's TLS variant.
var repoFiles = []string{
	"../../envoy/envoy.yaml",
	"../../k8s/base/envoy.yaml",
	"../../k8s/overlays/prod/envoy-tls.yaml",
}

func TestRepoConfigsAreValid(t *testing.T) {
	for _, f := range repoFiles {
		t.Run(f, func(t *testing.T) {
			if err := ValidateFile(f); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestBaseCopyMatchesEdgeConfig(t *testing.T) {
	a, err := os.ReadFile(repoFiles[0])
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(repoFiles[1])
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Fatalf("%s differs from %s: copy it", repoFiles[1], repoFiles[0])
	}
}

// TestBrokenConfigsFail changes one thing in a real configuration and
// expects the validator to name it.
func TestBrokenConfigsFail(t *testing.T) {
	tests := []struct {
		name, file, old, new, want string
	}{
		{"misspelled field", repoFiles[0], "stat_prefix: edge", "stats_prefix: edge", "stats_prefix"},
		{"misspelled typed field", repoFiles[0], "explicit_http_config:", "explicit_http_confg:", "explicit_http_confg"},
		{"unknown @type", repoFiles[0], "http_connection_manager.v3.HttpConnectionManager", "http_connection_manager.v3.HttpConnectionManagr", "HttpConnectionManagr"},
		{"bad enum", repoFiles[0], "codec_type: AUTO", "codec_type: HTTP3X", "HTTP3X"},
		{"constraint", repoFiles[0], "- timeout: 2s\n          interval: 5s", "- timeout: 0s\n          interval: 5s", "Timeout"},
		{"match route to lobby", repoFiles[0], "prefix: /tabuleiro.match.v1.MatchService/\n                          route:\n                            cluster: match", "prefix: /tabuleiro.match.v1.MatchService/\n                          route:\n                            cluster: lobby", "to cluster match"},
		{"route timeout", repoFiles[0], "cluster: lobby\n                            timeout: 0s", "cluster: lobby\n                            timeout: 15s", "timeout must be 0s"},
		{"logical dns", repoFiles[0], "type: STRICT_DNS", "type: LOGICAL_DNS", "STRICT_DNS"},
		{"http/1 upstream", repoFiles[0], "explicit_http_config:\n            http2_protocol_options:\n              connection_keepalive:\n                interval: 30s\n                timeout: 10s\n", "explicit_http_config:\n            http_protocol_options: {}\n", "explicit HTTP/2"},
		{"listener port", repoFiles[0], "port_value: 8080\n      filter_chains:", "port_value: 8081\n      filter_chains:", "no listener"},
		{"tls misspelled", repoFiles[2], "trusted_ca:", "trusted_cas:", "trusted_cas"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(src), tt.old) {
				t.Fatalf("%s does not contain %q", tt.file, tt.old)
			}
			err = Validate([]byte(strings.Replace(string(src), tt.old, tt.new, 1)))
			if err == nil {
				t.Fatalf("validation passed, want an error mentioning %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error does not mention %q:\n%v", tt.want, err)
			}
		})
	}
}
