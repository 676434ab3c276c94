#!/usr/bin/env bash
# Redis on one primary against a Redis Cluster (issue 47, deploy/README.md
# "Redis Cluster"): for each setting of KINDS, a fresh Redis on loopback
# ("plain": one redis-server; N: a cluster of N primaries with a replica
# each, scripts/redis-cluster.sh), `tabuleiro serve --redis-url` on it,
# and `tabuleiro load --redis` playing GAMES Quoridor games between PLAYERS
# simulated players at the same settings. Prints each run's report: plies
# per second, Redis's processor time and commands per ply (summed over the
# primaries), and on a cluster each primary's processor time, commands and
# keys, their spread, and the cross-slot errors; each primary's commands
# per ply (INFO commandstats: calls a ply, µs a call); and the load average
# before and after. Then, with the server still running and no load, it
# measures Redis's processor time again over as long as the load ran (the
# idle cost: cron, the cluster bus, the sweepers' and the recorder's
# polls), and prints the gross processor time per ply (loaded / plies) and
# the marginal one ((loaded - idle) / plies), summed and per primary. A
# benchmark, not a test step: run it on a quiet machine (wrapped in
# /work/bin/heavy on a shared one).
#
#   scripts/cluster-bench.sh                 KINDS="plain 1 3" GAMES=1000 PLAYERS=200 WANDER=10 THINK=0s QUEUES=1
#
# QUEUES spreads the players over that many matchmaking queues (clocks
# of 10, 11, 12... minutes), as a site's players spread over its time
# controls: each queue is one hash slot. THINK, each player's pause
# before a ply, lowers the rate: a cluster of
# 1 primary at the per-primary rate of a cluster of 3 (about 70 ms here).
set -euo pipefail
cd "$(dirname "$0")/.."
KINDS=${KINDS:-plain 1 3}
GAMES=${GAMES:-1000}
PLAYERS=${PLAYERS:-200}
WANDER=${WANDER:-10}
THINK=${THINK:-0s}
QUEUES=${QUEUES:-1}
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

# primaries URL: the address (HOST:PORT) of each primary of URL's Redis,
# one a line: the live primaries of a redis-cluster:// URL, else its host.
primaries() {
  local hostport=${1#*://}
  hostport=${hostport%%/*}
  hostport=${hostport%%,*}
  if [[ $1 == redis-cluster://* ]]; then
    redis-cli -h "${hostport%:*}" -p "${hostport#*:}" cluster nodes |
      awk '$3 ~ /master/ && $3 !~ /fail/ {split($2, a, "@"); print a[1]}' | sort
  else
    echo "$hostport"
  fi
}

# redis_cpu URL: a line per primary, "ADDR SECONDS CALLS": its
# used_cpu_user + used_cpu_sys and its commands but INFO's own.
redis_cpu() {
  local a
  for a in $(primaries "$1"); do
    redis-cli -h "${a%:*}" -p "${a#*:}" info all | tr -d '\r' | awk -v addr="$a" -F'[:,=]' '
      $1 == "used_cpu_user" || $1 == "used_cpu_sys" { cpu += $2 }
      $1 ~ /^cmdstat_/ && $1 != "cmdstat_info" { calls += $3 }
      END { printf "%s %.6f %d\n", addr, cpu, calls }'
  done
}

# redis_cmds URL: a line per primary and command, "ADDR COMMAND CALLS
# USEC" (INFO commandstats; INFO's own left out).
redis_cmds() {
  local a
  for a in $(primaries "$1"); do
    redis-cli -h "${a%:*}" -p "${a#*:}" info commandstats | tr -d '\r' | awk -v addr="$a" -F'[:,=]' '
      $1 ~ /^cmdstat_/ && $1 != "cmdstat_info" { sub("cmdstat_", "", $1); printf "%s %s %d %d\n", addr, $1, $3, $5 }'
  done
}

# cmds_per_ply BEFORE AFTER PLIES: per primary, each command whose calls
# grew by 0.01 a ply or more: calls per ply and processor time per call
# (INFO commandstats' usec, the command's own execution), most first.
cmds_per_ply() {
  awk -v plies="$3" '
    FNR == NR { n0[$1 " " $2] = $3; us0[$1 " " $2] = $4; next }
    { k = $1 " " $2; n = $3 - n0[k]; us = $4 - us0[k]
      if (n / plies >= 0.01) printf "%s %s %.3f %.2f\n", $1, $2, n / plies, us / n }' "$1" "$2" |
    sort -k1,1 -k3,3nr | awk '$1 != last { if (last != "") print ""; printf "commands per ply on %s:", $1; last = $1 } { printf " %s %.3f (%.1f µs)", $2, $3, $4 } END { print "" }'
}

# redis_delta BEFORE AFTER: per primary, "ADDR SECONDS CALLS" of AFTER
# less BEFORE (files of redis_cpu's lines).
redis_delta() {
  join <(sort "$1") <(sort "$2") | awk '{ printf "%s %.6f %d\n", $1, $4 - $2, $5 - $3 }'
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
  echo "=== Redis: $kind ($url), $GAMES games, $PLAYERS players, think $THINK; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  redis_cpu "$url" >"$WORK/cpu0-$kind"
  redis_cmds "$url" >"$WORK/cmds0-$kind"
  t0=$(date +%s.%N)
  "$WORK/tabuleiro" --lang en load --server "$addr" --redis "$url" --players "$PLAYERS" --max-games "$GAMES" \
    --wander "$WANDER" --think "$THINK" --queues "$QUEUES" --duration 30m --drain 2m --base-ms 600000 2>/dev/null | tee "$WORK/load-$kind.log"
  t1=$(date +%s.%N)
  redis_cpu "$url" >"$WORK/cpu1-$kind"
  redis_cmds "$url" >"$WORK/cmds1-$kind"
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  # The same Redis and server, no load, as long as the load ran.
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  sleep "$secs"
  redis_cpu "$url" >"$WORK/cpu2-$kind"
  redis_cmds "$url" >"$WORK/cmds2-$kind"
  echo "load average after the idle run: $(cut -d' ' -f1-3 /proc/loadavg)"
  plies=$(awk '/^plies [0-9]+,/ { gsub(",", "", $2); print $2 }' "$WORK/load-$kind.log")
  redis_delta "$WORK/cpu0-$kind" "$WORK/cpu1-$kind" >"$WORK/loaded-$kind"
  redis_delta "$WORK/cpu1-$kind" "$WORK/cpu2-$kind" >"$WORK/idle-$kind"
  join "$WORK/loaded-$kind" "$WORK/idle-$kind" | awk -v plies="$plies" -v secs="$secs" '
    { printf "Redis %s over %s s: loaded %.3f s CPU, %d commands; idle %.3f s CPU (%.1f ms a second), %d commands; per ply gross %.4f ms, marginal %.4f ms, marginal commands %.2f\n",
        $1, secs, $2, $3, $4, 1000 * $4 / secs, $5, 1000 * $2 / plies, 1000 * ($2 - $4) / plies, ($3 - $5) / plies
      l += $2; i += $4; lc += $3; ic += $5 }
    END { printf "Redis summed over %d primaries, %d plies in %s s: CPU loaded %.3f s, idle %.3f s (%.1f ms a second); per ply gross %.4f ms, marginal %.4f ms; commands per ply gross %.2f, marginal %.2f\n",
        NR, plies, secs, l, i, 1000 * i / secs, 1000 * l / plies, 1000 * (l - i) / plies, lc / plies, (lc - ic) / plies }'
  cmds_per_ply "$WORK/cmds0-$kind" "$WORK/cmds1-$kind" "$plies"
  echo "idle, per ply of the loaded run:"
  cmds_per_ply "$WORK/cmds1-$kind" "$WORK/cmds2-$kind" "$plies"
  kill "$serve"
  wait "$serve" 2>/dev/null || true
  if [ "$kind" = plain ]; then
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  else
    kill $(cat "$WORK/cluster-$kind/pids") 2>/dev/null || true
  fi
done
