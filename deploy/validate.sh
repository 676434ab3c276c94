#!/usr/bin/env bash
# Validates the deployment offline (no Docker, no cluster):
#   - docker-compose.yml through compose-go (the library behind
#     `docker compose config`), with deploy/compose.env.example as its env
#     file, plus the stack's rules (deploy/validate/compose);
#   - every alert of deploy/prometheus/rules.yml has a severity, a summary
#     and a runbook section in deploy/README.md (deploy/validate/compose);
#   - every overlay in deploy/k8s/overlays rendered with `kubectl kustomize`
#     and strictly decoded against the k8s.io/api types, plus the rules
#     (probes, limits, PDBs, HPAs, headless Services, no committed Secrets)
#     (deploy/validate/k8s);
#   - no env file with secrets is tracked by git.
# A misspelled field fails it. Exits non-zero on any problem.
# The validators are Go modules outside go.work (their dependencies are
# heavy: the k8s one decodes with k8s.io/api's core, apps, policy and
# autoscaling groups only, not client-go's scheme of every group).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOWORK=off
# The validators' binaries go to a directory of this run's own.
if [ -n "${TABULEIRO_VALIDATE_BIN:-}" ]; then
  BIN=$TABULEIRO_VALIDATE_BIN
  mkdir -p "$BIN"
else
  BIN=$(mktemp -d "${TMPDIR:-/tmp}/tabuleiro-validate.XXXXXX")
  trap 'rm -rf "$BIN"' EXIT
fi

echo "--- building validators"
# Both at once: their dependencies hardly overlap.
(cd deploy/validate/compose && go build -o "$BIN/compose" .) &
compose_build=$!
(cd deploy/validate/k8s && go build -o "$BIN/k8s" .) || { wait "$compose_build" || true; exit 1; }
wait "$compose_build"

status=0
echo "--- docker-compose.yml (compose-go, env file deploy/compose.env.example)"
"$BIN/compose" -f docker-compose.yml -env-file deploy/compose.env.example || status=1

echo "--- alert rules and their runbooks (deploy/prometheus/rules.yml, deploy/README.md)"
"$BIN/compose" -rules deploy/prometheus/rules.yml -runbooks deploy/README.md || status=1

for dir in deploy/k8s/overlays/*/; do
  overlay=$(basename "$dir")
  echo "--- kubectl kustomize $dir"
  rendered=$(mktemp)
  if ! kubectl kustomize "$dir" >"$rendered"; then
    echo "kustomize: $overlay does not render" >&2
    status=1
  elif ! "$BIN/k8s" -name "$overlay" "$rendered"; then
    status=1
  fi
  rm -f "$rendered"
done

echo "--- copies kustomize needs inside deploy/k8s/base"
if ! cmp -s deploy/otel/collector.yaml deploy/k8s/base/collector.yaml; then
  echo "deploy/k8s/base/collector.yaml differs from deploy/otel/collector.yaml: copy it" >&2
  status=1
else
  echo "  collector.yaml matches"
fi

echo "--- secrets not committed"
if tracked=$(git ls-files -- '.env' '*/.env' '*.env' | grep -v '\.example$'); [ -n "$tracked" ]; then
  echo "env files with secrets are tracked by git: $tracked" >&2
  status=1
else
  echo "  no .env tracked"
fi

if [ "$status" -ne 0 ]; then
  echo "deploy/validate.sh: FAILED" >&2
  exit "$status"
fi
echo "deploy/validate.sh: ok"
