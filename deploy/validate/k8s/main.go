// Command k8s strictly decodes rendered Kubernetes manifests (the output of
// `kubectl kustomize deploy/k8s/overlays/<x>`) against the k8s.io/api types
// and checks Tabuleiro's deployment rules:
//
//   - every document decodes strictly: an unknown or misspelled field, a
//     duplicate field or an unknown kind is an error;
//   - every Deployment container has readiness and liveness probes through
//     grpc.health.v1 (a native grpc probe, or an exec of grpc_health_probe
//     where the server speaks TLS), and cpu and memory requests and limits;
//     pods run as non-root;
//   - each Deployment has a headless Service (clusterIP None, so that
//     gRPC clients balance over every pod); every Deployment has a
//     PodDisruptionBudget selecting its pods;
//   - the edge is a Gateway API Gateway with one HTTPRoute: match.v1 to
//     match, the rest to lobby, no request timeout, match affinity by a
//     consistent hash of the tabuleiro-match-id header (Envoy Gateway's
//     BackendTrafficPolicy), h2c to the backends or TLS verified by a
//     BackendTLSPolicy behind an HTTPS listener; no Service is of type
//     LoadBalancer or NodePort (gateway.go);
//   - bot and match have a HorizontalPodAutoscaler;
//   - match has a preStop hook and a termination grace period to drain;
//   - the collector (otel-collector) is the other exception: HTTP GET / on
//     its health port 13133, a plain ClusterIP Service;
//   - every Deployment and StatefulSet pod sets automountServiceAccountToken
//     false (nothing calls the Kubernetes API); every Deployment container
//     of lobby, match and bot has a preStop hook;
//   - a PodDisruptionBudget never blocks a drain: minAvailable below the
//     Deployment's replicas (or the HPA's minimum);
//   - NetworkPolicies: a default deny of ingress, and a policy that selects
//     each Deployment's and StatefulSet's pods;
//   - images: no "latest" or moving "-latest" tag (a prod overlay pins
//     versions; see deploy/README.md for the digest policy);
//   - no Secret is committed: the output holds no Secret, every secret
//     reference names a Secret created outside the manifests, and secret
//     settings (keys, passwords, store URLs) come only from Secrets.
//
// Usage:
//
//	kubectl kustomize deploy/k8s/overlays/dev | k8s -name dev
//	k8s -name dev rendered.yaml
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Services are Tabuleiro's Deployments; each must exist in every overlay.
var services = []string{"lobby", "match", "bot"}

// HTTPProbed are the Deployments whose probes are HTTP GETs rather than
// grpc.health.v1, with the path and port they must use.
var httpProbed = map[string]HTTPProbe{Collector: {Path: "/", Port: 13133}}

// Collector is the OpenTelemetry Collector's Deployment.
const Collector = "otel-collector"

// drained are the Deployments that must leave the endpoints before
// SIGTERM (a preStop hook).
var drained = []string{"lobby", "match", "bot"}

// HTTPProbe is an allowed HTTP GET probe.
type HTTPProbe struct {
	Path string
	Port int32
}

// Autoscaled are the services that need a HorizontalPodAutoscaler.
var autoscaled = []string{"match", "bot"}

// GRPCPort is the port every service serves gRPC and grpc.health.v1 on.
const GRPCPort = 8080

// secretName matches environment variable names and ConfigMap keys that
// hold secrets: they must come from a Secret.
var secretName = regexp.MustCompile(`(?i)(TOKEN_KEY|PASSWORD|DATABASE_URL|REDIS_URL|_SECRET|PRIVATE_KEY)`)

func main() {
	name := flag.String("name", "manifests", "name used in messages (e.g. the overlay)")
	flag.Parse()
	var in io.Reader = os.Stdin
	if flag.NArg() == 1 && flag.Arg(0) != "-" {
		f, err := os.Open(flag.Arg(0))
		if err != nil {
			fmt.Fprintln(os.Stderr, "k8s:", err)
			os.Exit(2)
		}
		defer f.Close()
		in = f
	}
	checked, err := Validate(in)
	for _, c := range checked {
		fmt.Printf("  checked %s\n", c)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "k8s: %s: %v\n", *name, err)
		os.Exit(1)
	}
	fmt.Printf("k8s: %s: %d objects valid\n", *name, len(checked))
}

// Objects is a decoded set of manifests.
type Objects struct {
	Deployments  []*appsv1.Deployment
	StatefulSets []*appsv1.StatefulSet
	Services     []*corev1.Service
	ConfigMaps   []*corev1.ConfigMap
	Secrets      []*corev1.Secret
	PDBs         []*policyv1.PodDisruptionBudget
	HPAs         []*autoscalingv2.HorizontalPodAutoscaler
	NetPols      []*networkingv1.NetworkPolicy

	Gateways           []*gatewayv1.Gateway
	HTTPRoutes         []*gatewayv1.HTTPRoute
	BackendTLSPolicies []*gatewayv1.BackendTLSPolicy
	TrafficPolicies    []*BackendTrafficPolicy
}

// newScheme knows the API groups the manifests may use: core, apps,
// policy, autoscaling, networking, the Gateway API (v1) and Envoy Gateway's
// BackendTrafficPolicy. A kind of any other group fails to decode. (It
// replaces client-go's scheme, which compiles every group of k8s.io/api:
// a third more CPU time for a cold build, vet and test of this module.)
func newScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, policyv1.AddToScheme, autoscalingv2.AddToScheme, networkingv1.AddToScheme,
		gatewayv1.Install, addEnvoyGateway,
	} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Decode strictly decodes a multi-document YAML stream. It returns the
// objects and a "Kind/name" line for each.
func Decode(in io.Reader) (*Objects, []string, error) {
	sch, err := newScheme()
	if err != nil {
		return nil, nil, err
	}
	codecs := serializer.NewCodecFactory(sch, serializer.EnableStrict)
	dec := codecs.UniversalDeserializer()
	r := utilyaml.NewYAMLReader(bufio.NewReader(in))
	objs := &Objects{}
	var names []string
	var errs []error
	for i := 0; ; i++ {
		doc, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("document %d: %w", i, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 || isComment(doc) {
			continue
		}
		obj, gvk, err := dec.Decode(doc, nil, nil)
		if err != nil {
			// In strict mode the object decodes but the error lists every
			// unknown or duplicate field: it is still a failure.
			errs = append(errs, fmt.Errorf("document %d (%s): %w", i, docName(doc), err))
			continue
		}
		m, ok := obj.(metav1.Object)
		if !ok {
			errs = append(errs, fmt.Errorf("document %d: %s has no metadata", i, gvk))
			continue
		}
		names = append(names, gvk.Kind+"/"+m.GetName())
		switch o := obj.(type) {
		case *appsv1.Deployment:
			objs.Deployments = append(objs.Deployments, o)
		case *appsv1.StatefulSet:
			objs.StatefulSets = append(objs.StatefulSets, o)
		case *corev1.Service:
			objs.Services = append(objs.Services, o)
		case *corev1.ConfigMap:
			objs.ConfigMaps = append(objs.ConfigMaps, o)
		case *corev1.Secret:
			objs.Secrets = append(objs.Secrets, o)
		case *policyv1.PodDisruptionBudget:
			objs.PDBs = append(objs.PDBs, o)
		case *autoscalingv2.HorizontalPodAutoscaler:
			objs.HPAs = append(objs.HPAs, o)
		case *networkingv1.NetworkPolicy:
			objs.NetPols = append(objs.NetPols, o)
		case *gatewayv1.Gateway:
			objs.Gateways = append(objs.Gateways, o)
		case *gatewayv1.HTTPRoute:
			objs.HTTPRoutes = append(objs.HTTPRoutes, o)
		case *gatewayv1.BackendTLSPolicy:
			objs.BackendTLSPolicies = append(objs.BackendTLSPolicies, o)
		case *BackendTrafficPolicy:
			objs.TrafficPolicies = append(objs.TrafficPolicies, o)
		case *corev1.Namespace, *corev1.ServiceAccount:
		default:
			errs = append(errs, fmt.Errorf("document %d: unexpected kind %s %q: extend the validator", i, gvk, m.GetName()))
		}
	}
	return objs, names, errors.Join(errs...)
}

func isComment(doc []byte) bool {
	for _, line := range strings.Split(string(doc), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			return false
		}
	}
	return true
}

// docName finds "kind" and "metadata.name" in a document that did not
// decode, for the message.
func docName(doc []byte) string {
	kind, name := "?", "?"
	inMeta := false
	for _, line := range strings.Split(string(doc), "\n") {
		switch {
		case strings.HasPrefix(line, "kind:"):
			kind = strings.TrimSpace(strings.TrimPrefix(line, "kind:"))
		case strings.HasPrefix(line, "metadata:"):
			inMeta = true
		case inMeta && strings.HasPrefix(line, "  name:"):
			name = strings.TrimSpace(strings.TrimPrefix(line, "  name:"))
			inMeta = false
		}
	}
	return kind + "/" + name
}

// Validate decodes the stream and applies every rule.
func Validate(in io.Reader) ([]string, error) {
	objs, names, err := Decode(in)
	if err != nil {
		return names, err
	}
	return names, Check(objs)
}

// Check applies the deployment rules to decoded objects.
func Check(o *Objects) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	deps := map[string]*appsv1.Deployment{}
	for _, d := range o.Deployments {
		deps[d.Name] = d
	}
	for _, s := range services {
		if deps[s] == nil {
			bad("Deployment %q is missing", s)
		}
	}

	for _, s := range o.Secrets {
		bad("Secret %q is committed in the manifests: create it with kubectl (deploy/README.md)", s.Name)
	}
	for _, cm := range o.ConfigMaps {
		for k := range cm.Data {
			if secretName.MatchString(k) {
				bad("ConfigMap %q holds %q: secrets belong in a Secret", cm.Name, k)
			}
		}
	}

	names := make([]string, 0, len(deps))
	for n := range deps {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		d := deps[n]
		where := "Deployment " + n
		spec := d.Spec.Template.Spec
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil || sel.Empty() {
			bad("%s: bad or empty selector", where)
			continue
		}
		podLabels := labels.Set(d.Spec.Template.Labels)
		if !sel.Matches(podLabels) {
			bad("%s: selector does not match its pod template labels", where)
		}
		if sc := spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
			bad("%s: pod securityContext.runAsNonRoot must be true", where)
		}
		if len(spec.Containers) == 0 {
			bad("%s: no containers", where)
		}
		for _, c := range spec.Containers {
			cw := fmt.Sprintf("%s container %s", where, c.Name)
			var hp *HTTPProbe
			if p, ok := httpProbed[n]; ok {
				hp = &p
			}
			checkProbe(cw+" readinessProbe", c, c.ReadinessProbe, hp, bad)
			checkProbe(cw+" livenessProbe", c, c.LivenessProbe, hp, bad)
			checkResources(cw, c.Resources, bad)
			checkEnv(cw, c, bad)
			if n != Collector && !hasPort(c, GRPCPort) {
				bad("%s: does not expose containerPort %d", cw, GRPCPort)
			}
			if slices.Contains(drained, n) && (c.Lifecycle == nil || c.Lifecycle.PreStop == nil) {
				bad("%s: no preStop hook: the pod must leave the endpoints before SIGTERM", cw)
			}
			checkImage(cw, c.Image, bad)
			if c.SecurityContext == nil || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
				bad("%s: securityContext.allowPrivilegeEscalation must be false", cw)
			}
		}
		checkSecretVolumes(where, spec, bad)
		checkMountedSecretsReadable(where, spec, bad)

		checkPod(where, spec, podLabels, o.NetPols, bad)
		if n == Collector {
			if !slices.ContainsFunc(o.Services, func(s *corev1.Service) bool { return selects(s.Spec.Selector, podLabels) }) {
				bad("%s: no Service selects its pods", where)
			}
		} else if !slices.ContainsFunc(o.Services, func(s *corev1.Service) bool {
			return s.Spec.ClusterIP == corev1.ClusterIPNone && selects(s.Spec.Selector, podLabels) &&
				slices.ContainsFunc(s.Spec.Ports, func(p corev1.ServicePort) bool { return p.Port == GRPCPort })
		}) {
			bad("%s: no headless Service (clusterIP: None, port %d) selects its pods", where, GRPCPort)
		}
		i := slices.IndexFunc(o.PDBs, func(p *policyv1.PodDisruptionBudget) bool {
			s, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
			return err == nil && !s.Empty() && s.Matches(podLabels) &&
				(p.Spec.MinAvailable != nil || p.Spec.MaxUnavailable != nil)
		})
		if i < 0 {
			bad("%s: no PodDisruptionBudget selects its pods", where)
		} else if pdb := o.PDBs[i]; pdb.Spec.MinAvailable != nil {
			replicas := int32(1)
			if d.Spec.Replicas != nil {
				replicas = *d.Spec.Replicas
			}
			if h := hpaOf(o.HPAs, n); h != nil && h.Spec.MinReplicas != nil {
				replicas = *h.Spec.MinReplicas
			}
			if min := pdb.Spec.MinAvailable.IntValue(); pdb.Spec.MinAvailable.Type == 0 && int32(min) >= replicas {
				bad("%s: PodDisruptionBudget %s minAvailable %d with %d replica(s) blocks kubectl drain: use maxUnavailable: 1", where, pdb.Name, min, replicas)
			}
		}
	}

	checkGateway(o, bad)

	for _, n := range autoscaled {
		i := slices.IndexFunc(o.HPAs, func(h *autoscalingv2.HorizontalPodAutoscaler) bool {
			r := h.Spec.ScaleTargetRef
			return r.Kind == "Deployment" && r.Name == n
		})
		if i < 0 {
			bad("Deployment %s: no HorizontalPodAutoscaler", n)
			continue
		}
		h := o.HPAs[i]
		if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 2 {
			bad("HorizontalPodAutoscaler %s: minReplicas must be at least 2", h.Name)
		}
		if h.Spec.MinReplicas != nil && h.Spec.MaxReplicas <= *h.Spec.MinReplicas {
			bad("HorizontalPodAutoscaler %s: maxReplicas %d must exceed minReplicas", h.Name, h.Spec.MaxReplicas)
		}
		if len(h.Spec.Metrics) == 0 {
			bad("HorizontalPodAutoscaler %s: no metrics", h.Name)
		}
	}

	if d := deps["match"]; d != nil {
		spec := d.Spec.Template.Spec
		if spec.TerminationGracePeriodSeconds == nil || *spec.TerminationGracePeriodSeconds < 30 {
			bad("Deployment match: terminationGracePeriodSeconds must be at least 30 so that games drain")
		}
		for _, c := range spec.Containers {
			if c.Lifecycle == nil || c.Lifecycle.PreStop == nil {
				bad("Deployment match container %s: no preStop hook to drain", c.Name)
			}
		}
	}

	for _, s := range o.StatefulSets {
		where := "StatefulSet " + s.Name
		for _, c := range s.Spec.Template.Spec.Containers {
			cw := fmt.Sprintf("%s container %s", where, c.Name)
			if c.ReadinessProbe == nil || c.LivenessProbe == nil {
				bad("%s: needs readiness and liveness probes", cw)
			}
			checkResources(cw, c.Resources, bad)
			checkEnv(cw, c, bad)
		}
		checkSecretVolumes(where, s.Spec.Template.Spec, bad)
		checkMountedSecretsReadable(where, s.Spec.Template.Spec, bad)
		checkPod(where, s.Spec.Template.Spec, labels.Set(s.Spec.Template.Labels), o.NetPols, bad)
		for _, c := range s.Spec.Template.Spec.Containers {
			checkImage(fmt.Sprintf("%s container %s", where, c.Name), c.Image, bad)
		}
	}
	if !slices.ContainsFunc(o.NetPols, func(p *networkingv1.NetworkPolicy) bool {
		return len(p.Spec.PodSelector.MatchLabels) == 0 && len(p.Spec.PodSelector.MatchExpressions) == 0 &&
			slices.Contains(p.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) && len(p.Spec.Ingress) == 0
	}) {
		bad("no default-deny NetworkPolicy (podSelector {}, policyTypes [Ingress], no ingress rule)")
	}
	return errors.Join(errs...)
}

// namedPort resolves a container port name, 0 if none has it.
func namedPort(cs []corev1.Container, name string) int32 {
	for _, c := range cs {
		for _, p := range c.Ports {
			if p.Name == name {
				return p.ContainerPort
			}
		}
	}
	return 0
}

// checkProbe accepts a native grpc probe on the gRPC port, or an exec of
// grpc_health_probe (needed when the server speaks TLS: kubelet's grpc probe
// is plaintext only); for a Deployment listed in httpProbed (hp not nil),
// only an HTTP GET of hp's path on hp's port.
func checkProbe(where string, c corev1.Container, p *corev1.Probe, hp *HTTPProbe, bad func(string, ...any)) {
	if p == nil {
		bad("%s: missing", where)
		return
	}
	n := 0
	for _, set := range []bool{p.GRPC != nil, p.Exec != nil, p.HTTPGet != nil, p.TCPSocket != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		bad("%s: has %d handlers, want exactly one (a patch that adds exec must remove grpc with grpc: null)", where, n)
		return
	}
	if hp != nil {
		if p.HTTPGet == nil {
			bad("%s: must be an HTTP GET of %s on port %d", where, hp.Path, hp.Port)
			return
		}
		port := int32(p.HTTPGet.Port.IntValue())
		if port == 0 {
			port = namedPort([]corev1.Container{c}, p.HTTPGet.Port.String())
		}
		if p.HTTPGet.Path != hp.Path || port != hp.Port {
			bad("%s: HTTP GET %s on port %s (%d), want %s on port %d", where, p.HTTPGet.Path, p.HTTPGet.Port.String(), port, hp.Path, hp.Port)
		}
		return
	}
	switch {
	case p.GRPC != nil:
		if p.GRPC.Port != GRPCPort {
			bad("%s: grpc probe on port %d, want %d", where, p.GRPC.Port, GRPCPort)
		}
	case p.Exec != nil && len(p.Exec.Command) > 0 && path.Base(p.Exec.Command[0]) == "grpc_health_probe":
		if !slices.ContainsFunc(p.Exec.Command, func(a string) bool {
			return strings.HasPrefix(a, "-addr=") && strings.HasSuffix(a, fmt.Sprint(":", GRPCPort))
		}) {
			bad("%s: grpc_health_probe must check -addr=…:%d", where, GRPCPort)
		}
	default:
		bad("%s: must use grpc.health.v1 (a grpc probe or grpc_health_probe)", where)
	}
}

func checkResources(where string, r corev1.ResourceRequirements, bad func(string, ...any)) {
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, okReq := r.Requests[res]
		lim, okLim := r.Limits[res]
		if !okReq {
			bad("%s: no %s request", where, res)
		}
		if !okLim {
			bad("%s: no %s limit", where, res)
		}
		if okReq && okLim && req.Cmp(lim) > 0 {
			bad("%s: %s request %s exceeds limit %s", where, res, req.String(), lim.String())
		}
	}
}

// checkEnv requires secret settings to come from a Secret and every Secret
// reference to be mandatory.
func checkEnv(where string, c corev1.Container, bad func(string, ...any)) {
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			if e.ValueFrom.SecretKeyRef.Optional != nil && *e.ValueFrom.SecretKeyRef.Optional {
				bad("%s: env %s: secret reference must not be optional", where, e.Name)
			}
			continue
		}
		if secretName.MatchString(e.Name) {
			bad("%s: env %s must come from a Secret (valueFrom.secretKeyRef), not a literal or ConfigMap", where, e.Name)
		}
	}
}

func checkSecretVolumes(where string, spec corev1.PodSpec, bad func(string, ...any)) {
	for _, v := range spec.Volumes {
		if v.Secret != nil && v.Secret.SecretName == "" {
			bad("%s: volume %s names no Secret", where, v.Name)
		}
	}
}

func hasPort(c corev1.Container, port int32) bool {
	return slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool { return p.ContainerPort == port })
}

func selects(selector map[string]string, pod labels.Set) bool {
	return len(selector) > 0 && labels.SelectorFromSet(selector).Matches(pod)
}

// checkMountedSecretsReadable works out, for every container that mounts a
// Secret volume, whether the user the container runs as can read the files
// the kubelet writes there: a Secret volume's files belong to root, group
// fsGroup when the pod sets one (root otherwise), with the item's mode or
// the volume's defaultMode (0644 when unset). A process that cannot read its
// TLS key pair crash-loops ("permission denied"), and an exec probe that
// cannot read ca.crt fails: both run as the container's user.
func checkMountedSecretsReadable(where string, spec corev1.PodSpec, bad func(string, ...any)) {
	vols := map[string]*corev1.SecretVolumeSource{}
	for _, v := range spec.Volumes {
		if v.Secret != nil {
			vols[v.Name] = v.Secret
		}
	}
	all := append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...)
	for _, c := range all {
		for _, m := range c.VolumeMounts {
			sv := vols[m.Name]
			if sv == nil {
				continue
			}
			uid, gids := runsAs(spec.SecurityContext, c.SecurityContext)
			if uid == nil {
				bad("%s container %s: mounts Secret %s but runs as the image's user: set runAsUser so that its access can be checked", where, c.Name, sv.SecretName)
				continue
			}
			var fileGID int64
			if sc := spec.SecurityContext; sc != nil && sc.FSGroup != nil {
				fileGID = *sc.FSGroup
			}
			modes := map[string]int32{}
			def := int32(0o644)
			if sv.DefaultMode != nil {
				def = *sv.DefaultMode
			}
			if len(sv.Items) == 0 {
				modes["every key"] = def
			}
			for _, it := range sv.Items {
				mode := def
				if it.Mode != nil {
					mode = *it.Mode
				}
				modes[it.Key] = mode
			}
			for key, mode := range modes {
				if !canRead(*uid, gids, 0, fileGID, mode) {
					bad("%s container %s: cannot read %s of Secret %s mounted at %s: files are uid 0 gid %d mode %04o, the container runs as uid %d groups %v (set the pod's securityContext.fsGroup to a group of the container, or a mode readable by it)",
						where, c.Name, key, sv.SecretName, m.MountPath, fileGID, mode, *uid, gids)
				}
			}
		}
	}
}

// runsAs is the container's uid (nil when neither the container nor the pod
// sets one) and its groups: runAsGroup, fsGroup and supplementalGroups.
func runsAs(pod *corev1.PodSecurityContext, c *corev1.SecurityContext) (*int64, []int64) {
	var uid *int64
	var gids []int64
	if pod != nil {
		uid = pod.RunAsUser
		if pod.RunAsGroup != nil {
			gids = append(gids, *pod.RunAsGroup)
		}
		if pod.FSGroup != nil {
			gids = append(gids, *pod.FSGroup)
		}
		gids = append(gids, pod.SupplementalGroups...)
	}
	if c != nil {
		if c.RunAsUser != nil {
			uid = c.RunAsUser
		}
		if c.RunAsGroup != nil {
			gids = append([]int64{*c.RunAsGroup}, gids...)
		}
	}
	return uid, gids
}

// canRead applies the POSIX permission check for reading a file.
func canRead(uid int64, gids []int64, fileUID, fileGID int64, mode int32) bool {
	switch {
	case uid == 0:
		return true
	case uid == fileUID:
		return mode&0o400 != 0
	case slices.Contains(gids, fileGID):
		return mode&0o040 != 0
	default:
		return mode&0o004 != 0
	}
}

// checkPod applies the pod-wide rules: no service-account token, and a
// NetworkPolicy (other than the default deny) that selects the pods.
func checkPod(where string, spec corev1.PodSpec, pod labels.Set, pols []*networkingv1.NetworkPolicy, bad func(string, ...any)) {
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		bad("%s: automountServiceAccountToken must be false (nothing calls the Kubernetes API)", where)
	}
	if !slices.ContainsFunc(pols, func(p *networkingv1.NetworkPolicy) bool {
		s, err := metav1.LabelSelectorAsSelector(&p.Spec.PodSelector)
		return err == nil && !s.Empty() && s.Matches(pod) && len(p.Spec.Ingress) > 0
	}) {
		bad("%s: no NetworkPolicy allows ingress to its pods", where)
	}
}

// checkImage refuses moving tags.
func checkImage(where, image string, bad func(string, ...any)) {
	ref := image
	if i := strings.LastIndex(ref, "@"); i >= 0 {
		return // pinned by digest
	}
	tag := ""
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		tag = ref[i+1:]
	}
	if tag == "" || tag == "latest" || strings.HasSuffix(tag, "-latest") {
		bad("%s: image %q has a moving tag: pin a version (and a digest in prod)", where, image)
	}
}

func hpaOf(hs []*autoscalingv2.HorizontalPodAutoscaler, name string) *autoscalingv2.HorizontalPodAutoscaler {
	for _, h := range hs {
		if h.Spec.ScaleTargetRef.Kind == "Deployment" && h.Spec.ScaleTargetRef.Name == name {
			return h
		}
	}
	return nil
}
