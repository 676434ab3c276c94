package main

import (
	"encoding/json"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The edge on Kubernetes is a Gateway API Gateway (deploy/k8s/base/gateway.yaml).
const (
	// GatewayName is the Gateway clients reach.
	GatewayName = "edge"
	// MatchPrefix is the path of every match.v1 call; the rest goes to lobby.
	MatchPrefix = "/tabuleiro.match.v1.MatchService/"
	// AffinityHeader names the match of a call (pkg/platform/affinity.Header).
	AffinityHeader = "tabuleiro-match-id"
	// H2C is the appProtocol (GEP-1911) by which a gateway speaks
	// cleartext HTTP/2 to a Service.
	H2C = "kubernetes.io/h2c"
	// NativeGRPCPattern is the content type of native gRPC calls
	// (application/grpc, application/grpc+proto; not gRPC-Web), which have
	// rules of their own.
	NativeGRPCPattern = "^application/grpc($|[+;].*)"
)

// envoyGateway is Envoy Gateway's API group: the validator knows the one
// kind the manifests use, BackendTrafficPolicy, with the fields they set
// (a field it does not model fails strict decoding: extend the type).
var envoyGateway = schema.GroupVersion{Group: "gateway.envoyproxy.io", Version: "v1alpha1"}

// BackendTrafficPolicy is the part of Envoy Gateway's kind of that name
// that the manifests use: targets and the load balancer.
type BackendTrafficPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              BackendTrafficPolicySpec `json:"spec"`
}

// BackendTrafficPolicySpec is the policy's spec.
type BackendTrafficPolicySpec struct {
	TargetRefs   []gatewayv1.LocalPolicyTargetReference `json:"targetRefs"`
	LoadBalancer *LoadBalancer                          `json:"loadBalancer,omitempty"`
}

// LoadBalancer is the policy's load balancer.
type LoadBalancer struct {
	Type           string          `json:"type"`
	ConsistentHash *ConsistentHash `json:"consistentHash,omitempty"`
}

// ConsistentHash says what is hashed.
type ConsistentHash struct {
	Type      string      `json:"type"`
	Header    *HeaderHash `json:"header,omitempty"`
	TableSize *uint64     `json:"tableSize,omitempty"`
}

// HeaderHash names the hashed header.
type HeaderHash struct {
	Name string `json:"name"`
}

// DeepCopyObject copies through JSON (runtime.Object).
func (p *BackendTrafficPolicy) DeepCopyObject() runtime.Object {
	b, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	var c BackendTrafficPolicy
	if err := json.Unmarshal(b, &c); err != nil {
		panic(err)
	}
	return &c
}

func addEnvoyGateway(s *runtime.Scheme) error {
	s.AddKnownTypes(envoyGateway, &BackendTrafficPolicy{})
	metav1.AddToGroupVersion(s, envoyGateway)
	return nil
}

// checkGateway applies the edge's rules: one Gateway, an HTTPRoute on it
// that sends MatchPrefix to match and everything else to lobby with no
// request timeout (streams last a game), match affinity by a consistent
// hash of AffinityHeader, the backends spoken to in h2c (or TLS, with a
// BackendTLSPolicy, behind an HTTPS listener), and no Service of type
// LoadBalancer or NodePort: clients reach the services only through the
// Gateway.
func checkGateway(o *Objects, bad func(string, ...any)) {
	for _, s := range o.Services {
		if s.Spec.Type == corev1.ServiceTypeLoadBalancer || s.Spec.Type == corev1.ServiceTypeNodePort {
			bad("Service %s: type %s exposes pods past the Gateway: clients reach lobby and match through Gateway %s", s.Name, s.Spec.Type, GatewayName)
		}
	}
	var gw *gatewayv1.Gateway
	for _, g := range o.Gateways {
		if g.Name == GatewayName {
			gw = g
		} else {
			bad("Gateway %s: unexpected: the one Gateway is %s", g.Name, GatewayName)
		}
	}
	if gw == nil {
		bad("Gateway %q is missing", GatewayName)
		return
	}
	if gw.Spec.GatewayClassName == "" {
		bad("Gateway %s: no gatewayClassName", gw.Name)
	}
	if len(gw.Spec.Listeners) == 0 {
		bad("Gateway %s: no listener", gw.Name)
	}
	tls := false
	for _, l := range gw.Spec.Listeners {
		switch l.Protocol {
		case gatewayv1.HTTPProtocolType:
		case gatewayv1.HTTPSProtocolType:
			tls = true
			if l.TLS == nil || len(l.TLS.CertificateRefs) == 0 {
				bad("Gateway %s listener %s: HTTPS without a certificate", gw.Name, l.Name)
			}
		default:
			bad("Gateway %s listener %s: protocol %s, want HTTP or HTTPS", gw.Name, l.Name, l.Protocol)
		}
	}

	var route *gatewayv1.HTTPRoute
	for _, r := range o.HTTPRoutes {
		if slices.ContainsFunc(r.Spec.ParentRefs, func(p gatewayv1.ParentReference) bool { return string(p.Name) == GatewayName }) {
			if route != nil {
				bad("HTTPRoute %s: a second route on Gateway %s (%s routes already)", r.Name, GatewayName, route.Name)
				continue
			}
			route = r
		}
	}
	if route == nil {
		bad("no HTTPRoute attached to Gateway %s", GatewayName)
		return
	}
	where := "HTTPRoute " + route.Name
	routes := map[string]string{}     // path prefix -> Service
	grpcRoutes := map[string]string{} // the same, native gRPC's own rules
	for i, r := range route.Spec.Rules {
		rw := fmt.Sprintf("%s rule %d", where, i)
		if r.Timeouts == nil || r.Timeouts.Request == nil || *r.Timeouts.Request != "0s" {
			bad("%s: timeouts.request must be 0s: Play, Follow and Watch last as long as a game", rw)
		}
		if len(r.BackendRefs) != 1 {
			bad("%s: %d backendRefs, want one Service", rw, len(r.BackendRefs))
			continue
		}
		b := r.BackendRefs[0]
		if (b.Kind != nil && *b.Kind != "Service") || b.Port == nil || *b.Port != GRPCPort {
			bad("%s: backend %s must be a Service on port %d", rw, b.Name, GRPCPort)
		}
		for _, m := range r.Matches {
			native := len(m.Headers) == 1 && m.Headers[0].Name == "content-type" && m.Headers[0].Type != nil &&
				*m.Headers[0].Type == gatewayv1.HeaderMatchRegularExpression && m.Headers[0].Value == NativeGRPCPattern
			if m.Path == nil || m.Path.Type == nil || *m.Path.Type != gatewayv1.PathMatchPathPrefix || m.Path.Value == nil ||
				len(m.Headers) > 0 && !native || len(m.QueryParams) > 0 || m.Method != nil {
				bad("%s: each match must be a path prefix alone, or with the content type of native gRPC (%q) alone", rw, NativeGRPCPattern)
				continue
			}
			if native {
				grpcRoutes[*m.Path.Value] = string(b.Name)
			} else {
				routes[*m.Path.Value] = string(b.Name)
			}
		}
	}
	// Native gRPC on rules of its own: Envoy Gateway pools connections per
	// rule, and a service serves a connection whose first request is
	// native gRPC on grpc-go's transport, which answers nothing else.
	for _, prefix := range []string{MatchPrefix, "/"} {
		if got, want := grpcRoutes[prefix], routes[prefix]; got != want {
			bad("%s: native gRPC under %s goes to %q, the rest to %q: want a rule of its own to the same Service", where, prefix, got, want)
		}
	}
	for prefix, svc := range grpcRoutes {
		if prefix != MatchPrefix && prefix != "/" {
			bad("%s: unexpected path prefix %s (native gRPC, to %s)", where, prefix, svc)
		}
	}
	if got := routes[MatchPrefix]; got != "match" {
		bad("%s: %s goes to %q, want Service match", where, MatchPrefix, got)
	}
	if got := routes["/"]; got != "lobby" {
		bad("%s: the rest (/) goes to %q, want Service lobby", where, got)
	}
	for prefix, svc := range routes {
		if prefix != MatchPrefix && prefix != "/" {
			bad("%s: unexpected path prefix %s (to %s)", where, prefix, svc)
		}
	}

	if !slices.ContainsFunc(o.TrafficPolicies, func(p *BackendTrafficPolicy) bool {
		lb := p.Spec.LoadBalancer
		return slices.ContainsFunc(p.Spec.TargetRefs, func(t gatewayv1.LocalPolicyTargetReference) bool {
			return t.Group == gatewayv1.GroupName && t.Kind == "HTTPRoute" && string(t.Name) == route.Name
		}) && lb != nil && lb.Type == "ConsistentHash" && lb.ConsistentHash != nil &&
			lb.ConsistentHash.Type == "Header" && lb.ConsistentHash.Header != nil && lb.ConsistentHash.Header.Name == AffinityHeader
	}) {
		bad("%s: no BackendTrafficPolicy hashes the %s header (match affinity: both seats of a game on one pod)", where, AffinityHeader)
	}

	for _, name := range []string{"lobby", "match"} {
		i := slices.IndexFunc(o.Services, func(s *corev1.Service) bool { return s.Name == name })
		if i < 0 {
			continue // the Deployment's own check says so
		}
		s := o.Services[i]
		backendTLS := slices.ContainsFunc(o.BackendTLSPolicies, func(p *gatewayv1.BackendTLSPolicy) bool {
			return slices.ContainsFunc(p.Spec.TargetRefs, func(t gatewayv1.LocalPolicyTargetReferenceWithSectionName) bool {
				return t.Kind == "Service" && string(t.Name) == name
			}) && len(p.Spec.Validation.CACertificateRefs) > 0 && p.Spec.Validation.Hostname != ""
		})
		switch {
		case tls && !backendTLS:
			bad("Service %s: the Gateway serves HTTPS but no BackendTLSPolicy verifies %s", name, name)
		case !tls && backendTLS:
			bad("Service %s: a BackendTLSPolicy behind a plaintext Gateway", name)
		}
		for _, p := range s.Spec.Ports {
			if p.Port != GRPCPort {
				continue
			}
			h2c := p.AppProtocol != nil && *p.AppProtocol == H2C
			if !backendTLS && !h2c {
				bad("Service %s: port %d needs appProtocol %s: the Gateway must speak HTTP/2 to it for gRPC", name, p.Port, H2C)
			}
			if backendTLS && h2c {
				bad("Service %s: appProtocol %s with a BackendTLSPolicy: cleartext and TLS at once", name, H2C)
			}
		}
	}
}
