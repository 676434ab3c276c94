package load

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/text"
)

// The report of a run, in the player's language: the figures of Report
// and what the Meter measured.

// String is the quantiles in English, for logs.
func (q Quantiles) String() string { return q.Text(nil) }

// Text is the quantiles as the report prints them, in p's language.
func (q Quantiles) Text(p *text.Printer) string {
	return text.T(p, "load.quantiles", "p50", q.P50.Round(10*time.Microsecond), "p99", q.P99.Round(10*time.Microsecond),
		"max", q.Max.Round(10*time.Microsecond), "count", q.N)
}

// Write prints the report in p's language (English when p is nil).
func (r Report) Write(w io.Writer, p *text.Printer) {
	fmt.Fprintln(w, text.T(p, "load.players", "players", r.Players, "elapsed", r.Elapsed.Round(time.Millisecond)))
	fmt.Fprintln(w, text.T(p, "load.games", "started", r.GamesStarted, "finished", r.GamesFinished, "peak", r.PeakLive))
	fmt.Fprintln(w, text.T(p, "load.plies", "plies", r.Plies, "rate", int64(math.Round(r.PliesPerSecond()))))
	fmt.Fprintln(w, text.T(p, "load.ply_rtt", "quantiles", r.PlyRTT.Text(p)))
	fmt.Fprintln(w, text.T(p, "load.wait", "quantiles", r.Wait.Text(p)))
	fmt.Fprintln(w, text.T(p, "load.rejoins", "count", r.Rejoins))
	codes := make([]string, 0, len(r.Errors))
	for c := range r.Errors {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	if len(codes) == 0 {
		fmt.Fprintln(w, text.T(p, "load.errors_none"))
	}
	for _, c := range codes {
		fmt.Fprintln(w, text.T(p, "load.errors", "code", c, "count", r.Errors[c], "first", r.ErrorSamples[c]))
	}
}

// Write prints the processor time per ply used since NewMeter by each
// kind of process found, Redis, and this process, and Redis's commands
// per ply, in p's language (English when p is nil).
func (m *Meter) Write(ctx context.Context, w io.Writer, p *text.Printer, plies int64) {
	if plies <= 0 {
		return
	}
	per := func(d time.Duration) string {
		return text.T(p, "load.ms", "ms", text.Decimal(p, float64(d.Microseconds())/1000/float64(plies), 3))
	}
	cpu := m.sample()
	var parts []string
	var cluster time.Duration
	for _, kind := range slices.Sorted(func(yield func(string) bool) {
		for k := range m.kinds {
			if !yield(k) {
				return
			}
		}
	}) {
		d := cpu[kind] - m.cpu0[kind]
		cluster += d
		parts = append(parts, fmt.Sprintf("%s %s (%d)", kind, per(d), len(m.kinds[kind])))
	}
	var cmds map[string]int64
	var nodes map[string]redisNode
	if m.rdb != nil {
		var err error
		if nodes, err = redisStats(ctx, m.rdb); err == nil {
			var rc time.Duration
			cmds = map[string]int64{}
			for addr, n := range nodes {
				rc += n.cpu - m.redis0[addr].cpu
				for k, c := range n.cmds {
					cmds[k] += c - m.redis0[addr].cmds[k]
				}
			}
			cluster += rc
			parts = append(parts, "redis "+per(rc))
		}
	}
	if len(parts) == 0 {
		fmt.Fprintln(w, text.T(p, "load.cpu_none"))
	} else {
		fmt.Fprintln(w, text.T(p, "load.cpu", "parts", strings.Join(parts, ", "), "total", per(cluster)))
	}
	fmt.Fprintln(w, text.T(p, "load.cpu_self", "cpu", per(ProcessCPU("self")-m.self0)))
	if cmds != nil {
		var cs []string
		var total int64
		for _, name := range slices.Sorted(func(yield func(string) bool) {
			for k := range cmds {
				if !yield(k) {
					return
				}
			}
		}) {
			d := cmds[name]
			total += d
			if float64(d) >= 0.01*float64(plies) && name != "info" {
				cs = append(cs, name+" "+text.Decimal(p, float64(d)/float64(plies), 2))
			}
		}
		fmt.Fprintln(w, text.T(p, "load.redis_commands", "total", text.Decimal(p, float64(total)/float64(plies), 2), "commands", strings.Join(cs, ", ")))
		m.writeShards(w, p, nodes, plies)
	}
}

// writeShards prints, for a cluster, each primary's share of the
// processor time, commands and keys and how far apart the primaries are
// (the largest over the smallest, less one), and for any Redis the
// cross-slot errors (INFO errorstats) since NewMeter.
func (m *Meter) writeShards(w io.Writer, p *text.Printer, nodes map[string]redisNode, plies int64) {
	var crossSlot int64
	addrs := slices.Sorted(func(yield func(string) bool) {
		for a := range nodes {
			if !yield(a) {
				return
			}
		}
	})
	type share struct{ cpu, cmds, keys, matchKeys float64 }
	var shares []share
	for _, a := range addrs {
		n, n0 := nodes[a], m.redis0[a]
		crossSlot += n.errs["CROSSSLOT"] - n0.errs["CROSSSLOT"]
		var calls int64
		for k, c := range n.cmds {
			if k != "info" && k != "dbsize" {
				calls += c - n0.cmds[k]
			}
		}
		sh := share{cpu: float64((n.cpu - n0.cpu).Microseconds()) / 1000, cmds: float64(calls), keys: float64(n.keys),
			matchKeys: float64(n.matchKeys)}
		shares = append(shares, sh)
		if len(addrs) > 1 {
			fmt.Fprintln(w, text.T(p, "load.redis_primary", "addr", a, "cpu", text.Decimal(p, sh.cpu/float64(plies), 3),
				"commands", text.Decimal(p, sh.cmds/float64(plies), 2), "keys", n.keys, "match_keys", n.matchKeys))
		}
	}
	if len(shares) > 1 {
		spread := func(f func(share) float64) string {
			lo, hi := f(shares[0]), f(shares[0])
			for _, s := range shares[1:] {
				lo, hi = min(lo, f(s)), max(hi, f(s))
			}
			if lo <= 0 {
				return text.T(p, "load.not_applicable")
			}
			return text.Decimal(p, (hi/lo-1)*100, 0) + "%"
		}
		fmt.Fprintln(w, text.T(p, "load.redis_spread",
			"cpu", spread(func(s share) float64 { return s.cpu }), "commands", spread(func(s share) float64 { return s.cmds }),
			"keys", spread(func(s share) float64 { return s.keys }), "match_keys", spread(func(s share) float64 { return s.matchKeys })))
	}
	fmt.Fprintln(w, text.T(p, "load.redis_cross_slot", "count", crossSlot))
}
