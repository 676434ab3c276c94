#!/usr/bin/env bash
# The one test command (README.md, .ci/run). On a machine with only Go, Node
# (npm) and apt it installs what is missing, starts Redis and PostgreSQL as
# plain processes if they are not running, exports their URLs, checks the
# protos and the generated code, and runs go vet and the tests of every
# workspace module. Idempotent: a second run reuses what the first installed
# and started; two runs side by side share only that (the install and the
# start are serialised by locks), each keeping its files in a directory of
# its own and taking free ports.
#
#   scripts/test.sh            every step, in order
#   scripts/test.sh race fault only these steps (after "services")
#
# Each step is a function step_NAME listed in STEPS with a one-line
# description; to add one, write the function and add its line. The run
# ends with the time each step took.
set -euo pipefail
cd "$(dirname "$0")/.."

STEPS=(
  "services  Redis and PostgreSQL: installed with apt if missing, started once, shared"
  "tools     buf (prebuilt, from npm) and the protoc plugins, pinned"
  "protos    buf format, lint, breaking; generated code up to date"
  "format    gofmt, go mod tidy"
  "vet       go vet"
  "deploy    deployment files (compose-go, strict k8s decoding; offline)"
  "race      go test -race -short over every workspace module's concurrent code"
  "embedded  lobby and match suites against the one-process mode's embedded Redis"
  "deep      single-threaded packages (engine, rules docs, schema), perft and long suites, without -race"
  "fault     killed, stopped and restarted processes, directly and through the edge (HAProxy)"
  "crash     tabuleiro serve killed with SIGKILL: no acknowledged ply lost"
  "sentinel  Redis Sentinel failover: primary killed mid-game, replica promoted, games go on; plies lost with and without WAIT"
  "cluster   Redis Cluster (3 primaries + 3 replicas on loopback): store and lobby suites, tabuleiro serve on redis-cluster://, a primary killed mid-game"
  "web       web client: npm ci, TypeScript codegen and bundle up to date, type check"
  "webunit   web client: unit tests (node --test)"
  "webe2e    web client: browser tests (Debian chromium, playwright-core) against tabuleiro serve"
)

BUF_VERSION=1.75.0 # npm's @bufbuild/buf ships the prebuilt CLI
PROTOC_GEN_GO_VERSION=v1.36.12
PROTOC_GEN_GO_GRPC_VERSION=v1.6.2

# -vet=off on every `go test` below: the vet step runs every analyzer over
# every package (and its tests) once; go test's own vet pass would analyse
# every dependency again per build configuration. No DWARF, neither
# compiled (-gcflags=all=-dwarf=false: a third less compiler time, on
# go-redis and pgx with -race) nor linked (-ldflags=-w: a quarter of each
# link): stack traces and the race detector's reports do not use it.
export GOFLAGS="-buildvcs=false -modcacherw -gcflags=all=-dwarf=false -ldflags=-w"
# Compiling is most of a cold run: more compile jobs than cores keep a busy
# machine's share of them (go build's default is one per core).
BUILD_JOBS=${TABULEIRO_BUILD_JOBS:-4}
TOOLS=${TABULEIRO_TOOLS_DIR:-$HOME/.cache/tabuleiro-tools}
export GOBIN="${TABULEIRO_TOOLS_BIN:-$TOOLS/bin}"
export PATH="$GOBIN:$PATH"
mkdir -p "$GOBIN"

# This run's own scratch directory: nothing of it is shared with another run.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tabuleiro-test.XXXXXX")
BG_PIDS=()
LANE_PIDS=()

# ---- the steps -------------------------------------------------------------

step_services() {
  # Installs, starts and exports TABULEIRO_TEST_REDIS_URL and
  # TABULEIRO_TEST_DATABASE_URL (under a machine-wide lock).
  source scripts/services.sh
}

step_tools() {
  local lock
  exec {lock}>"$TOOLS/.lock"
  flock "$lock"
  if ! buf --version 2>/dev/null | grep -qx "$BUF_VERSION"; then
    if npm install --prefix "$TOOLS/npm" --no-save --no-audit --no-fund --loglevel=error "@bufbuild/buf@$BUF_VERSION"; then
      # The platform package holds the binary itself; the .bin entry is a
      # Node wrapper that finds it.
      local bin
      bin=$(compgen -G "$TOOLS/npm/node_modules/@bufbuild/buf-*/bin/buf" | head -1 || true)
      ln -sf "${bin:-$TOOLS/npm/node_modules/.bin/buf}" "$GOBIN/buf"
    else
      echo "npm install @bufbuild/buf failed: building buf from source (several minutes)" >&2
      go install "github.com/bufbuild/buf/cmd/buf@v$BUF_VERSION"
    fi
  fi
  # The two plugins build at once (each is a chain of packages).
  local gen=() pid
  protoc-gen-go --version 2>/dev/null | grep -q " $PROTOC_GEN_GO_VERSION\$" ||
    { go install "google.golang.org/protobuf/cmd/protoc-gen-go@$PROTOC_GEN_GO_VERSION" & gen+=("$!"); }
  protoc-gen-go-grpc --version 2>/dev/null | grep -q " ${PROTOC_GEN_GO_GRPC_VERSION#v}\$" ||
    { go install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@$PROTOC_GEN_GO_GRPC_VERSION" & gen+=("$!"); }
  for pid in "${gen[@]}"; do wait "$pid"; done
  flock -u "$lock"
  exec {lock}>&-
  buf --version
}

step_protos() {
  buf format -d --exit-code
  buf lint
  # Breaking changes since this branch left main (on main itself, since
  # nothing: CI on main compares nothing with itself).
  local base
  if base=$(git merge-base HEAD main 2>/dev/null) && git ls-tree -r --name-only "$base" -- proto | grep -q '\.proto$'; then
    buf breaking --against ".git#ref=$base"
  fi
  # Generate into the scratch directory and compare: the check leaves the
  # working tree alone.
  buf generate -o "$WORK/gen"
  if ! diff -r -x go.mod -x go.sum -x doc.go pkg/gen "$WORK/gen/pkg/gen"; then
    echo "generated code is out of date: run 'buf generate' and commit pkg/gen" >&2
    return 1
  fi
}

# Modules outside go.work (heavy dependencies of their own).
OUTSIDE_MODULES=(deploy/validate/compose deploy/validate/k8s deploy/docker/httpprobe)

step_format() {
  local unformatted d
  unformatted=$(gofmt -l $(go list -f '{{.Dir}}' -m) "${OUTSIDE_MODULES[@]}")
  [ -z "$unformatted" ] || { echo "gofmt needed:"; echo "$unformatted"; return 1; }
  for d in $(go list -f '{{.Dir}}' -m); do
    (cd "$d" && go mod tidy -diff >/dev/null) || { echo "go mod tidy needed in $d" >&2; return 1; }
  done
  for d in "${OUTSIDE_MODULES[@]}"; do
    (cd "$d" && GOWORK=off go mod tidy -diff >/dev/null) || { echo "go mod tidy needed in $d (GOWORK=off)" >&2; return 1; }
  done
}

step_vet() {
  go vet -p "$BUILD_JOBS" work
}

step_deploy() {
  local d
  TABULEIRO_VALIDATE_BIN="$WORK/validate" bash deploy/validate.sh >"$WORK/validate.log" 2>&1 ||
    { cat "$WORK/validate.log"; return 1; }
  tail -3 "$WORK/validate.log"
  for d in "${OUTSIDE_MODULES[@]}"; do
    (cd "$d" && GOWORK=off go vet ./... && GOWORK=off go test -vet=off -count=1 ./...)
  done
}

# Packages of single-threaded code (no goroutine, lock or atomic in
# them): the race detector has nothing to watch there, and their tests
# (perft, fuzzed games) run several times slower under it. The deep step
# runs them without -race.
SEQUENTIAL='^tabuleiro\.dev/(pkg/engine|docs|migrations|web)(/|$)'

# The race step's build exists to find data races, and the race detector
# watches memory accesses whatever the compiler made of the code around
# them: it is compiled without optimisation or inlining (-N -l), which
# compiles a third faster (a cold compile and link of the step, fresh
# GOCACHE: 446 CPU s against 633), while the instrumented tests take
# about the processor time they took optimised; every other step runs optimised code, as production does.
step_race() {
  local pkgs
  pkgs=$(go list work | grep -Ev "$SEQUENTIAL")
  # shellcheck disable=SC2086 # one argument per package
  go test -race -short -vet=off -p "$BUILD_JOBS" -count=1 -timeout 30m -gcflags='all=-N -l -dwarf=false' $pkgs
}

# tabuleiro_bin: the tabuleiro command, built once per run into
# $WORK/tabuleiro for the embedded, crash and browser steps (side by side,
# the later ones wait for the first build under a lock).
tabuleiro_bin() {
  (
    flock 8
    [ -x "$WORK/tabuleiro" ] || go build -o "$WORK/tabuleiro" ./cmd/tabuleiro
  ) 8>"$WORK/tabuleiro.lock"
}

step_embedded() {
  # The embedded Redis takes a free port and prints its URL when it serves.
  local log=$WORK/embedded-redis.log url pid
  tabuleiro_bin
  "$WORK/tabuleiro" embedded-redis --addr 127.0.0.1:0 >"$log" 2>&1 &
  pid=$!
  BG_PIDS+=("$pid")
  until url=$(grep -m1 -o 'redis://[^[:space:]]*' "$log"); do
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid" && status=0 || status=$?
      echo "the embedded Redis exited (status $status) before serving:" >&2
      tail -20 "$log" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "embedded Redis at $url"
  # The lobby's and match's packages whose tests talk to Redis (they call
  # their testenv.Redis); the others' tests do not touch the store and ran
  # in the race step.
  local pkgs
  pkgs=$(grep -l 'testenv\.Redis(' services/lobby/*/*_test.go services/lobby/internal/*/*_test.go \
    services/match/*/*_test.go services/match/internal/*/*_test.go | xargs -n1 dirname | sort -u | sed 's|^|./|')
  # shellcheck disable=SC2086 # one argument per package
  TABULEIRO_TEST_REDIS_URL="$url?$TABULEIRO_TEST_REDIS_TIMEOUTS" \
    go test -short -vet=off -count=1 -timeout 20m $pkgs
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

step_deep() {
  local pkgs
  pkgs=$(go list work | grep -E "$SEQUENTIAL")
  # shellcheck disable=SC2086 # one argument per package
  go test -short -vet=off -count=1 -timeout 20m $pkgs
  go test -vet=off -count=1 -timeout 30m -run 'Perft|Deep' ./pkg/engine/...
  # What the race step plays a part of under -short: every real game
  # record replayed through the match service, a whole watched game.
  go test -vet=off -count=1 -timeout 20m -run '^(TestReplayRealGames|TestWatch)$' ./cmd/tabuleiro/internal/command/records/
}

step_fault() {
  go test -vet=off -count=1 -timeout 20m -run 'Fault' ./cmd/tabuleiro/internal/scaletest/
}

step_crash() {
  # A real `tabuleiro serve` killed at random moments and right after an
  # acknowledgement: 50 rounds on the embedded stores, then 25 each against
  # a redis-server with appendfsync always and everysec (deploy/README.md).
  tabuleiro_bin
  TABULEIRO_BIN="$WORK/tabuleiro" go test -vet=off -count=1 -timeout 20m -run 'Crash' ./cmd/tabuleiro/internal/crashtest/
}

step_sentinel() {
  # redis-server and redis-sentinel processes on free ports (services.sh
  # installs redis-sentinel): raw writes (redisconn), then games played
  # through a match instance on a Sentinel URL while the primary is killed
  # (matchserver); each counts the acknowledged writes or plies lost, with
  # and without WAIT 1 (MATCH_REDIS_WAIT_REPLICAS).
  # The figures are printed (the whole log when it fails).
  local log=$WORK/sentinel.log
  if ! TABULEIRO_TEST_SENTINEL=1 go test -vet=off -count=1 -timeout 10m -run 'TestSentinelFailover' -v \
    ./pkg/platform/redisconn/ ./services/match/matchserver/ >"$log" 2>&1; then
    cat "$log"
    return 1
  fi
  grep -E '^(--- |\s+sentinel_test.go|ok)' "$log"
}

step_cluster() {
  # A cluster of plain redis-server processes (scripts/redis-cluster.sh,
  # about 4 s to start), then the suites whose every script and pipeline
  # must keep to one hash slot per call, on it: the match store (the
  # match package's suite), the recorder, the hub, the lobby's stores,
  # the stream caps, and the one-process server on redis-cluster://.
  local dir=$WORK/cluster url pid
  url=$(scripts/redis-cluster.sh "$dir" | tail -1)
  for pid in $(cat "$dir/pids"); do BG_PIDS+=("$pid"); done
  echo "Redis Cluster at $url"
  TABULEIRO_TEST_REDIS_URL="$url?$TABULEIRO_TEST_REDIS_TIMEOUTS" \
    go test -short -vet=off -count=1 -timeout 20m \
    ./pkg/platform/ratelimit/ ./services/match/internal/redisstore/ ./services/match/internal/recorder/ \
    ./services/match/internal/match/ ./services/lobby/internal/matchmaking/ ./services/lobby/internal/rooms/ \
    ./services/lobby/internal/sessions/ ./services/match/matchserver/ ./cmd/tabuleiro/internal/load/
  TABULEIRO_TEST_REDIS_URL="$url?$TABULEIRO_TEST_REDIS_TIMEOUTS" \
    go test -vet=off -count=1 -timeout 10m -run '^TestRealRedis$' ./cmd/tabuleiro/internal/local/
  # Last on this cluster (it swaps a primary and its replica): the hub
  # follows a slot to its new primary (sharded Pub/Sub).
  TABULEIRO_TEST_CLUSTER_FAILOVER=1 TABULEIRO_TEST_REDIS_URL="$url?$TABULEIRO_TEST_REDIS_TIMEOUTS" \
    go test -vet=off -count=1 -timeout 5m -run '^TestHubFollowsASlotToItsNewPrimary$' ./services/match/internal/redisstore/
  kill $(cat "$dir/pids") 2>/dev/null || true
  # A cluster of its own (scaletest): lobby and two match instances, a
  # primary killed with kill -9 mid-game, WAIT 1; the acknowledged plies
  # counted against PostgreSQL's (deploy/README.md, "Redis Cluster").
  go test -vet=off -count=1 -timeout 10m -run '^TestClusterPrimaryKilled$' -v ./cmd/tabuleiro/internal/scaletest/ >"$WORK/cluster-failover.log" 2>&1 ||
    { cat "$WORK/cluster-failover.log"; return 1; }
  grep -E '^(--- |\s+(cluster|fault)_test.go|ok)' "$WORK/cluster-failover.log"
}

# ---- web client (web/): Node.js and npm from the machine, chromium from apt

step_web() {
  local lock sum
  # npm ci only when package-lock.json changed since the last install
  # (under a lock: another run may be using node_modules).
  exec {lock}>"$TOOLS/.web-npm.lock"
  flock "$lock"
  sum=$(sha256sum web/package-lock.json | cut -d' ' -f1)
  if [ "$(cat web/node_modules/.tabuleiro-lock-sum 2>/dev/null)" != "$sum" ]; then
    (cd web && npm ci --no-audit --no-fund --loglevel=error)
    echo "$sum" >web/node_modules/.tabuleiro-lock-sum
  fi
  flock -u "$lock"
  exec {lock}>&-
  # Generate and build into the scratch directory and compare.
  web/node_modules/.bin/buf generate --template web/buf.gen.yaml -o "$WORK/webgen"
  (cd web && node build.mjs --out "$WORK/dist")
  if ! diff -r web/src/gen "$WORK/webgen/web/src/gen" || ! diff -r web/dist "$WORK/dist"; then
    echo "the web client's generated code or bundle is out of date: run 'npm run gen && npm run build' in web/ and commit web/src/gen and web/dist" >&2
    return 1
  fi
  (cd web && node_modules/.bin/tsc --noEmit -p .)
}

step_webunit() {
  (cd web && node build.mjs --tests --out "$WORK/webunit" && node --test "$WORK/webunit/")
}

step_webe2e() {
  local missing=()
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  # No CJK font: Banqi's pieces are outlines (web/src/glyphs.ts), and
  # e2e/i18n.test.ts draws them in a chromium that sees DejaVu only.
  fc-list :lang=en family 2>/dev/null | grep -qi dejavu || missing+=(fonts-dejavu-core)
  if ((${#missing[@]})); then
    # Under services.sh's machine-wide lock: two runs must not run apt at once.
    (
      flock 9
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    ) 9>/tmp/tabuleiro-test-services.lock
  fi
  # Built inside web/ (playwright-core is resolved from web/node_modules),
  # in a directory of this run's own.
  local out="web/.build/run-${WORK##*.}"
  rm -rf "$out"
  # The binary the browser tests start (`tabuleiro serve`, web client embedded).
  tabuleiro_bin
  (cd web && node build.mjs --e2e --out "../$out" &&
    TABULEIRO_BIN="$WORK/tabuleiro" node --test --test-concurrency=2 "../$out/") || { rm -rf "$out"; return 1; }
  rm -rf "$out"
  echo "screenshots: web/artifacts/"
}

# ---- the runner ------------------------------------------------------------

T0=$SECONDS
TIMES=()   # "name wall-seconds cpu-seconds"
CURRENT="" # the step running, if any
CURRENT_T0=0
CURRENT_CPU0=0
CPU=0

# cpu_now sets CPU to the CPU seconds (user + system) used so far by this
# shell and the commands it waited for: on a shared machine the wall time
# says how busy it was, the CPU time what a step cost. (Call it directly:
# in a $(...) subshell, times would count the subshell's.)
cpu_now() {
  local shell children
  times >"$WORK/times.$BASHPID"
  { read -r shell; read -r children; } <"$WORK/times.$BASHPID"
  CPU=$(awk -v s="$shell $children" 'BEGIN {
    n = split(s, f, " "); t = 0
    for (i = 1; i <= n; i++) { split(f[i], ms, "m"); t += ms[1] * 60 + ms[2] }
    printf "%d", t }')
}

# kill_bg stops the background processes a step started.
kill_bg() {
  local pid
  for pid in "${BG_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
}

finish() {
  local status=$? pid
  kill_bg
  for pid in "${LANE_PIDS[@]}"; do
    pkill -TERM -P "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
  done
  printf '\n=== step timings (wall and CPU seconds; load average %s)\n' "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
  local line
  for line in "${TIMES[@]}"; do printf '  %-10s %5ss %5ss cpu  %s\n' $line; done
  cpu_now
  if [ -n "$CURRENT" ]; then
    printf '  %-10s %5ss %5ss cpu  FAILED\n' "$CURRENT" "$((SECONDS - CURRENT_T0))" "$((CPU - CURRENT_CPU0))"
  fi
  printf '  %-10s %5ss %5ss cpu  %s\n' total "$((SECONDS - T0))" "$CPU" "$([ "$status" -eq 0 ] && echo ok || echo "FAILED (status $status)")"
  rm -rf "$WORK"
  exit "$status"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

run_step() {
  local name=$1 desc=$2
  printf '\n=== %s: %s  [+%ss]\n' "$name" "$desc" "$((SECONDS - T0))"
  cpu_now
  CURRENT=$name CURRENT_T0=$SECONDS CURRENT_CPU0=$CPU
  "step_$name"
  cpu_now
  TIMES+=("$name $((SECONDS - CURRENT_T0)) $((CPU - CURRENT_CPU0)) ok")
  CURRENT=""
}

# STEP_GROUPS (not GROUPS: bash keeps that name for the user's group ids
# and ignores assignments to it): steps that run side by side. A group is lanes separated by "|",
# a lane is steps run in order; when the run reaches a group's first step,
# its lanes start together, each into a log of its own, and the logs are
# printed when all have ended. Steps whose critical paths are independent
# go side by side: a cold build's time is mostly long chains of packages
# compiled one after the other (the deployment validators share nothing
# with the workspace), and the later steps mostly wait on the processes,
# browser or failover they start. Redis and PostgreSQL are shared: every
# test keeps apart by key prefix and database.
STEP_GROUPS=(
  "vet|deploy"
  "embedded deep|fault|crash cluster|web webunit webe2e"
)
# The Redis Cluster step (its own six redis-server processes on free
# ports, its failover driven by the cluster's node timeout) runs after
# the crash step, beside the browser tests, which mostly wait.
# The Sentinel failover runs alone after them: with WAIT 1 it asserts that
# no acknowledged ply is lost, and its failover waits on Sentinel's own
# timers. (Beside the other lanes one run lost a ply there: a retried
# ply's duplicate path confirmed on the new primary a ply it had read from
# the old one; fixed, see match's TestRetriedPlyLostInFailoverIsPlayedAgain.)

# run_lane I STEP...: the steps in a background subshell; each writes its
# "name wall cpu status" line to $WORK/lane-I.times. A failed step ends its
# lane.
run_lane() {
  local i=$1 name desc t0 rc
  shift
  (
    trap - EXIT INT TERM
    for name in "$@"; do
      desc=$(step_desc "$name")
      printf '\n=== %s: %s  [+%ss]\n' "$name" "$desc" "$((SECONDS - T0))"
      cpu_now
      t0=$SECONDS c0=$CPU
      set +e
      (set -e; trap kill_bg EXIT; "step_$name")
      rc=$?
      set -e
      cpu_now
      if [ "$rc" -ne 0 ]; then
        echo "$name $((SECONDS - t0)) $((CPU - c0)) FAILED" >>"$WORK/lane-$i.times"
        exit "$rc"
      fi
      echo "$name $((SECONDS - t0)) $((CPU - c0)) ok" >>"$WORK/lane-$i.times"
    done
  ) >"$WORK/lane-$i.log" 2>&1 &
  LANE_PIDS+=("$!")
}

step_desc() {
  local s
  for s in "${STEPS[@]}"; do
    if [ "${s%% *}" = "$1" ]; then sed 's/^[^ ]* *//' <<<"$s"; fi
  done
}

# run_group G runs the wanted steps of group G's lanes side by side and
# waits for them all.
run_group() {
  local g=$1 i n l ok=1 line steps lanes
  IFS='|' read -r -a lanes <<<"${STEP_GROUPS[$g]}"
  LANE_PIDS=()
  printf '\n=== side by side: %s [+%ss]\n' "$(printf '(%s) ' "${lanes[@]}")" "$((SECONDS - T0))"
  for i in "${!lanes[@]}"; do
    steps=()
    for n in ${lanes[$i]}; do if is_wanted "$n"; then steps+=("$n"); fi; done
    if ((${#steps[@]})); then run_lane "$g-$i" "${steps[@]}"; fi
  done
  for l in "${LANE_PIDS[@]}"; do wait "$l" || ok=0; done
  for i in "${!lanes[@]}"; do
    [ -f "$WORK/lane-$g-$i.log" ] || continue
    cat "$WORK/lane-$g-$i.log"
    [ -f "$WORK/lane-$g-$i.times" ] || continue
    while read -r line; do TIMES+=("$line"); done <"$WORK/lane-$g-$i.times"
  done
  [ "$ok" = 1 ] || { echo "a step run side by side failed (above)" >&2; return 1; }
}

# group_of NAME prints the index of the group holding step NAME, if any.
group_of() {
  local g n
  for g in "${!STEP_GROUPS[@]}"; do
    for n in ${STEP_GROUPS[$g]//|/ }; do
      if [ "$n" = "$1" ]; then echo "$g"; fi
    done
  done
}

declare -A wanted=()
for a in "$@"; do
  found=0
  for s in "${STEPS[@]}"; do [ "${s%% *}" = "$a" ] && found=1; done
  [ "$found" = 1 ] || { echo "unknown step $a; steps: $(for s in "${STEPS[@]}"; do printf '%s ' "${s%% *}"; done)" >&2; exit 2; }
  wanted[$a]=1
done
ARGC=$#
is_wanted() { [ "$ARGC" -eq 0 ] || [ "$1" = services ] || [ -n "${wanted[$1]:-}" ]; }

declare -A groups_done=()
for s in "${STEPS[@]}"; do
  name=${s%% *}
  desc=$(sed 's/^[^ ]* *//' <<<"$s")
  is_wanted "$name" || continue
  g=$(group_of "$name")
  if [ -n "$g" ]; then
    [ -z "${groups_done[$g]:-}" ] || continue
    groups_done[$g]=1
    CURRENT="together" CURRENT_T0=$SECONDS
    cpu_now
    CURRENT_CPU0=$CPU
    run_group "$g"
    CURRENT=""
    continue
  fi
  run_step "$name" "$desc"
done
