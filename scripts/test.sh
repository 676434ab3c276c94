#!/usr/bin/env bash
# The one test command (README.md, .ci/run). On a machine with only Go and apt
# it installs what is missing, starts Redis and PostgreSQL as plain processes
# if they are not running, exports their URLs, checks the protos and the
# generated code, and runs go vet and the tests of every workspace module.
# Idempotent: a second run reuses what the first installed and started.
set -euo pipefail
cd "$(dirname "$0")/.."
T0=$SECONDS
step() { printf '\n=== %s  [+%ss]\n' "$*" "$((SECONDS - T0))"; }

BUF_VERSION=v1.75.0
PROTOC_GEN_GO_VERSION=v1.36.12
PROTOC_GEN_GO_GRPC_VERSION=v1.6.2

export GOFLAGS="-buildvcs=false -modcacherw"
export GOBIN="${TABULEIRO_TOOLS_BIN:-$HOME/.cache/tabuleiro-tools/bin}"
export PATH="$GOBIN:$PATH"
mkdir -p "$GOBIN"

# Redis and PostgreSQL: installed, started and exported by services.sh.
source scripts/services.sh

step "code generators"
buf --version 2>/dev/null | grep -qx "${BUF_VERSION#v}" || go install "github.com/bufbuild/buf/cmd/buf@$BUF_VERSION"
protoc-gen-go --version 2>/dev/null | grep -q " $PROTOC_GEN_GO_VERSION\$" || go install "google.golang.org/protobuf/cmd/protoc-gen-go@$PROTOC_GEN_GO_VERSION"
protoc-gen-go-grpc --version 2>/dev/null | grep -q " ${PROTOC_GEN_GO_GRPC_VERSION#v}\$" || go install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@$PROTOC_GEN_GO_GRPC_VERSION"

if compgen -G 'proto/tabuleiro/*/v1/*.proto' >/dev/null; then
  step "buf format, lint, breaking, generate"
  buf format -d --exit-code
  buf lint
  if git rev-parse -q --verify main >/dev/null 2>&1 && git ls-tree -r --name-only main -- proto | grep -q '\.proto$'; then
    buf breaking --against '.git#branch=main'
  fi
  buf generate
  if [ -n "$(git status --porcelain -- pkg/gen)" ]; then
    git status --porcelain -- pkg/gen
    echo "generated code is out of date: run 'buf generate' and commit pkg/gen" >&2
    exit 1
  fi
fi

step "gofmt, go mod tidy"
unformatted=$(gofmt -l $(go list -f '{{.Dir}}' -m))
[ -z "$unformatted" ] || { echo "gofmt needed:"; echo "$unformatted"; exit 1; }
for d in $(go list -f '{{.Dir}}' -m); do
  (cd "$d" && go mod tidy -diff >/dev/null) || { echo "go mod tidy needed in $d" >&2; exit 1; }
done

step "go vet"
go vet work

step "deployment files (compose-go and strict k8s decoding, offline)"
bash deploy/validate.sh >/tmp/tabuleiro-validate.log 2>&1 || { cat /tmp/tabuleiro-validate.log; exit 1; }
tail -3 /tmp/tabuleiro-validate.log
for d in deploy/validate/compose deploy/validate/k8s deploy/validate/envoy deploy/docker/httpprobe; do
  (cd "$d" && GOWORK=off go vet ./... && GOWORK=off go test -count=1 ./...)
done

step "go test -race -short"
go test -race -short -count=1 -timeout 30m work

step "service suites against the one-process mode's embedded Redis (miniredis)"
EMBEDDED_REDIS_PORT=${TABULEIRO_TEST_EMBEDDED_REDIS_PORT:-6399}
go build -o /tmp/tabuleiro-test-bin ./cmd/tabuleiro
/tmp/tabuleiro-test-bin embedded-redis --addr "127.0.0.1:$EMBEDDED_REDIS_PORT" >/tmp/tabuleiro-embedded-redis.log 2>&1 &
EMBEDDED_REDIS_PID=$!
trap 'kill $EMBEDDED_REDIS_PID 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q redis:// /tmp/tabuleiro-embedded-redis.log && break; sleep 0.1; done
TABULEIRO_TEST_REDIS_URL="redis://127.0.0.1:$EMBEDDED_REDIS_PORT/0" \
  go test -short -count=1 -timeout 20m tabuleiro.dev/services/match/... tabuleiro.dev/services/lobby/...
kill $EMBEDDED_REDIS_PID 2>/dev/null || true

step "go test (deep checks without -race: perft and long suites)"
go test -count=1 -timeout 30m -run 'Perft|Deep' ./pkg/engine/...

step "crash tests: serve killed with SIGKILL, every acknowledged ply kept (issue 14)"
# A real `tabuleiro serve` killed at random moments and right after an
# acknowledgement, 50 rounds on the embedded stores, then 25 each against a
# redis-server with appendfsync always and everysec (deploy/README.md).
go test -count=1 -timeout 20m -run 'Crash' ./cmd/tabuleiro/internal/crashtest/

step "fault tests: killed, stopped and restarted processes (issue 10)"
go test -count=1 -timeout 20m -run 'Fault' ./cmd/tabuleiro/internal/scaletest/

step "done"
