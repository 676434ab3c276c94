// Package storetest is the contract suite of the recorder's store (a
// recorder.Writer over the games table): Run runs it against one
// implementation, and each implementation's tests call Run — real
// PostgreSQL and the one-process mode's embedded SQLite alike.
package storetest

import (
	"database/sql"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/recorder"
)

// NewStore returns a Writer on an empty, migrated database for one test,
// and that database, where the suite reads back what was written.
type NewStore func(t *testing.T) (recorder.Writer, *sql.DB)

// Run runs the contract suite.
func Run(t *testing.T, newStore NewStore) {
	t.Run("RecordedOnce", func(t *testing.T) { t.Parallel(); testRecordedOnce(t, newStore) })
	t.Run("Fields", func(t *testing.T) { t.Parallel(); testFields(t, newStore) })
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func record(id string) *match.Record {
	return &match.Record{
		ID: id, Game: engine.Quoridor, Variant: "standard", Rated: true,
		Seats: []match.Participant{{PlayerID: "p1", DisplayName: "One"}, {PlayerID: "p2", DisplayName: "Two"}},
		Clock: &match.TimeControl{BaseMS: 60_000, IncrementMS: 1_000},
		Plies: []match.PlyRecord{
			{Number: 1, Seat: engine.First, Notation: "e2", ClockMS: 60_000, ThinkMS: 1_000},
			{Number: 2, Seat: engine.Second, Notation: "e8", ClockMS: 59_500, ThinkMS: 1_500},
		},
		Outcome:   engine.WinFor(engine.Second, engine.ReasonResignation),
		StartedAt: t0.UnixMilli(), EndedAt: t0.Add(90 * time.Second).UnixMilli(),
	}
}

func count(t *testing.T, db *sql.DB, id string) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM games WHERE game_id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A record delivered several times, even at once by several recorders,
// is stored once, as first written.
func testRecordedOnce(t *testing.T, newStore NewStore) {
	w, db := newStore(t)
	ctx := t.Context()
	r := record("g1")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := w.InsertGame(ctx, r); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	again := record("g1")
	again.Outcome = engine.DrawBy(engine.ReasonAgreement)
	if err := w.InsertGame(ctx, again); err != nil {
		t.Fatalf("second delivery: %v", err)
	}
	if n := count(t, db, "g1"); n != 1 {
		t.Fatalf("%d rows for g1, want 1", n)
	}
	var result string
	if err := db.QueryRowContext(ctx, `SELECT result FROM games WHERE game_id = $1`, "g1").Scan(&result); err != nil || result != "win" {
		t.Errorf("result %q (%v): the second delivery overwrote the first", result, err)
	}
	if err := w.InsertGame(ctx, record("g2")); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "g2"); n != 1 {
		t.Errorf("%d rows for g2, want 1", n)
	}
}

// Every field reaches its column: seats (people, bots, none), the clock
// (or none), plies with their clocks and think times, the outcome, times
// and Banqi's layout and seed.
func testFields(t *testing.T, newStore NewStore) {
	w, db := newStore(t)
	ctx := t.Context()
	type row struct {
		game, variant, firstName, plies, clocks, thinks, result, reason string
		rated                                                           bool
		firstPlayer, secondPlayer, secondName, winner, layout, seed     *string
		private                                                         bool
		invited                                                         *string
		firstBot, secondBot                                             *int
		base, inc                                                       *int64
		count                                                           int
		started, ended                                                  time.Time
	}
	s := func(v string) *string { return &v }
	n := func(v int) *int { return &v }
	i64 := func(v int64) *int64 { return &v }
	people := record("people")
	bot := record("bot")
	bot.Game, bot.Variant, bot.Rated = engine.Banqi, "standard", false
	bot.Seats = []match.Participant{{DisplayName: "Bot (hard)", BotLevel: 3}, {PlayerID: "p2", DisplayName: "Two"}}
	bot.Clock = nil
	bot.Plies = []match.PlyRecord{{Number: 1, Notation: "a1", ClockMS: -1, ThinkMS: 7}}
	bot.Outcome = engine.DrawBy(engine.ReasonRepetition)
	bot.Layout, bot.Seed = "KGGMMRRNNCCPPPPPkggmmrrnnccppppp", "00ff"
	solo := record("solo")
	solo.Rated = false
	solo.Seats = solo.Seats[:1]
	solo.Plies = []match.PlyRecord{}
	solo.Private, solo.Invited = true, []string{"p3", "p 4"}
	tests := []struct {
		give *match.Record
		want row
	}{
		{give: people, want: row{game: "quoridor", variant: "standard", rated: true, firstPlayer: s("p1"), firstName: "One",
			secondPlayer: s("p2"), secondName: s("Two"), base: i64(60_000), inc: i64(1_000),
			plies: "e2 e8", clocks: "60000 59500", thinks: "1000 1500", count: 2,
			result: "win", winner: s("second"), reason: "resignation", started: t0, ended: t0.Add(90 * time.Second)}},
		{give: bot, want: row{game: "banqi", variant: "standard", firstName: "Bot (hard)", firstBot: n(3),
			secondPlayer: s("p2"), secondName: s("Two"), plies: "a1", clocks: "-", thinks: "7", count: 1,
			result: "draw", reason: "repetition", started: t0, ended: t0.Add(90 * time.Second),
			layout: s(bot.Layout), seed: s("00ff")}},
		{give: solo, want: row{game: "quoridor", variant: "standard", firstPlayer: s("p1"), firstName: "One",
			private: true, invited: s(`["p3","p 4"]`),
			base: i64(60_000), inc: i64(1_000), result: "win", winner: s("second"), reason: "resignation",
			started: t0, ended: t0.Add(90 * time.Second)}},
	}
	for _, tt := range tests {
		if err := w.InsertGame(ctx, tt.give); err != nil {
			t.Fatalf("insert %s: %v", tt.give.ID, err)
		}
		var got row
		err := db.QueryRowContext(ctx, `SELECT game, variant, rated, first_player_id, first_display_name, first_bot_level,
			second_player_id, second_display_name, second_bot_level, base_ms, increment_ms, plies, ply_clock_ms,
			ply_think_ms, ply_count, result, winner, reason, started_at, ended_at, layout, seed, private, invited
			FROM games WHERE game_id = $1`, tt.give.ID).Scan(&got.game, &got.variant, &got.rated, &got.firstPlayer,
			&got.firstName, &got.firstBot, &got.secondPlayer, &got.secondName, &got.secondBot, &got.base, &got.inc,
			&got.plies, &got.clocks, &got.thinks, &got.count, &got.result, &got.winner, &got.reason,
			&got.started, &got.ended, &got.layout, &got.seed, &got.private, &got.invited)
		if err != nil {
			t.Fatalf("read %s: %v", tt.give.ID, err)
		}
		if !got.started.Equal(tt.want.started) || !got.ended.Equal(tt.want.ended) {
			t.Errorf("%s: times %v %v, want %v %v", tt.give.ID, got.started, got.ended, tt.want.started, tt.want.ended)
		}
		got.started, got.ended = tt.want.started, tt.want.ended
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(row{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.give.ID, diff)
		}
	}
}
