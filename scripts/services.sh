#!/usr/bin/env bash
# Installs (apt) and starts the Redis and PostgreSQL that the tests talk to
# (and installs HAProxy, the edge the tests run),
# as plain processes, and exports TABULEIRO_TEST_REDIS_URL,
# TABULEIRO_TEST_DATABASE_URL and TABULEIRO_TEST_PGCTL. scripts/test.sh
# sources it; to run single tests by hand:
#   source scripts/services.sh && go test -run TestName ./services/match/...
# Idempotent: what is running already is reused. Expects to be sourced from
# the repository root. Several runs at once are safe: installing and starting
# happen under one machine-wide lock, so the second run waits for the first
# and then finds the servers up.

_tabuleiro_services() {
local lock
exec {lock}>/tmp/tabuleiro-test-services.lock
flock "$lock"

echo "--- system packages"
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v redis-sentinel >/dev/null 2>&1 || missing+=(redis-sentinel)
compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || missing+=(postgresql)
command -v runuser >/dev/null 2>&1 || missing+=(util-linux)
# The edge (deploy/haproxy/haproxy.cfg), run by the e2e and fault tests;
# apt never starts it (no systemd), the tests run their own.
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "--- redis"
REDIS_PORT=${TABULEIRO_TEST_REDIS_PORT:-6379}
if ! redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG; then
  # In the background of a session of its own, so that it outlives this
  # shell; wait until it answers or exits (not for a fixed time).
  local rlog=/tmp/tabuleiro-test-redis.log rpid
  setsid redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no \
    --dir /tmp --logfile "$rlog" </dev/null >/dev/null 2>&1 &
  rpid=$!
  until redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG; do
    if ! kill -0 "$rpid" 2>/dev/null; then
      echo "redis-server on port $REDIS_PORT exited before answering; the end of $rlog:" >&2
      tail -n 20 "$rlog" >&2
      exec {lock}>&-
      return 1
    fi
    sleep 0.1
  done
fi
# Generous client timeouts: on a busy machine a reply can take seconds, and
# go-redis's default 3 s read timeout would fail tests (and the services
# they start) for the machine's speed.
TABULEIRO_TEST_REDIS_TIMEOUTS="dial_timeout=60s&read_timeout=60s&write_timeout=60s"
export TABULEIRO_TEST_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0?$TABULEIRO_TEST_REDIS_TIMEOUTS"

echo "--- postgres"
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
  # -w waits until it accepts connections or its postmaster exits; -t is
  # only a bound for a hang.
  pgctl -l "$PGDATA/server.log" -w -t 900 start -o \
    "-p $PGPORT -k $PGDATA -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=1000" ||
    { echo "PostgreSQL did not start; the end of $PGDATA/server.log:" >&2; tail -n 20 "$PGDATA/server.log" >&2; exec {lock}>&-; return 1; }
fi
psql -h 127.0.0.1 -p "$PGPORT" -U postgres -tAc "select 1 from pg_database where datname='tabuleiro_test'" | grep -q 1 \
  || createdb -h 127.0.0.1 -p "$PGPORT" -U postgres tabuleiro_test
export TABULEIRO_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$PGPORT/tabuleiro_test?sslmode=disable"
export TABULEIRO_TEST_PGCTL="runuser -u postgres -- $PGBIN/pg_ctl -D $PGDATA"
flock -u "$lock"
exec {lock}>&-
}
_tabuleiro_services
unset -f _tabuleiro_services
