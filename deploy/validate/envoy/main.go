// Command envoy validates Tabuleiro's Envoy configurations offline: each
// file is decoded strictly against Envoy's v3 Bootstrap proto
// (go-control-plane), so an unknown or misspelled field, a wrong "@type" or
// a bad value fails, then the protos' own constraints are checked
// (ValidateAll), then the edge's rules:
//
//   - a listener on 0.0.0.0:8080 whose routes send
//     "/tabuleiro.match.v1.MatchService/" to cluster match and everything
//     else ("/") to cluster lobby, with no route timeout (streams are long);
//   - clusters lobby and match are STRICT_DNS, ROUND_ROBIN, over port 8080,
//     with explicit HTTP/2 upstream;
//   - an admin address on port 9901 (the /ready probe).
//
// Usage:
//
//	envoy deploy/envoy/envoy.yaml deploy/k8s/overlays/prod/envoy-tls.yaml
package main

import (
	"errors"
	"fmt"
	"os"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	httpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"sigs.k8s.io/yaml"

	// Types named by "@type" in the configurations.
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
)

// MatchPrefix is the gRPC path prefix of match.v1; everything else goes to lobby.
const MatchPrefix = "/tabuleiro.match.v1.MatchService/"

const (
	listenPort = 8080
	adminPort  = 9901
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: envoy FILE...")
		os.Exit(2)
	}
	status := 0
	for _, f := range os.Args[1:] {
		if err := ValidateFile(f); err != nil {
			fmt.Fprintf(os.Stderr, "envoy: %s: %v\n", f, err)
			status = 1
			continue
		}
		fmt.Printf("envoy: %s: valid\n", f)
	}
	os.Exit(status)
}

// ValidateFile reads and validates one configuration.
func ValidateFile(file string) error {
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return Validate(src)
}

// Validate decodes a YAML bootstrap strictly and applies the rules.
func Validate(src []byte) error {
	b, err := Decode(src)
	if err != nil {
		return err
	}
	return Check(b)
}

// Decode converts YAML to JSON and unmarshals it into a Bootstrap, rejecting
// unknown fields, then checks the protos' constraints.
func Decode(src []byte) (*bootstrapv3.Bootstrap, error) {
	js, err := yaml.YAMLToJSON(src)
	if err != nil {
		return nil, fmt.Errorf("yaml: %w", err)
	}
	b := &bootstrapv3.Bootstrap{}
	if err := (protojson.UnmarshalOptions{}).Unmarshal(js, b); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if err := b.ValidateAll(); err != nil {
		return nil, fmt.Errorf("constraints: %w", err)
	}
	return b, nil
}

// Check applies the edge's rules to a decoded bootstrap.
func Check(b *bootstrapv3.Bootstrap) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if a := b.GetAdmin().GetAddress().GetSocketAddress(); a.GetPortValue() != adminPort {
		bad("admin must listen on port %d (the /ready probe), has %d", adminPort, a.GetPortValue())
	}

	var routes []*routev3.Route
	listeners := b.GetStaticResources().GetListeners()
	found := false
	for _, l := range listeners {
		a := l.GetAddress().GetSocketAddress()
		if a.GetAddress() != "0.0.0.0" || a.GetPortValue() != listenPort {
			continue
		}
		found = true
		for _, fc := range l.GetFilterChains() {
			for _, f := range fc.GetFilters() {
				hcm := &hcmv3.HttpConnectionManager{}
				if f.GetTypedConfig() == nil || f.GetTypedConfig().UnmarshalTo(hcm) != nil {
					continue
				}
				if hcm.GetCodecType() != hcmv3.HttpConnectionManager_AUTO {
					bad("listener %s: codec_type must be AUTO, is %s", l.GetName(), hcm.GetCodecType())
				}
				for _, vh := range hcm.GetRouteConfig().GetVirtualHosts() {
					routes = append(routes, vh.GetRoutes()...)
				}
			}
		}
	}
	if !found {
		bad("no listener on 0.0.0.0:%d", listenPort)
	}
	checkRoutes(routes, bad)

	clusters := map[string]*clusterv3.Cluster{}
	for _, c := range b.GetStaticResources().GetClusters() {
		clusters[c.GetName()] = c
	}
	for _, name := range []string{"lobby", "match"} {
		c := clusters[name]
		if c == nil {
			bad("cluster %q is missing", name)
			continue
		}
		checkCluster(name, c, bad)
	}
	return errors.Join(errs...)
}

// checkRoutes wants the match prefix routed to match before a catch-all "/"
// to lobby, both without a route timeout.
func checkRoutes(routes []*routev3.Route, bad func(string, ...any)) {
	matchAt, lobbyAt := -1, -1
	for i, r := range routes {
		p := r.GetMatch().GetPrefix()
		c := r.GetRoute().GetCluster()
		switch {
		case p == MatchPrefix && c == "match" && matchAt < 0:
			matchAt = i
		case p == "/" && c == "lobby" && lobbyAt < 0:
			lobbyAt = i
		default:
			continue
		}
		if t := r.GetRoute().GetTimeout(); t == nil || t.AsDuration() != 0 {
			bad("route %q: timeout must be 0s so that long-lived streams are not cut", p)
		}
	}
	if matchAt < 0 {
		bad("no route sends prefix %q to cluster match", MatchPrefix)
	}
	if lobbyAt < 0 {
		bad("no route sends prefix \"/\" to cluster lobby")
	}
	if matchAt >= 0 && lobbyAt >= 0 && lobbyAt < matchAt {
		bad("the catch-all route to lobby comes before the match route: match calls would reach lobby")
	}
}

func checkCluster(name string, c *clusterv3.Cluster, bad func(string, ...any)) {
	if c.GetType() != clusterv3.Cluster_STRICT_DNS {
		bad("cluster %s: type must be STRICT_DNS (every replica behind the name), is %s", name, c.GetType())
	}
	if c.GetLbPolicy() != clusterv3.Cluster_ROUND_ROBIN {
		bad("cluster %s: lb_policy must be ROUND_ROBIN, is %s", name, c.GetLbPolicy())
	}
	ok := false
	for _, e := range c.GetLoadAssignment().GetEndpoints() {
		for _, le := range e.GetLbEndpoints() {
			a := le.GetEndpoint().GetAddress().GetSocketAddress()
			ok = ok || (a.GetAddress() == name && a.GetPortValue() == listenPort)
		}
	}
	if !ok {
		bad("cluster %s: no endpoint %s:%d", name, name, listenPort)
	}
	opts := &httpv3.HttpProtocolOptions{}
	a := c.GetTypedExtensionProtocolOptions()["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]
	if a == nil || a.UnmarshalTo(opts) != nil || opts.GetExplicitHttpConfig().GetHttp2ProtocolOptions() == nil {
		bad("cluster %s: upstream must be explicit HTTP/2 (typed_extension_protocol_options explicit_http_config http2_protocol_options)", name)
	}
}
