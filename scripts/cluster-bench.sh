#!/usr/bin/env bash
# Redis on one primary against a Redis Cluster (issue 47, deploy/README.md
# "Redis Cluster"): for each setting of KINDS, a fresh Redis on loopback
# ("plain": one redis-server; N: a cluster of N primaries with a replica
# each, scripts/redis-cluster.sh), `tabuleiro serve --redis-url` on it,
# and `tabuleiro load --redis` playing GAMES Quoridor games between PLAYERS
# simulated players at the same settings. Prints each run's report: plies
# per second, Redis's processor time and commands per ply (summed over the
# primaries), and on a cluster each primary's processor time, commands and
# keys, their spread, and the cross-slot errors; and the load average
# before and after. A benchmark, not a test step: run it on a quiet
# machine (wrapped in /work/bin/heavy on a shared one).
#
#   scripts/cluster-bench.sh                 KINDS="plain 1 3" GAMES=1000 PLAYERS=200 WANDER=10
set -euo pipefail
cd "$(dirname "$0")/.."
KINDS=${KINDS:-plain 1 3}
GAMES=${GAMES:-1000}
PLAYERS=${PLAYERS:-200}
WANDER=${WANDER:-10}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tabuleiro-cluster-bench.XXXXXX")
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for f in "$WORK"/*/pids; do [ -f "$f" ] && kill $(cat "$f") 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

go build -o "$WORK/tabuleiro" ./cmd/tabuleiro
for kind in $KINDS; do
  if [ "$kind" = plain ]; then
    port=$(free_port)
    redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --dir "$WORK" \
      --logfile "$WORK/redis-$port.log" </dev/null >/dev/null 2>&1 &
    PIDS+=($!)
    until redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; do sleep 0.05; done
    url=redis://127.0.0.1:$port/0
  else
    url=$(PRIMARIES=$kind scripts/redis-cluster.sh "$WORK/cluster-$kind" | tail -1)
  fi
  addr=127.0.0.1:$(free_port)
  "$WORK/tabuleiro" serve --data-dir "$WORK/data-$kind" --addr "$addr" --redis-url "$url" \
    >"$WORK/serve-$kind.log" 2>&1 &
  serve=$!
  PIDS+=("$serve")
  until grep -q "$addr" "$WORK/serve-$kind.log" 2>/dev/null; do
    kill -0 "$serve" 2>/dev/null || { cat "$WORK/serve-$kind.log" >&2; exit 1; }
    sleep 0.1
  done
  echo "=== Redis: $kind ($url), $GAMES games, $PLAYERS players; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$WORK/tabuleiro" load --server "$addr" --redis "$url" --players "$PLAYERS" --max-games "$GAMES" \
    --wander "$WANDER" --duration 30m --drain 2m --base-ms 600000 2>/dev/null
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  kill "$serve"
  wait "$serve" 2>/dev/null || true
  if [ "$kind" = plain ]; then
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  else
    kill $(cat "$WORK/cluster-$kind/pids") 2>/dev/null || true
  fi
done
