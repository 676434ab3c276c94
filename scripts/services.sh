#!/usr/bin/env bash
# Installs (apt) and starts the Redis and PostgreSQL that the tests talk to,
# as plain processes, and exports TABULEIRO_TEST_REDIS_URL,
# TABULEIRO_TEST_DATABASE_URL and TABULEIRO_TEST_PGCTL. scripts/test.sh
# sources it; to run single tests by hand:
#   source scripts/services.sh && go test -run TestName ./services/match/...
# Idempotent: what is running already is reused. Expects to be sourced from
# the repository root by a shell with step() defined or not.
type step >/dev/null 2>&1 || step() { printf '\n=== %s\n' "$*"; }

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

