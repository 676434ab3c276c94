#!/usr/bin/env bash
# What a PUBLISH costs a Redis Cluster (deploy/README.md, "Redis Cluster",
# "Per-ply cost"): regular Pub/Sub is broadcast over the cluster bus to
# every node, sharded Pub/Sub (SPUBLISH) to the channel's shard only. For a
# cluster of 1 and of 3 primaries, each with a replica
# (scripts/redis-cluster.sh), N SETs (keys of the node's own slots), N
# PUBLISHes and N SPUBLISHes (of a channel in the node's slots; no
# subscriber) sent by redis-benchmark to one primary, and the
# processor time (used_cpu_user + used_cpu_sys) they cost the primaries and
# the replicas, per command. A benchmark, not a test step (wrap it in
# /work/bin/heavy on a shared machine).
#
#   scripts/cluster-publish-bench.sh          N=300000
set -uo pipefail
cd "$(dirname "$0")/.."
nodes_cpu() { # every node: addr role cpu
  redis-cli -p "$1" cluster nodes | awk '{split($2,a,"@"); r=($3 ~ /master/)?"primary":"replica"; print a[1], r}' | sort |
  while read -r a r; do
    c=$(redis-cli -h "${a%:*}" -p "${a#*:}" info cpu | tr -d '\r' | awk -F: '$1=="used_cpu_user"||$1=="used_cpu_sys"{s+=$2} END{printf "%.6f", s}')
    echo "$a $r $c"
  done
}
N=${N:-300000}
DIRS=()
cleanup() { for d in "${DIRS[@]}"; do kill $(cat "$d/pids") 2>/dev/null; rm -rf "$d"; done; }
trap cleanup EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for P in 1 3; do
  dir=$(mktemp -d "${TMPDIR:-/tmp}/tabuleiro-publish-bench.XXXXXX")
  DIRS+=("$dir")
  url=$(PRIMARIES=$P scripts/redis-cluster.sh "$dir" | tail -1)
  hp=${url#redis-cluster://}; hp=${hp%%,*}; port=${hp#*:}
  # a hash tag of this node's slots
  for t in $(seq 0 200); do
    redis-cli -p "$port" set "k:{$t}" v 2>/dev/null | grep -q OK && break
  done
  for cmd in "SET k:{$t}:__rand_int__ v" "PUBLISH ch 0123456789012345678901234567890123456789" \
    "SPUBLISH ch:{$t} 0123456789012345678901234567890123456789"; do
    nodes_cpu "$port" >"$dir/a"
    redis-benchmark -h 127.0.0.1 -p "$port" -n "$N" -c 20 -r 100000 -q $cmd 2>&1 | tr '\r' '\n' | tail -1
    nodes_cpu "$port" >"$dir/b"
    join <(sort "$dir/a") <(sort "$dir/b") | awk -v n="$N" -v p="$P" -v cmd="${cmd%% *}" '
      { d = $5 - $3; if ($2 == "primary") pr += d; else re += d }
      END { printf "%d primaries, %s x %d to one primary: primaries %.2f us a command, replicas %.2f us a command\n", p, cmd, n, 1e6*pr/n, 1e6*re/n }'
  done
  kill $(cat "$dir/pids") 2>/dev/null
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
