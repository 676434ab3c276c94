package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// render runs `kubectl kustomize` on an overlay, as deploy/validate.sh does.
func render(t *testing.T, overlay string) string {
	t.Helper()
	out, err := exec.Command("kubectl", "kustomize", "../../k8s/overlays/"+overlay).Output()
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v", overlay, err)
	}
	return string(out)
}

func TestOverlaysAreValid(t *testing.T) {
	for _, overlay := range []string{"dev", "prod"} {
		t.Run(overlay, func(t *testing.T) {
			names, err := Validate(strings.NewReader(render(t, overlay)))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"Deployment/lobby", "Deployment/match", "Deployment/bot",
				"HorizontalPodAutoscaler/match", "HorizontalPodAutoscaler/bot",
				"PodDisruptionBudget/lobby", "PodDisruptionBudget/match", "PodDisruptionBudget/bot",
				"Gateway/edge", "HTTPRoute/tabuleiro", "BackendTrafficPolicy/match-affinity"} {
				found := false
				for _, n := range names {
					found = found || n == want
				}
				if !found {
					t.Errorf("%s not in the rendered %s overlay", want, overlay)
				}
			}
		})
	}
}

// TestBrokenManifestsFail changes one thing in the rendered dev overlay (or
// prod, for TLS probes) and expects the validator to name it.
func TestBrokenManifestsFail(t *testing.T) {
	dev := render(t, "dev")
	prod := render(t, "prod")
	tests := []struct {
		name, base, old, new, want string
	}{
		{"misspelled container field", dev, "readinessProbe:", "readinesProbe:", "readinesProbe"},
		{"misspelled pod field", dev, "terminationGracePeriodSeconds: 60", "terminationGracePeriodSecond: 60", "terminationGracePeriodSecond"},
		{"misspelled HPA field", dev, "minReplicas: 2", "minReplica: 2", "minReplica"},
		{"misspelled PDB field", dev, "maxUnavailable: 1\n  selector:", "maxUnavailble: 1\n  selector:", "maxUnavailble"},
		{"wrong field type", dev, "minReplicas: 2", "minReplicas: two", "minReplicas"},
		{"unknown kind", dev, "kind: PodDisruptionBudget", "kind: PodDisruptionBudgett", "PodDisruptionBudgett"},
		{"no liveness probe", dev, "livenessProbe:\n          failureThreshold: 3\n          grpc:", "startupProbe:\n          failureThreshold: 3\n          grpc:", "livenessProbe: missing"},
		{"probe on another port", dev, "readinessProbe:\n          failureThreshold: 2\n          grpc:\n            port: 8080", "readinessProbe:\n          failureThreshold: 2\n          grpc:\n            port: 9090", "port 9090"},
		{"http probe", dev, "readinessProbe:\n          failureThreshold: 2\n          grpc:\n            port: 8080", "readinessProbe:\n          failureThreshold: 2\n          httpGet:\n            port: 8080", "grpc.health.v1"},
		{"no memory limit", dev, "            memory: 512Mi\n          requests:\n            cpu: 200m", "          requests:\n            cpu: 200m", "no memory limit"},
		{"request above limit", dev, "cpu: 250m", "cpu: 4", "exceeds limit"},
		{"service not headless", dev, "clusterIP: None", "clusterIP: 10.0.0.10", "headless"},
		{"PDB selects nothing", dev, "  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: match\n", "  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: nobody\n", "Deployment match: no PodDisruptionBudget"},
		{"HPA targets nothing", dev, "    kind: Deployment\n    name: match", "    kind: Deployment\n    name: matches", "Deployment match: no HorizontalPodAutoscaler"},
		{"match without preStop", dev, "        image: tabuleiro/match:dev\n        lifecycle:\n          preStop:\n            sleep:\n              seconds: 5\n", "        image: tabuleiro/match:dev\n", "preStop"},
		{"PDB blocks a drain", dev, "  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: lobby\n", "  minAvailable: 1\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: lobby\n", "blocks kubectl drain"},
		{"lobby without preStop", dev, "        image: tabuleiro/lobby:dev\n        lifecycle:\n          preStop:\n            sleep:\n              seconds: 5\n", "        image: tabuleiro/lobby:dev\n", "Deployment lobby container lobby: no preStop"},
		{"no default deny", dev, "  name: default-deny-ingress\n  namespace: tabuleiro-dev\nspec:\n  podSelector: {}", "  name: default-deny-ingress\n  namespace: tabuleiro-dev\nspec:\n  podSelector:\n    matchLabels:\n      app.kubernetes.io/name: nobody", "no default-deny NetworkPolicy"},
		{"bot open to all", dev, "  podSelector:\n    matchLabels:\n      app.kubernetes.io/name: bot", "  podSelector:\n    matchLabels:\n      app.kubernetes.io/name: nobody", "Deployment bot: no NetworkPolicy allows ingress"},
		{"latest tag", prod, "image: registry.example.com/tabuleiro/bot:v0.1.0", "image: registry.example.com/tabuleiro/bot:latest", "moving tag"},
		{"committed Secret", dev, "---\napiVersion: v1\nkind: Service\n", "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: tabuleiro-secrets\nstringData:\n  token-key: hunter2\n---\napiVersion: v1\nkind: Service\n", "committed"},
		{"literal token key", dev, "        - name: BOT_TOKEN_KEY\n          valueFrom:\n            secretKeyRef:\n              key: token-key\n              name: tabuleiro-secrets", "        - name: BOT_TOKEN_KEY\n          value: hunter2", "BOT_TOKEN_KEY must come from a Secret"},
		{"secret in ConfigMap", dev, "  BOT_GRPC_ADDR: 0.0.0.0:8080", "  BOT_GRPC_ADDR: 0.0.0.0:8080\n  BOT_TOKEN_KEY: hunter2", "secrets belong in a Secret"},
		{"root pod", dev, "runAsNonRoot: true\n        runAsUser: 65532", "runAsNonRoot: false\n        runAsUser: 65532", "runAsNonRoot"},
		{"http probe on a service", dev, "readinessProbe:\n          failureThreshold: 2\n          grpc:\n            port: 8080", "readinessProbe:\n          failureThreshold: 2\n          httpGet:\n            path: /healthz\n            port: 8080", "grpc.health.v1"},
		{"lobby public again", prod, "  name: lobby\n  namespace: tabuleiro\nspec:\n  clusterIP: None\n", "  name: lobby\n  namespace: tabuleiro\nspec:\n  type: LoadBalancer\n", "exposes pods past the Gateway"},
		{"token automounted", dev, "      automountServiceAccountToken: false\n      containers:\n      - env:\n        - name: OTEL_SERVICE_NAME\n          value: bot", "      containers:\n      - env:\n        - name: OTEL_SERVICE_NAME\n          value: bot", "Deployment bot: automountServiceAccountToken must be false"},
		{"gateway missing", dev, "kind: Gateway\nmetadata:\n  labels:\n    app.kubernetes.io/part-of: tabuleiro\n  name: edge", "kind: Gateway\nmetadata:\n  labels:\n    app.kubernetes.io/part-of: tabuleiro\n  name: edge-old", "Gateway \"edge\" is missing"},
		{"match calls to lobby", dev, "  - backendRefs:\n    - name: match\n      port: 8080", "  - backendRefs:\n    - name: lobby\n      port: 8080", "/tabuleiro.match.v1.MatchService/ goes to \"lobby\""},
		{"stream timeout", dev, "    name: match\n    timeouts:\n      request: 0s", "    name: match\n    timeouts:\n      request: 15s", "timeouts.request must be 0s"},
		{"misspelled route field", dev, "    timeouts:\n      request: 0s", "    timeout:\n      request: 0s", "timeout"},
		{"affinity on another header", dev, "        name: tabuleiro-match-id", "        name: x-match", "no BackendTrafficPolicy hashes the tabuleiro-match-id header"},
		{"native gRPC pooled with the rest", dev, "name: content-type", "name: content-typo", "or with the content type of native gRPC"},
		{"affinity round-robin", dev, "    type: ConsistentHash", "    type: RoundRobin", "no BackendTrafficPolicy hashes"},
		{"misspelled policy field", dev, "  loadBalancer:\n    consistentHash:", "  loadBalancer:\n    consistentHashes:", "consistentHashes"},
		{"backend without h2c", dev, "  - appProtocol: kubernetes.io/h2c\n    name: grpc\n    port: 8080\n    targetPort: grpc\n  selector:\n    app.kubernetes.io/name: match", "  - name: grpc\n    port: 8080\n    targetPort: grpc\n  selector:\n    app.kubernetes.io/name: match", "Service match: port 8080 needs appProtocol kubernetes.io/h2c"},
		{"HTTPS without backend TLS", prod, "kind: BackendTLSPolicy\nmetadata:\n  name: lobby\n  namespace: tabuleiro\nspec:\n  targetRefs:\n  - group: \"\"\n    kind: Service\n    name: lobby", "kind: BackendTLSPolicy\nmetadata:\n  name: lobby\n  namespace: tabuleiro\nspec:\n  targetRefs:\n  - group: \"\"\n    kind: Service\n    name: bot", "no BackendTLSPolicy verifies lobby"},
		{"HTTPS without certificate", prod, "    tls:\n      certificateRefs:\n      - kind: Secret\n        name: tabuleiro-edge-tls\n      mode: Terminate", "    tls:\n      mode: Terminate", "HTTPS without a certificate"},
		{"TLS secret unreadable without fsGroup", prod, "        fsGroup: 65532\n        fsGroupChangePolicy: OnRootMismatch\n        runAsGroup: 65532\n        runAsNonRoot: true\n        runAsUser: 65532", "        runAsGroup: 65532\n        runAsNonRoot: true\n        runAsUser: 65532", "cannot read every key of Secret tabuleiro-tls"},
		{"TLS secret mode owner-only", prod, "defaultMode: 288", "defaultMode: 256", "mode 0400"},
		{"tls probe with two handlers", prod, "        readinessProbe:\n          exec:", "        readinessProbe:\n          grpc:\n            port: 8080\n          exec:", "2 handlers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(tt.base, tt.old) {
				t.Fatalf("rendered overlay does not contain %q", tt.old)
			}
			_, err := Validate(bytes.NewBufferString(strings.Replace(tt.base, tt.old, tt.new, 1)))
			if err == nil {
				t.Fatalf("validation passed, want an error mentioning %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error does not mention %q:\n%v", tt.want, err)
			}
		})
	}
}
