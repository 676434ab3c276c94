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

step "system packages"
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || missing+=(postgresql)
command -v runuser >/dev/null 2>&1 || missing+=(util-linux)
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

step "redis"
REDIS_PORT=${TABULEIRO_TEST_REDIS_PORT:-6379}
if ! redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG; then
  redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" \
    --save '' --appendonly no --dir /tmp --logfile /tmp/tabuleiro-test-redis.log
fi
for _ in $(seq 100); do redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping | grep -q PONG
export TABULEIRO_TEST_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"

step "postgres"
PGBIN=$(dirname "$(compgen -G '/usr/lib/postgresql/*/bin/postgres' | sort -V | tail -1)")
PGDATA=${TABULEIRO_TEST_PGDATA:-/tmp/tabuleiro-test-pgdata} # reachable by user postgres
PGPORT=${TABULEIRO_TEST_PGPORT:-5433}                        # 5432 stays free for a system cluster
pgctl() { runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA" "$@"; }
if ! pgctl status >/dev/null 2>&1; then # 0 running, 3 stopped, 4 no data directory
  if [ ! -f "$PGDATA/PG_VERSION" ]; then
    rm -rf "$PGDATA" && install -d -o postgres -g postgres -m 700 "$PGDATA"
    runuser -u postgres -- "$PGBIN/initdb" -D "$PGDATA" -A trust -U postgres -E UTF8 --no-sync >/dev/null
  fi
  rm -f "$PGDATA/postmaster.pid"
  pgctl -l "$PGDATA/server.log" -w -t 60 start -o \
    "-p $PGPORT -k $PGDATA -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
fi
psql -h 127.0.0.1 -p "$PGPORT" -U postgres -tAc "select 1 from pg_database where datname='tabuleiro_test'" | grep -q 1 \
  || createdb -h 127.0.0.1 -p "$PGPORT" -U postgres tabuleiro_test
export TABULEIRO_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$PGPORT/tabuleiro_test?sslmode=disable"
export TABULEIRO_TEST_PGCTL="runuser -u postgres -- $PGBIN/pg_ctl -D $PGDATA"

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

step "fault tests: killed, stopped and restarted processes (issue 10)"
go test -count=1 -timeout 20m -run 'Fault' ./cmd/tabuleiro/internal/scaletest/

step "done"
