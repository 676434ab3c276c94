package bots

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/pkg/engine"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	"tabuleiro.dev/services/bot/tournament"
)

// writeMatch prints a match's table in p's language: the settings, A's
// wins, draws, losses and score, how the games ended, the Elo difference
// and each side's thinking times.
func writeMatch(w io.Writer, p *text.Printer, r tournament.Result) {
	c := r.Config
	fmt.Fprintln(w, text.T(p, "bots.match_title", "game", c.Game, "variant", r.Variant, "a", c.A, "b", c.B,
		"games", text.T(p, "bots.games", "count", r.Games()), "budget", budget(p, c.Budget), "threads", c.Threads,
		"opening", text.T(p, "bots.opening", "count", c.Opening), "elapsed", r.Elapsed.Round(time.Second)))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, text.T(p, "bots.match_head"))
	fmt.Fprintf(tw, "A %s\t%d\t%d\t%d\t%s\n", c.A, r.Wins, r.Draws, r.Losses, percent(p, r.Score()))
	_ = tw.Flush()
	endings := make([]string, 0, len(r.Endings))
	for e, n := range r.Endings {
		endings = append(endings, fmt.Sprintf("%s %d", ending(p, e), n))
	}
	slices.Sort(endings)
	fmt.Fprintln(w, text.T(p, "bots.endings", "endings", strings.Join(endings, ", ")))
	fmt.Fprintln(w, text.T(p, "bots.elo", "elo", eloText(p, r)))
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, text.T(p, "bots.think_head"))
	for k, name := range []string{"A " + c.A, "B " + c.B} {
		t := r.Think[k]
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", name, t.N, round(t.Mean), round(t.P99), round(t.Max))
	}
	_ = tw.Flush()
}

// writeLadder prints a ladder in p's language: the ratings, strongest
// first, then every match.
func writeLadder(w io.Writer, p *text.Printer, r tournament.LadderResult) {
	c := r.Config
	fmt.Fprintln(w, text.T(p, "bots.ladder_title", "game", c.Game, "variant", r.Variant, "levels", strings.Join(c.Levels, ", "),
		"games", text.T(p, "bots.games", "count", c.Games), "budget", budget(p, c.Budget),
		"opening", text.T(p, "bots.opening", "count", c.Opening), "elapsed", r.Elapsed.Round(time.Second)))
	fmt.Fprintln(w, text.T(p, "bots.ladder_scale", "anchor", c.Levels[0]))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, text.T(p, "bots.ladder_head"))
	for _, x := range r.Ratings {
		fmt.Fprintf(tw, "%s\t%s\t[%s, %s]\t%d\t%s\n", x.Level, elo(x.Elo), elo(x.Low), elo(x.High), x.Games, percent(p, x.Score))
	}
	_ = tw.Flush()
	fmt.Fprintln(w, text.T(p, "bots.ladder_matches"))
	tw = tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	for _, m := range r.Matches {
		fmt.Fprintf(tw, "  %s\t%d-%d-%d\t%s\n", m.Config.A, m.Wins, m.Draws, m.Losses, m.Config.B)
	}
	_ = tw.Flush()
}

// budget is a match's thinking time per ply, or that each level thinks
// for its own default.
func budget(p *text.Printer, d time.Duration) string {
	if d > 0 {
		return d.String()
	}
	return text.T(p, "bots.budget_default")
}

// percent is a score per game as a percentage with one decimal.
func percent(p *text.Printer, score float64) string {
	return text.Decimal(p, 100*score, 1) + "%"
}

// ending words one of the tournament's endings ("A wins (goal)", "draw
// (repetition)", "draw (ply cap)"); one it does not know stays as it is.
func ending(p *text.Printer, e string) string {
	if e == "draw (ply cap)" {
		return text.T(p, "bots.ending.ply_cap")
	}
	for prefix, key := range map[string]string{"A wins": "bots.ending.a_wins", "B wins": "bots.ending.b_wins", "draw": "bots.ending.draw"} {
		rest, ok := strings.CutPrefix(e, prefix+" (")
		if !ok || !strings.HasSuffix(rest, ")") {
			continue
		}
		r, err := engine.ParseReason(strings.TrimSuffix(rest, ")"))
		if err != nil {
			return e
		}
		return text.T(p, key, "reason", text.Reason(p, gamev1.Reason(r)))
	}
	return e
}

// eloText is the Elo difference of A over B: the estimate and its 95%
// interval, or, when one side scored every point (the estimate is
// infinite), the interval's finite end as a bound.
func eloText(p *text.Printer, r tournament.Result) string {
	d, lo, hi := r.Elo()
	games := text.T(p, "bots.games", "count", r.Games())
	switch {
	case r.Games() == 0:
		return text.T(p, "bots.elo_none")
	case math.IsInf(d, -1):
		return text.T(p, "bots.elo_at_most", "elo", elo(hi), "games", games)
	case math.IsInf(d, 1):
		return text.T(p, "bots.elo_at_least", "elo", elo(lo), "games", games)
	}
	return text.T(p, "bots.elo_interval", "elo", elo(d), "low", elo(lo), "high", elo(hi))
}

// elo is a rating or a difference with its sign, whole ("0" for one that
// rounds to zero, never "-0").
func elo(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "+inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	if r := math.Round(x); r != 0 {
		return fmt.Sprintf("%+.0f", r)
	}
	return "0"
}

// round rounds a thinking time to what the table shows.
func round(d time.Duration) time.Duration {
	if d > time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Microsecond)
}
