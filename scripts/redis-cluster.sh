#!/usr/bin/env bash
# Starts a Redis Cluster on loopback as plain processes: PRIMARIES
# primaries (default 3), each with REPLICAS replicas (default 1), on free
# ports, in DIR (default a fresh temporary directory), no persistence.
# Prints the redis-cluster:// URL on its last line, and writes the
# processes' ids to DIR/pids (kill them with `kill $(cat DIR/pids)`).
#
#   scripts/redis-cluster.sh [DIR]
set -euo pipefail
DIR=${1:-$(mktemp -d "${TMPDIR:-/tmp}/tabuleiro-cluster.XXXXXX")}
PRIMARIES=${PRIMARIES:-3}
REPLICAS=${REPLICAS:-1}
mkdir -p "$DIR"
n=$((PRIMARIES * (1 + REPLICAS)))
# Free ports at or below 55535, each with its cluster bus port (port +
# 10000) free too: picked at random, each checked by binding both.
mapfile -t ports < <(python3 - "$n" <<'PY'
import random, socket, sys
socks, ports = [], []
while len(ports) < int(sys.argv[1]):
    p = random.randint(20000, 55535)
    try:
        for q in (p, p + 10000):
            s = socket.socket(); s.bind(("127.0.0.1", q)); socks.append(s)
        ports.append(p)
    except OSError:
        pass
print("\n".join(map(str, ports)))
PY
)
: >"$DIR/pids"
addrs=()
for p in "${ports[@]}"; do
  mkdir -p "$DIR/$p"
  # cluster-node-timeout 2 s: a killed primary's replica takes over within
  # seconds (the default is 15 s).
  setsid redis-server --bind 127.0.0.1 --port "$p" --dir "$DIR/$p" --save '' --appendonly no \
    --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
    --repl-diskless-sync-delay 0 --logfile "$DIR/$p/redis.log" </dev/null >/dev/null 2>&1 &
  echo $! >>"$DIR/pids"
  addrs+=("127.0.0.1:$p")
done
for p in "${ports[@]}"; do
  until redis-cli -p "$p" ping 2>/dev/null | grep -q PONG; do sleep 0.05; done
done
if ((PRIMARIES >= 3)); then
  redis-cli --cluster create "${addrs[@]}" --cluster-replicas "$REPLICAS" --cluster-yes >"$DIR/create.log" 2>&1 ||
    { cat "$DIR/create.log" >&2; exit 1; }
else
  # redis-cli --cluster create wants 3 primaries at least: fewer (the
  # benchmark's one-primary cluster) by hand, the slots split evenly over
  # the first PRIMARIES nodes and the rest replicas of them in turn.
  for ((i = 0; i < PRIMARIES; i++)); do
    redis-cli -p "${ports[$i]}" cluster addslotsrange $((i * 16384 / PRIMARIES)) $(((i + 1) * 16384 / PRIMARIES - 1)) >/dev/null
  done
  for p in "${ports[@]:1}"; do redis-cli -p "$p" cluster meet 127.0.0.1 "${ports[0]}" >/dev/null; done
  for ((i = PRIMARIES; i < n; i++)); do
    id=$(redis-cli -p "${ports[$(((i - PRIMARIES) % PRIMARIES))]}" cluster myid)
    until redis-cli -p "${ports[$i]}" cluster replicate "$id" 2>/dev/null | grep -q OK; do sleep 0.1; done
  done
fi
for p in "${ports[@]}"; do
  until redis-cli -p "$p" cluster info 2>/dev/null | grep -q 'cluster_state:ok'; do sleep 0.05; done
done
hosts=$(IFS=,; echo "${addrs[*]:0:$PRIMARIES}")
echo "redis-cluster://$hosts"
