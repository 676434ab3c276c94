package scaletest

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/load"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

var (
	profPlayers = flag.Int("profile.players", 1000, "BenchmarkMatchProfile: simulated players")
	profSeconds = flag.Int("profile.seconds", 8, "BenchmarkMatchProfile: seconds sampled")
	profOut     = flag.String("profile.out", "", "BenchmarkMatchProfile: keep perf.data here")
	profMatches = flag.Int("profile.matches", 1, "BenchmarkMatchProfile: match instances (the first is profiled)")
)

// BenchmarkMatchProfile profiles one match instance (the production
// binary, in its own process) while `tabuleiro load` plays on a 2-lobby,
// 1-match (-profile.matches) cluster: perf samples the process's CPU with call graphs (Go
// keeps frame pointers), and the benchmark prints the functions that use
// the most CPU themselves and cumulatively, and the share of CPU by area
// (Redis client, gRPC, protobuf, JSON, engine, runtime, kernel). perf
// must be installed (linux-perf). One iteration is one run:
//
//	go test -run '^$' -bench MatchProfile -benchtime 1x ./cmd/tabuleiro/internal/scaletest/ -profile.players 1000
func BenchmarkMatchProfile(b *testing.B) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		b.Fatal("perf is not installed: apt-get install linux-perf")
	}
	c := Start(b, Options{Lobbies: 2, Matches: *profMatches})
	data := *profOut
	if data == "" {
		data = filepath.Join(b.TempDir(), "perf.data")
	}
	for b.Loop() {
		type result struct {
			out []byte
			err error
		}
		prof := make(chan result, 1)
		go func() { // ends with perf, which stops after profSeconds
			<-time.After(3 * time.Second) // past the first pairings
			out, err := exec.Command(perf, "record", "-F", "999", "-g", "-o", data, "-p", strconv.Itoa(c.Match[0].Pid()),
				"--", "sleep", strconv.Itoa(*profSeconds)).CombinedOutput()
			prof <- result{out, err}
		}()
		rep, err := load.Run(b.Context(), load.Config{
			Lobby: c.LobbyAddrs, Match: c.MatchAddrs, Players: *profPlayers, Duration: time.Duration(*profSeconds+5) * time.Second,
			Drain: 5 * time.Second, Wander: 200, TimeControl: &gamev1.TimeControl{BaseMs: 3_600_000},
		})
		if err != nil {
			b.Fatal(err)
		}
		rep.Write(os.Stderr, nil)
		r := <-prof
		if r.err != nil {
			b.Fatalf("perf record: %v\n%s", r.err, r.out)
		}
		self := perfReport(b, perf, data, "--no-children")
		cum := perfReport(b, perf, data, "--children")
		fmt.Fprintf(os.Stderr, "match instance CPU, top functions by self time:\n%s", top(self, 25))
		fmt.Fprintf(os.Stderr, "cumulative (with callees), selected:\n")
		for _, k := range []string{"rpc.(*Server).actions", "match.(*Service).SubmitPly", "redisstore.(*Store).Commit",
			"go-redis/v9.(*Client).Process", "redisotel/v9.(*tracingHook).ProcessHook", "rpc.(*Server).stream", "view.Event",
			"view.GameViewOf", "view.quoridorBoard", "grpc.(*serverStream).SendMsg", "protobuf/proto.MarshalOptions.marshal",
			"encoding/json", "tabuleiro.dev/pkg/engine", "runtime.gcBgMarkWorker", "runtime.mallocgc", "runtime.schedule", "do_syscall_64"} {
			for _, e := range cum {
				if strings.Contains(e.sym, k) {
					fmt.Fprintf(os.Stderr, "  %5.1f%%  %s\n", e.pct, e.sym)
					break
				}
			}
		}
		fmt.Fprintf(os.Stderr, "self time by area:\n")
		for _, a := range areas(self) {
			fmt.Fprintf(os.Stderr, "  %5.1f%%  %s\n", a.pct, a.name)
		}
		b.ReportMetric(rep.PliesPerSecond(), "plies/s")
	}
}

// perfEntry is one line of perf report: a symbol and its share.
type perfEntry struct {
	pct float64
	sym string
}

func perfReport(b *testing.B, perf, data, mode string) []perfEntry {
	out, err := exec.Command(perf, "report", "-i", data, "--stdio", mode, "--sort", "symbol", "-g", "none",
		"--percent-limit", "0.05").Output()
	if err != nil {
		b.Fatalf("perf report: %v", err)
	}
	var es []perfEntry
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || strings.HasPrefix(f[0], "#") || !strings.HasSuffix(f[0], "%") {
			continue
		}
		pct, err := strconv.ParseFloat(strings.TrimSuffix(f[0], "%"), 64)
		if err != nil {
			continue
		}
		// "12.3%  [.] sym" (self) or "12.3%  4.5%  [.] sym" (children)
		i := 1
		if strings.HasSuffix(f[1], "%") {
			i = 2
		}
		if i+1 >= len(f) { // f[i] is [.] (user) or [k] (kernel)
			continue
		}
		es = append(es, perfEntry{pct, strings.Join(f[i:], " ")})
	}
	return es
}

func top(es []perfEntry, n int) string {
	var sb strings.Builder
	for i, e := range es {
		if i == n {
			break
		}
		fmt.Fprintf(&sb, "  %5.1f%%  %s\n", e.pct, e.sym)
	}
	return sb.String()
}

type area struct {
	name string
	pct  float64
}

// areas adds up self time by where the function lives.
func areas(es []perfEntry) []area {
	order := []struct{ name, match string }{
		{"engine (pkg/engine)", "tabuleiro.dev/pkg/engine"},
		{"match service code", "tabuleiro.dev/services/match"},
		{"platform (auth, telemetry)", "tabuleiro.dev/pkg/platform"},
		{"Redis client (go-redis)", "github.com/redis/go-redis"},
		{"gRPC", "google.golang.org/grpc"},
		{"protobuf", "google.golang.org/protobuf"},
		{"OpenTelemetry", "go.opentelemetry.io"},
		{"JSON", "encoding/json"},
		{"crypto", "crypto/"},
		{"garbage collector and allocator", "runtime.gc|runtime.malloc|runtime.scan|runtime.mark|runtime.greyobject|runtime.findObject|runtime.heapBits|runtime.(*mspan)|runtime.(*mheap)|runtime.(*mcache)|runtime.memclr|runtime.wbBuf|runtime.bulkBarrier|runtime.typePointers|runtime.(*gcWork)|runtime.(*gcBits)|runtime.sweep|runtime.(*sweepLocked)|runtime.nextFreeFast|runtime.deductAssistCredit|runtime.tryDeferToSpanScan|runtime.(*spanSet)|runtime.(*mspan)|runtime.scanstack|runtime.pcvalue|runtime.findfunc|runtime.(*unwinder)|runtime.step|runtime.funcInfo|runtime.scanframe|runtime.getStackMap|runtime.markBits|runtime.spanOf|runtime.gcDrain|runtime.markroot|runtime.scanSpan|runtime.(*gcBitsArena)|runtime.mapassign|runtime.newobject|runtime.growslice|runtime.makeslice|runtime.makemap|runtime.(*spanInlineMarkBits)"},
		{"scheduler, timers, netpoll", "runtime.schedule|runtime.findRunnable|runtime.execute|runtime.park|runtime.gopark|runtime.ready|runtime.runqget|runtime.runqsteal|runtime.netpoll|runtime.futex|runtime.notesleep|runtime.notewakeup|runtime.stealWork|runtime.checkTimers|runtime.(*timer|runtime.(*timers)|runtime.mcall|runtime.gogo|runtime.goready|runtime.casgstatus|runtime.lock|runtime.unlock|runtime.wakep|runtime.startm|runtime.stopm|runtime.resetspinning|runtime.usleep|runtime.nanotime|runtime.selectgo|runtime.chan|runtime.send|runtime.recv|runtime.procyield|runtime.osyield|runtime.(*waitq)|runtime.semacquire|runtime.semrelease|runtime.(*semaRoot)"},
		{"other Go runtime", "runtime."},
		{"syscalls (Go side)", "syscall.|internal/poll|net."},
		{"kernel (network, futex, scheduler)", "[k]"},
	}
	sums := make([]float64, len(order)+1)
	for _, e := range es {
		k := len(order)
		for i, o := range order {
			if matchAny(e.sym, o.match) {
				k = i
				break
			}
		}
		sums[k] += e.pct
	}
	var out []area
	for i, o := range order {
		out = append(out, area{o.name, sums[i]})
	}
	return append(out, area{"other", sums[len(order)]})
}

func matchAny(sym, pats string) bool {
	for _, p := range strings.Split(pats, "|") {
		if p == "[k]" {
			if strings.HasPrefix(sym, "[k]") {
				return true
			}
			continue
		}
		if strings.Contains(sym, p) {
			return true
		}
	}
	return false
}
