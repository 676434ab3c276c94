// Package storetest is the contract suite of the lobby's store: Run runs
// it against one implementation, and each implementation's tests call Run
// — real PostgreSQL and the one-process mode's embedded SQLite alike.
package storetest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/lobby/internal/accounts"
	"tabuleiro.dev/services/lobby/internal/glicko"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
)

// Store is what the suite needs of a store: the lobby's reads (the rpc
// package's Store) and the ratings processor.
type Store interface {
	SavePlayer(ctx context.Context, p lobby.Player) error
	Player(ctx context.Context, id string) (lobby.Player, error)
	Rating(ctx context.Context, playerID string, game engine.Game, variant string) (sqlstore.Rating, error)
	History(ctx context.Context, playerID, viewer string, game engine.Game, pageSize int, pageToken string) (sqlstore.Page, error)
	Game(ctx context.Context, gameID string) (sqlstore.Record, error)
	Stats(ctx context.Context, playerID string) (sqlstore.Stats, error)
	ProcessRatings(ctx context.Context, limit int) (int, error)
	CreateAccount(ctx context.Context, a sqlstore.Account) error
	AccountByKey(ctx context.Context, key string) (sqlstore.Account, error)
	DeleteAccount(ctx context.Context, playerID string) error
	MergeGuest(ctx context.Context, guestID, accountID string) (sqlstore.Merge, error)
	Newcomer(ctx context.Context, playerID string) (sqlstore.Newcomer, bool, error)
	AccountByPlayer(ctx context.Context, playerID string) (sqlstore.Account, error)
	SetPassword(ctx context.Context, playerID, hash string) error
	AddPasskey(ctx context.Context, p sqlstore.Passkey) error
	Passkeys(ctx context.Context, playerID string) ([]sqlstore.Passkey, error)
	Passkey(ctx context.Context, id string) (sqlstore.Passkey, error)
	UsePasskey(ctx context.Context, id, credential string) error
	RemovePasskey(ctx context.Context, playerID, id string) error
	Review(ctx context.Context, gameID, version string) (string, bool, error)
	SaveReview(ctx context.Context, gameID, version, review string) error
	Profile(ctx context.Context, key string, recent int) (sqlstore.Profile, error)
	Usernames(ctx context.Context, ids []string) (map[string]string, error)
}

// NewStore returns a store with glicko.Default() on an empty, migrated
// database for one test, and that database, where the suite writes the
// finished games the match service would.
type NewStore func(t *testing.T) (Store, *sql.DB)

// Run runs the contract suite.
func Run(t *testing.T, newStore NewStore) {
	tests := []struct {
		name string
		test func(*testing.T, NewStore)
	}{
		{"RatingsUpdatedOnce", testRatingsUpdatedOnce},
		{"ConcurrentProcessors", testConcurrentProcessors},
		{"GameRecord", testGameRecord},
		{"HistoryPaging", testHistoryPaging},
		{"PrivateGames", testPrivateGames},
		{"StatsPerBotLevel", testStatsPerBotLevel},
		{"Players", testPlayers},
		{"Fairness", testFairness},
		{"Accounts", testAccounts},
		{"AccountRace", testAccountRace},
		{"Passkeys", testPasskeys},
		{"Reviews", testReviews},
		{"DeleteAccount", testDeleteAccount},
		{"MergeGuest", testMergeGuest},
		{"Newcomer", testNewcomer},
		{"Profiles", testProfiles},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.test(t, newStore)
		})
	}
}

// game is a finished game to insert; a seat is a person (id) or a bot
// (level).
type game struct {
	id, game, variant string
	rated             bool
	p1, p2            string
	bot1, bot2        int
	result, winner    string // winner "" for a draw
	reason            string
	ended             time.Time
	private           bool
}

func insert(t *testing.T, db *sql.DB, g game) {
	t.Helper()
	null := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	nullInt := func(n int) any {
		if n == 0 {
			return nil
		}
		return n
	}
	if g.reason == "" {
		g.reason = "goal"
	}
	_, err := db.ExecContext(t.Context(), `INSERT INTO games (game_id, game, variant, rated, first_player_id,
		first_display_name, first_bot_level, second_player_id, second_display_name, second_bot_level,
		base_ms, increment_ms, plies, ply_clock_ms, ply_think_ms, ply_count, result, winner, reason,
		started_at, ended_at, layout, seed, private)
		VALUES ($1,$2,$3,$4,$5,'One',$6,$7,'Two',$8,180000,2000,'e2 e8 e3','179000 - 178500','1000 900 2500',3,$9,$10,$11,$12,$13,$14,$15,$16)`,
		g.id, g.game, g.variant, g.rated, null(g.p1), nullInt(g.bot1), null(g.p2), nullInt(g.bot2),
		g.result, null(g.winner), g.reason, g.ended.Add(-time.Minute), g.ended, null(""), null(""), g.private)
	if err != nil {
		t.Fatalf("insert game %s: %v", g.id, err)
	}
}

func testRatingsUpdatedOnce(t *testing.T, newStore NewStore) {
	s, db := newStore(t)
	ctx := t.Context()
	t0 := time.Unix(1_800_000_000, 0)
	insert(t, db, game{id: "g1", game: "quoridor", variant: "standard", rated: true, p1: "ana", p2: "bo", result: "win", winner: "first", ended: t0})
	insert(t, db, game{id: "g2", game: "quoridor", variant: "standard", rated: false, p1: "ana", p2: "bo", result: "win", winner: "second", ended: t0.Add(time.Second)})
	insert(t, db, game{id: "g3", game: "quoridor", variant: "standard", rated: true, p1: "bo", p2: "ana", result: "draw", reason: "aborted", ended: t0.Add(2 * time.Second)})

	// Several processors at once (several lobby instances), twice over.
	var wg sync.WaitGroup
	var total int
	var mu sync.Mutex
	for range 4 {
		wg.Go(func() {
			n, err := s.ProcessRatings(ctx, 10)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			total += n
			mu.Unlock()
		})
	}
	wg.Wait()
	if n, err := s.ProcessRatings(ctx, 10); err != nil || n != 0 {
		t.Fatalf("second pass processed %d, %v; want 0", n, err)
	}
	if total != 2 {
		t.Errorf("processed %d games, want 2 (g1 and the aborted g3)", total)
	}
	p := glicko.Default()
	wantA, wantB := p.Game(p.Initial, p.Initial, 1)
	a, err := s.Rating(ctx, "ana", engine.Quoridor, "standard")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Rating(ctx, "bo", engine.Quoridor, "standard")
	if a.Games != 1 || b.Games != 1 || math.Abs(a.Rating.Rating-wantA.Rating) > 1e-9 || math.Abs(b.Rating.Rating-wantB.Rating) > 1e-9 {
		t.Errorf("ratings ana %+v bo %+v; want one game each, %.2f and %.2f", a, b, wantA.Rating, wantB.Rating)
	}
	rec, err := s.Game(ctx, "g1")
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Changes) != 2 || rec.Changes[0].PlayerID != "ana" || rec.Changes[0].Before != 1500 || rec.Changes[0].After != a.Rating.Rating {
		t.Errorf("rating changes %+v", rec.Changes)
	}
	var unprocessed int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM games WHERE rated AND rating_processed_at IS NULL`).Scan(&unprocessed); err != nil || unprocessed != 0 {
		t.Errorf("%d rated games unprocessed, %v", unprocessed, err)
	}
	// A game the outbox replays is the same row: nothing to process again.
	if _, err := db.ExecContext(ctx, `INSERT INTO games SELECT * FROM games WHERE game_id = 'g1' ON CONFLICT DO NOTHING`); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.ProcessRatings(ctx, 10); n != 0 {
		t.Errorf("replayed game processed again")
	}
}

func testGameRecord(t *testing.T, newStore NewStore) {
	s, db := newStore(t)
	ctx := t.Context()
	insert(t, db, game{id: "g1", game: "quoridor", variant: "standard", p1: "ana", bot2: 3, result: "win", winner: "second", reason: "time", ended: time.Unix(1_800_000_000, 0)})
	rec, err := s.Game(ctx, "g1")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Outcome != engine.WinFor(engine.Second, engine.ReasonTime) || rec.Second == nil || rec.Second.Bot != lobby.BotHard || rec.SeatOf("ana") != engine.First {
		t.Errorf("summary %+v", rec.Summary)
	}
	if len(rec.Plies) != 3 || rec.Plies[0].Notation != "e2" || *rec.Plies[0].ClockMS != 179000 || rec.Plies[1].ClockMS != nil || rec.Plies[2].ThinkMS != 2500 {
		t.Errorf("plies %+v", rec.Plies)
	}
	if _, err := s.Game(ctx, "nope"); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("unknown game: %v", err)
	}
}

func testHistoryPaging(t *testing.T, newStore NewStore) {
	s, db := newStore(t)
	ctx := t.Context()
	t0 := time.Unix(1_800_000_000, 0)
	var want []string
	for i := range 25 {
		id := fmt.Sprintf("g%02d", i)
		// Pairs of games end at the same second: the id breaks the tie.
		insert(t, db, game{id: id, game: []string{"quoridor", "corners"}[i%2], variant: "x", p1: "ana", p2: "bo", result: "draw", ended: t0.Add(time.Duration(i/2) * time.Second)})
		want = append([]string{id}, want...)
	}
	insert(t, db, game{id: "other", game: "quoridor", variant: "x", p1: "cy", p2: "bo", result: "draw", ended: t0})
	var got []string
	token := ""
	pages := 0
	for {
		page, err := s.History(ctx, "ana", "ana", "", 10, token)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, g := range page.Games {
			got = append(got, g.GameID)
		}
		if token = page.Next; token == "" {
			break
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || pages != 3 {
		t.Errorf("history in %d pages: %v\nwant %v", pages, got, want)
	}
	page, err := s.History(ctx, "ana", "ana", engine.Corners, 100, "")
	if err != nil || len(page.Games) != 12 || page.Next != "" {
		t.Errorf("corners only: %d games, next %q, %v", len(page.Games), page.Next, err)
	}
	if _, err := s.History(ctx, "ana", "ana", "", 10, "!!"); !errors.Is(err, lobby.ErrInvalid) {
		t.Errorf("bad token: %v", err)
	}
}

// A private room's game is in its players' own history and in what one
// of them sees of the other's, never in a stranger's view of either; the
// record says it is private (the rpc layer hides it from strangers).
func testPrivateGames(t *testing.T, newStore NewStore) {
	s, db := newStore(t)
	ctx := t.Context()
	t0 := time.Unix(1_800_000_000, 0)
	insert(t, db, game{id: "pub", game: "quoridor", variant: "standard", p1: "ana", p2: "bo", result: "draw", ended: t0})
	insert(t, db, game{id: "priv", game: "quoridor", variant: "standard", p1: "ana", p2: "bo", result: "draw", ended: t0.Add(time.Second), private: true})
	ids := func(player, viewer string) string {
		t.Helper()
		page, err := s.History(ctx, player, viewer, "", 100, "")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, g := range page.Games {
			out = append(out, g.GameID)
		}
		return fmt.Sprint(out)
	}
	for _, c := range []struct{ player, viewer, want string }{
		{"ana", "ana", "[priv pub]"}, {"ana", "bo", "[priv pub]"}, {"bo", "ana", "[priv pub]"},
		{"ana", "cy", "[pub]"}, {"bo", "", "[pub]"},
	} {
		if got := ids(c.player, c.viewer); got != c.want {
			t.Errorf("history of %s seen by %q: %s, want %s", c.player, c.viewer, got, c.want)
		}
	}
	for id, want := range map[string]bool{"pub": false, "priv": true} {
		rec, err := s.Game(ctx, id)
		if err != nil || rec.Private != want {
			t.Errorf("record %s: private %v, %v; want %v", id, rec.Private, err, want)
		}
	}
}

func testStatsPerBotLevel(t *testing.T, newStore NewStore) {
	s, db := newStore(t)
	ctx := t.Context()
	if err := s.SavePlayer(ctx, lobby.Player{ID: "ana", DisplayName: "Ana"}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_800_000_000, 0)
	games := []game{
		{p1: "ana", bot2: 1, result: "win", winner: "first"},                   // beat easy as first
		{p2: "ana", bot1: 1, result: "win", winner: "second"},                  // beat easy as second
		{p1: "ana", bot2: 1, result: "win", winner: "second"},                  // lost to easy
		{p2: "ana", bot1: 3, result: "draw"},                                   // drew hard
		{p1: "ana", bot2: 3, result: "draw", reason: "aborted"},                // aborted: no count
		{p1: "ana", p2: "ana", result: "win", winner: "first"},                 // local two-player: no count
		{p1: "ana", p2: "bo", result: "win", winner: "first"},                  // people: no count
		{game: "corners", p1: "ana", bot2: 1, result: "win", winner: "second"}, // another game
	}
	for i, g := range games {
		g.id = fmt.Sprintf("g%d", i)
		if g.game == "" {
			g.game = "quoridor"
		}
		g.variant, g.ended = "standard", t0.Add(time.Duration(i)*time.Second)
		insert(t, db, g)
	}
	insert(t, db, game{id: "r1", game: "corners", variant: "classic-3x3", rated: true, p1: "ana", p2: "bo", result: "win", winner: "first", ended: t0})
	if _, err := s.ProcessRatings(ctx, 10); err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats(ctx, "ana")
	if err != nil {
		t.Fatal(err)
	}
	want := []sqlstore.BotRecord{
		{Game: engine.Corners, Level: lobby.BotEasy, Losses: 1},
		{Game: engine.Quoridor, Level: lobby.BotEasy, Wins: 2, Losses: 1},
		{Game: engine.Quoridor, Level: lobby.BotHard, Draws: 1},
	}
	if fmt.Sprint(st.Bots) != fmt.Sprint(want) {
		t.Errorf("bot records %+v\nwant %+v", st.Bots, want)
	}
	if len(st.Ratings) != 1 || st.Ratings[0].Variant != "classic-3x3" || st.Ratings[0].Games != 1 || st.Ratings[0].Rating.Rating <= 1500 {
		t.Errorf("ratings %+v", st.Ratings)
	}
	if _, err := s.Stats(ctx, "nobody"); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("unknown player: %v", err)
	}
}

// Several processors (several lobby instances) working through many
// rated games at once apply each game once: every game is processed by
// exactly one of them, and each player's game count is their number of
// rated games.
func testConcurrentProcessors(t *testing.T, newStore NewStore) {
	s, db := newStore(t)
	ctx := t.Context()
	t0 := time.Unix(1_800_000_000, 0)
	players := []string{"ana", "bo", "cy"}
	want := map[string]int{}
	const games = 24
	for i := range games {
		p1, p2 := players[i%3], players[(i+1)%3]
		want[p1]++
		want[p2]++
		// A day apart: a pair's second game of a day changes no rating.
		insert(t, db, game{id: fmt.Sprintf("g%02d", i), game: "quoridor", variant: "standard", rated: true,
			p1: p1, p2: p2, result: "win", winner: "first", ended: t0.Add(time.Duration(i) * 25 * time.Hour)})
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for range 4 {
		wg.Go(func() {
			for {
				n, err := s.ProcessRatings(ctx, 2)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				total += n
				mu.Unlock()
				if n == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	if total != games {
		t.Errorf("processed %d games, want %d", total, games)
	}
	for _, p := range players {
		r, err := s.Rating(ctx, p, engine.Quoridor, "standard")
		if err != nil {
			t.Fatal(err)
		}
		if r.Games != want[p] {
			t.Errorf("%s has %d rated games, want %d", p, r.Games, want[p])
		}
	}
	var changes int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM rating_changes`).Scan(&changes); err != nil || changes != 2*games {
		t.Errorf("%d rating changes (%v), want %d", changes, err, 2*games)
	}
}

// A player is saved, renamed by signing in again, and an unknown one is
// not found.
func testPlayers(t *testing.T, newStore NewStore) {
	s, _ := newStore(t)
	ctx := t.Context()
	for _, name := range []string{"Ana", "Ana B."} {
		if err := s.SavePlayer(ctx, lobby.Player{ID: "ana", DisplayName: name}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Player(ctx, "ana")
		if err != nil || got != (lobby.Player{ID: "ana", DisplayName: name}) {
			t.Errorf("player %+v (%v), want ana named %q", got, err, name)
		}
	}
	if _, err := s.Player(ctx, "nobody"); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("unknown player: %v", err)
	}
	r, err := s.Rating(ctx, "ana", engine.Quoridor, "standard")
	if err != nil || r.Games != 0 || r.Rating != glicko.Default().Initial || !r.UpdatedAt.IsZero() {
		t.Errorf("rating of a player who never played: %+v, %v", r, err)
	}
}

// A game asked to be rated changes ratings only between established
// players (3 casual games finished, or a day old), once a day per pair of
// players and per pair of sign-in addresses; the others are marked with
// the reason, which the summary and the stats carry.
func testFairness(t *testing.T, newStore NewStore) {
	s, db := newStore(t)
	ctx := t.Context()
	for _, p := range []lobby.Player{{ID: "ana", DisplayName: "Ana", Addr: "192.0.2.1"},
		{ID: "bo", DisplayName: "Bo", Addr: "192.0.2.2"}, {ID: "cy", DisplayName: "Cy", Addr: "192.0.2.2"}} {
		if err := s.SavePlayer(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now().Add(time.Hour) // after the players' creation, well within their first day
	win := func(id, p1, p2 string, rated bool, ended time.Time) {
		insert(t, db, game{id: id, game: "quoridor", variant: "standard", rated: rated, p1: p1, p2: p2, result: "win", winner: "first", ended: ended})
	}
	win("new", "ana", "bo", true, now)
	for i := range 3 {
		win(fmt.Sprintf("casual-ab%d", i), "ana", "bo", false, now.Add(time.Duration(i+1)*time.Minute))
		win(fmt.Sprintf("casual-ca%d", i), "cy", "ana", false, now.Add(time.Duration(i+1)*time.Minute))
	}
	win("rated", "ana", "bo", true, now.Add(10*time.Minute))
	win("repeat", "bo", "ana", true, now.Add(11*time.Minute))
	win("same-addresses", "ana", "cy", true, now.Add(12*time.Minute))
	win("next-day", "ana", "bo", true, now.Add(10*time.Minute+25*time.Hour))
	for {
		n, err := s.ProcessRatings(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	for id, want := range map[string]string{
		"new":            sqlstore.UnratedNewPlayer,
		"casual-ab0":     sqlstore.UnratedCasual,
		"rated":          "",
		"repeat":         sqlstore.UnratedRepeatOpponents,
		"same-addresses": sqlstore.UnratedRepeatAddresses,
		"next-day":       "",
	} {
		rec, err := s.Game(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if rec.UnratedReason != want {
			t.Errorf("game %s: unrated reason %q, want %q", id, rec.UnratedReason, want)
		}
		if rated := len(rec.Changes) == 2; rated != (want == "") {
			t.Errorf("game %s: rating changes %+v", id, rec.Changes)
		}
	}
	r, err := s.Rating(ctx, "ana", engine.Quoridor, "standard")
	if err != nil || r.Games != 2 {
		t.Errorf("ana's rating %+v (%v), want 2 rated games", r, err)
	}
	st, err := s.Stats(ctx, "ana")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{sqlstore.UnratedNewPlayer: 1, sqlstore.UnratedRepeatOpponents: 1, sqlstore.UnratedRepeatAddresses: 1}
	if fmt.Sprint(st.Unrated) != fmt.Sprint(want) {
		t.Errorf("ana's unrated games %v, want %v", st.Unrated, want)
	}
}

func account(t *testing.T, playerID, username string) sqlstore.Account {
	t.Helper()
	u, err := accounts.ParseUsername(username)
	if err != nil {
		t.Fatal(err)
	}
	return sqlstore.Account{PlayerID: playerID, Username: u.Name, Key: u.Key, Skeleton: u.Skeleton,
		ShownSkeleton: u.Shown, PasswordHash: "$argon2id$v=19$m=64,t=1,p=1$c2FsdA$a2V5"}
}

// A guest becomes an account once; its username is unique under case
// folding, and one that looks like another account's is refused, naming
// it; the account is found by its key, and the player carries its
// username.
func testAccounts(t *testing.T, newStore NewStore) {
	s, _ := newStore(t)
	ctx := t.Context()
	for _, id := range []string{"ana", "bia", "caio"} {
		if err := s.SavePlayer(ctx, lobby.Player{ID: id, DisplayName: "P " + id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateAccount(ctx, account(t, "nobody", "Nobody")); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("account of an unknown player: %v, want ErrNotFound", err)
	}
	if err := s.CreateAccount(ctx, account(t, "ana", "Alice")); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateAccount(ctx, account(t, "ana", "Another")); !errors.Is(err, lobby.ErrAlreadyClaimed) {
		t.Errorf("second claim: %v, want ErrAlreadyClaimed", err)
	}
	var ue *lobby.UsernameError
	if err := s.CreateAccount(ctx, account(t, "bia", "ALICE")); !errors.Is(err, lobby.ErrUsernameTaken) || !errors.As(err, &ue) || ue.Existing != "Alice" {
		t.Errorf("the same username in capitals: %v, want ErrUsernameTaken naming Alice", err)
	}
	for _, name := range []string{"a1ice", "AIice", "aIice"} {
		if err := s.CreateAccount(ctx, account(t, "bia", name)); !errors.Is(err, lobby.ErrUsernameConfusable) {
			t.Errorf("look-alike %q: %v, want ErrUsernameConfusable", name, err)
		}
	}
	if err := s.CreateAccount(ctx, account(t, "bia", "Alicia")); err != nil {
		t.Errorf("a different username: %v", err)
	}
	a, err := s.AccountByKey(ctx, "alice")
	if err != nil || a.PlayerID != "ana" || a.Username != "Alice" || a.DisplayName != "P ana" || a.PasswordHash == "" {
		t.Errorf("AccountByKey(alice) = %+v, %v", a, err)
	}
	if _, err := s.AccountByKey(ctx, "nobody"); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("unknown username: %v", err)
	}
	if p, err := s.Player(ctx, "ana"); err != nil || p.Username != "Alice" {
		t.Errorf("player of an account: %+v, %v", p, err)
	}
	if p, err := s.Player(ctx, "caio"); err != nil || p.Username != "" {
		t.Errorf("guest: %+v, %v", p, err)
	}
}

// Guests claiming look-alike usernames at once: exactly one wins, the
// others are told whose username is in the way.
func testAccountRace(t *testing.T, newStore NewStore) {
	s, _ := newStore(t)
	ctx := t.Context()
	names := []string{"modern", "rnodern", "MODERN", "m0dern", "modērn"}
	names = names[:4]
	for i := range names {
		if err := s.SavePlayer(ctx, lobby.Player{ID: fmt.Sprint("p", i), DisplayName: "P"}); err != nil {
			t.Fatal(err)
		}
	}
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() { errs[i] = s.CreateAccount(ctx, account(t, fmt.Sprint("p", i), n)) })
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case errors.Is(err, lobby.ErrUsernameTaken), errors.Is(err, lobby.ErrUsernameConfusable):
		default:
			t.Errorf("claim %q: %v", names[i], err)
		}
	}
	if won != 1 {
		t.Errorf("%d of the look-alike claims won, want 1 (%v)", won, errs)
	}
}

// A game's review is kept per engine version; saving one again keeps the
// first (two requests at once made the same review).
func testReviews(t *testing.T, newStore NewStore) {
	s, db := newStore(t)
	ctx := t.Context()
	insert(t, db, game{id: "g1", game: "quoridor", variant: "standard", p1: "ana", bot2: 3, result: "win", winner: "second", ended: time.Unix(1_800_000_000, 0)})
	if _, ok, err := s.Review(ctx, "g1", "v1@100"); ok || err != nil {
		t.Fatalf("review before any: %v, %v", ok, err)
	}
	if err := s.SaveReview(ctx, "g1", "v1@100", `{"a":1}`); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveReview(ctx, "g1", "v1@100", `{"a":2}`); err != nil {
		t.Fatalf("saving again: %v", err)
	}
	if err := s.SaveReview(ctx, "g1", "v2@100", `{"b":1}`); err != nil {
		t.Fatal(err)
	}
	for v, want := range map[string]string{"v1@100": `{"a":1}`, "v2@100": `{"b":1}`} {
		if got, ok, err := s.Review(ctx, "g1", v); !ok || err != nil || got != want {
			t.Errorf("review %s: %q %v %v, want %q", v, got, ok, err, want)
		}
	}
}

// Passkeys belong to accounts: one credential id once across accounts,
// listed oldest first, updated by a sign-in, removed by their owner only;
// a password is replaced; a guest has neither.
func testPasskeys(t *testing.T, newStore NewStore) {
	s, _ := newStore(t)
	ctx := t.Context()
	for _, id := range []string{"ana", "bia", "guest"} {
		if err := s.SavePlayer(ctx, lobby.Player{ID: id, DisplayName: "P " + id}); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range []sqlstore.Account{account(t, "ana", "Ana_K"), account(t, "bia", "Bia_K")} {
		if err := s.CreateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddPasskey(ctx, sqlstore.Passkey{ID: "k0", PlayerID: "guest", Name: "x", Credential: "{}"}); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("a guest's passkey: %v, want ErrNotFound", err)
	}
	for _, p := range []sqlstore.Passkey{
		{ID: "k1", PlayerID: "ana", Name: "laptop", Credential: `{"n":1}`},
		{ID: "k2", PlayerID: "ana", Name: "phone", Credential: `{"n":2}`},
	} {
		if err := s.AddPasskey(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddPasskey(ctx, sqlstore.Passkey{ID: "k1", PlayerID: "bia", Name: "copy", Credential: "{}"}); !errors.Is(err, sqlstore.ErrPasskeyExists) {
		t.Errorf("a credential id twice: %v, want ErrPasskeyExists", err)
	}
	list, err := s.Passkeys(ctx, "ana")
	if err != nil || len(list) != 2 || list[0].ID != "k1" || list[1].Name != "phone" || list[0].CreatedAt.IsZero() || !list[0].LastUsedAt.IsZero() {
		t.Fatalf("ana's passkeys: %+v, %v", list, err)
	}
	if list, err := s.Passkeys(ctx, "guest"); err != nil || len(list) != 0 {
		t.Errorf("a guest's passkeys: %+v, %v", list, err)
	}
	if err := s.UsePasskey(ctx, "k2", `{"n":3}`); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Passkey(ctx, "k2"); err != nil || p.PlayerID != "ana" || p.Credential != `{"n":3}` || p.LastUsedAt.IsZero() {
		t.Errorf("k2 after a sign-in: %+v, %v", p, err)
	}
	if err := s.RemovePasskey(ctx, "bia", "k2"); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("removing another's passkey: %v, want ErrNotFound", err)
	}
	if err := s.RemovePasskey(ctx, "ana", "k2"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Passkey(ctx, "k2"); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("a removed passkey: %v, want ErrNotFound", err)
	}
	if err := s.UsePasskey(ctx, "k2", "{}"); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("using a removed passkey: %v, want ErrNotFound", err)
	}
	if err := s.SetPassword(ctx, "ana", "$argon2id$new"); err != nil {
		t.Fatal(err)
	}
	if a, err := s.AccountByPlayer(ctx, "ana"); err != nil || a.PasswordHash != "$argon2id$new" || a.Username != "Ana_K" || a.DisplayName != "P ana" {
		t.Errorf("AccountByPlayer(ana) = %+v, %v", a, err)
	}
	if _, err := s.AccountByPlayer(ctx, "guest"); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("a guest's account: %v, want ErrNotFound", err)
	}
	if err := s.SetPassword(ctx, "guest", "x"); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("a guest's password: %v, want ErrNotFound", err)
	}
}

// A deleted account's personal data is gone (account, ratings, name,
// sign-in address); its finished games stay, naming it "deleted player";
// the player is unknown from then on and its username free.
func testDeleteAccount(t *testing.T, newStore NewStore) {
	s, db := newStore(t)
	ctx := t.Context()
	for _, id := range []string{"ana", "bia"} {
		if err := s.SavePlayer(ctx, lobby.Player{ID: id, DisplayName: "P " + id, Addr: "192.0.2.1"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateAccount(ctx, account(t, "ana", "Alice")); err != nil {
		t.Fatal(err)
	}
	if a, err := s.AccountByPlayer(ctx, "ana"); err != nil || a.Username != "Alice" {
		t.Fatalf("AccountByPlayer(ana) = %+v, %v", a, err)
	}
	if _, err := s.AccountByPlayer(ctx, "bia"); !errors.Is(err, lobby.ErrNotFound) {
		t.Fatalf("AccountByPlayer(a guest) = %v, want ErrNotFound", err)
	}
	t0 := time.Unix(1_800_000_000, 0)
	insert(t, db, game{id: "g1", game: "quoridor", variant: "standard", rated: true, p1: "ana", p2: "bia", result: "win", winner: "first", ended: t0})
	insert(t, db, game{id: "g2", game: "quoridor", variant: "standard", rated: true, p1: "bia", p2: "ana", result: "win", winner: "first", ended: t0.Add(time.Second)})
	for _, id := range []string{"ana", "bia"} {
		if _, err := db.ExecContext(ctx, `INSERT INTO ratings (player_id, game, variant, rating, deviation, volatility, games, updated_at)
			VALUES ($1, 'quoridor', 'standard', 1600, 200, 0.06, 2, $2)`, id, t0); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteAccount(ctx, "ana"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteAccount(ctx, "ana"); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("deleting twice: %v, want ErrNotFound", err)
	}
	if _, err := s.Player(ctx, "ana"); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("the deleted player: %v, want ErrNotFound", err)
	}
	if _, err := s.AccountByKey(ctx, "alice"); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("the deleted account by username: %v, want ErrNotFound", err)
	}
	var left int
	var name string
	var addr sql.NullString
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM ratings WHERE player_id = 'ana') + (SELECT count(*) FROM accounts WHERE player_id = 'ana')`).Scan(&left); err != nil || left != 0 {
		t.Errorf("ratings and account rows left: %d, %v", left, err)
	}
	if err := db.QueryRowContext(ctx, `SELECT display_name, signin_addr FROM players WHERE player_id = 'ana'`).Scan(&name, &addr); err != nil ||
		name != lobby.DeletedName || addr.Valid {
		t.Errorf("the deleted player's row: %q %v, %v", name, addr, err)
	}
	for _, id := range []string{"g1", "g2"} {
		rec, err := s.Game(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		seats := []sqlstore.Seat{rec.First, *rec.Second}
		for _, st := range seats {
			want := "Two"
			if id == "g2" {
				want = "One"
			}
			if st.PlayerID == "ana" && st.DisplayName != lobby.DeletedName || st.PlayerID == "bia" && st.DisplayName != want {
				t.Errorf("game %s seat %+v", id, st)
			}
		}
	}
	page, err := s.History(ctx, "bia", "bia", "", 10, "")
	if err != nil || len(page.Games) != 2 {
		t.Errorf("the other player's history: %d games, %v", len(page.Games), err)
	}
	if st, err := s.Stats(ctx, "bia"); err != nil || len(st.Ratings) != 1 {
		t.Errorf("the other player's ratings: %+v, %v", st, err)
	}
	if err := s.CreateAccount(ctx, account(t, "bia", "Alice")); err != nil {
		t.Errorf("the freed username: %v", err)
	}
}

// A guest merged into an account: its finished games and their rating
// changes name the account (a game between the two stays as it was), its
// ratings are dropped and the account's kept; the guest is then unknown.
// Refused: merging a player into itself, into a guest, an account as the
// guest, a guest with a rated game not yet in the ratings, a guest merged
// into another account. Merging twice moves nothing the second time.
func testMergeGuest(t *testing.T, newStore NewStore) {
	s, db := newStore(t)
	ctx := t.Context()
	for _, id := range []string{"ana", "gus", "bo", "cy"} {
		if err := s.SavePlayer(ctx, lobby.Player{ID: id, DisplayName: "P " + id}); err != nil {
			t.Fatal(err)
		}
	}
	for id, name := range map[string]string{"ana": "Alice", "cy": "Cyril"} {
		if err := s.CreateAccount(ctx, account(t, id, name)); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Unix(1_800_000_000, 0)
	insert(t, db, game{id: "g1", game: "quoridor", variant: "standard", rated: true, p1: "gus", p2: "bo", result: "win", winner: "first", ended: t0})
	insert(t, db, game{id: "g2", game: "quoridor", variant: "standard", p1: "gus", bot2: 1, result: "win", winner: "first", ended: t0.Add(time.Second)})
	insert(t, db, game{id: "g3", game: "quoridor", variant: "standard", p1: "ana", p2: "gus", result: "win", winner: "first", ended: t0.Add(2 * time.Second)})
	insert(t, db, game{id: "g4", game: "quoridor", variant: "standard", rated: true, p1: "bo", p2: "ana", result: "win", winner: "second", ended: t0.Add(3 * time.Second)})
	if _, err := s.ProcessRatings(ctx, 10); err != nil {
		t.Fatal(err)
	}
	before, err := s.Rating(ctx, "ana", engine.Quoridor, "standard")
	if err != nil || before.Games != 1 {
		t.Fatalf("the account's rating before: %+v, %v", before, err)
	}
	for _, c := range []struct {
		guest, account string
		want           error
	}{
		{"gus", "gus", sqlstore.ErrSamePlayer},
		{"gus", "bo", lobby.ErrNotFound}, // bo is no account
		{"ana", "cy", sqlstore.ErrNotGuest},
		{"nobody", "ana", lobby.ErrNotFound},
	} {
		if _, err := s.MergeGuest(ctx, c.guest, c.account); !errors.Is(err, c.want) {
			t.Errorf("MergeGuest(%s, %s) = %v, want %v", c.guest, c.account, err, c.want)
		}
	}
	// A rated game the processor has not reached would change the
	// account's rating: refused until it is in the ratings.
	insert(t, db, game{id: "g5", game: "quoridor", variant: "standard", rated: true, p1: "bo", p2: "gus", result: "draw", ended: t0.Add(4 * time.Second)})
	if _, err := s.MergeGuest(ctx, "gus", "ana"); !errors.Is(err, sqlstore.ErrGuestUnrated) {
		t.Fatalf("merging with a game pending its rating: %v, want ErrGuestUnrated", err)
	}
	if _, err := s.ProcessRatings(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Rating(ctx, "gus", engine.Quoridor, "standard"); err != nil || r.Games != 1 { // g5 repeats g1's pair: unrated
		t.Fatalf("the guest's rating before: %+v, %v", r, err)
	}
	m, err := s.MergeGuest(ctx, "gus", "ana")
	if err != nil || m.Games != 3 || m.Already {
		t.Fatalf("MergeGuest = %+v, %v; want 3 games moved (g1, g2, g5; g3 was against the account)", m, err)
	}
	if m, err := s.MergeGuest(ctx, "gus", "ana"); err != nil || !m.Already || m.Games != 0 {
		t.Errorf("merging again = %+v, %v; want already merged, nothing moved", m, err)
	}
	if _, err := s.MergeGuest(ctx, "gus", "cy"); !errors.Is(err, sqlstore.ErrNotGuest) {
		t.Errorf("merging into another account afterwards: %v, want ErrNotGuest", err)
	}
	if _, err := s.Player(ctx, "gus"); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("the merged guest: %v, want ErrNotFound", err)
	}
	after, err := s.Rating(ctx, "ana", engine.Quoridor, "standard")
	if err != nil || after.Rating != before.Rating || after.Games != before.Games {
		t.Errorf("the account's rating after: %+v, %v; want its own, %+v", after, err, before)
	}
	var left int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM ratings WHERE player_id = 'gus')
		+ (SELECT count(*) FROM games WHERE first_player_id = 'gus' OR second_player_id = 'gus')
		+ (SELECT count(*) FROM rating_changes WHERE player_id = 'gus')`).Scan(&left); err != nil || left != 1 {
		t.Errorf("rows naming the guest: %d, %v; want only g3, against the account", left, err)
	}
	page, err := s.History(ctx, "ana", "ana", "", 10, "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, g := range page.Games {
		ids = append(ids, g.GameID)
	}
	if fmt.Sprint(ids) != "[g5 g4 g3 g2 g1]" {
		t.Errorf("the account's history: %v; want [g5 g4 g3 g2 g1]", ids)
	}
	rec, err := s.Game(ctx, "g1")
	if err != nil {
		t.Fatal(err)
	}
	if rec.SeatOf("ana") != engine.First || len(rec.Changes) != 2 || rec.Changes[0].PlayerID != "ana" && rec.Changes[1].PlayerID != "ana" {
		t.Errorf("g1 after the merge: seat %v, changes %+v", rec.SeatOf("ana"), rec.Changes)
	}
	st, err := s.Stats(ctx, "ana")
	if err != nil || len(st.Bots) != 1 || st.Bots[0].Wins != 1 {
		t.Errorf("the account's record against bots: %+v, %v; want the guest's win", st.Bots, err)
	}
}

// The fair-play rule for rated play, as the queue asks it: a fresh
// player is a newcomer until it has finished 3 casual games (aborted and
// rated ones do not count) or is a day old; a player unknown here is not.
func testNewcomer(t *testing.T, newStore NewStore) {
	s, db := newStore(t)
	ctx := t.Context()
	for _, id := range []string{"ana", "old"} {
		if err := s.SavePlayer(ctx, lobby.Player{ID: id, DisplayName: "P " + id}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, `UPDATE players SET created_at = $1 WHERE player_id = 'old'`, time.Now().Add(-25*time.Hour)); err != nil {
		t.Fatal(err)
	}
	n, newcomer, err := s.Newcomer(ctx, "ana")
	if err != nil || !newcomer || n.Casual != 0 || n.MinCasual != 3 || time.Until(n.OpensAt) < 23*time.Hour {
		t.Fatalf("a fresh player: %+v, %v, %v; want a newcomer, 0 of 3 casual games, a day to wait", n, newcomer, err)
	}
	t0 := time.Now().Add(-time.Hour)
	insert(t, db, game{id: "c1", game: "quoridor", variant: "standard", p1: "ana", bot2: 1, result: "win", winner: "first", ended: t0})
	insert(t, db, game{id: "c2", game: "quoridor", variant: "standard", p1: "ana", bot2: 1, result: "draw", reason: "aborted", ended: t0})
	insert(t, db, game{id: "c3", game: "quoridor", variant: "standard", rated: true, p1: "ana", p2: "old", result: "draw", ended: t0})
	insert(t, db, game{id: "c4", game: "quoridor", variant: "standard", p1: "old", p2: "ana", result: "draw", ended: t0})
	if n, newcomer, err := s.Newcomer(ctx, "ana"); err != nil || !newcomer || n.Casual != 2 {
		t.Errorf("after 2 casual games (an aborted and a rated one besides): %+v, %v, %v", n, newcomer, err)
	}
	insert(t, db, game{id: "c5", game: "quoridor", variant: "standard", p1: "ana", bot2: 2, result: "win", winner: "second", ended: t0})
	if n, newcomer, err := s.Newcomer(ctx, "ana"); err != nil || newcomer {
		t.Errorf("after 3 casual games: %+v, %v, %v; want established", n, newcomer, err)
	}
	for _, id := range []string{"old", "nobody"} {
		if n, newcomer, err := s.Newcomer(ctx, id); err != nil || newcomer {
			t.Errorf("%s: %+v, %v, %v; want no newcomer", id, n, newcomer, err)
		}
	}
}

// An account's profile is found by its username key: its ratings, its
// record per game and its recent games count its public games only
// (never a private room's, an aborted one, a game at one keyboard or a
// one-player one in the record); every account's seat is named by its
// username, in history and records too (games played before the claim
// included), a guest's by the name it played under. A guest, an unknown
// username and a deleted account have no profile.
func testProfiles(t *testing.T, newStore NewStore) {
	s, db := newStore(t)
	ctx := t.Context()
	for _, id := range []string{"ana", "bia", "cy"} {
		if err := s.SavePlayer(ctx, lobby.Player{ID: id, DisplayName: "P " + id}); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Unix(1_800_000_000, 0)
	at := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
	// ana (first) beats bia, then a draw with bia as first, a loss to a
	// bot, a win in Corners; then games that must not count: private,
	// aborted, at one keyboard, one-player training.
	insert(t, db, game{id: "g1", game: "quoridor", variant: "standard", rated: true, p1: "ana", p2: "bia", result: "win", winner: "first", ended: at(1)})
	insert(t, db, game{id: "g2", game: "quoridor", variant: "standard", p1: "bia", p2: "ana", result: "draw", ended: at(2)})
	insert(t, db, game{id: "g3", game: "quoridor", variant: "standard", p1: "ana", bot2: 2, result: "win", winner: "second", ended: at(3)})
	insert(t, db, game{id: "g4", game: "corners", variant: "classic", p1: "cy", p2: "ana", result: "win", winner: "second", ended: at(4)})
	insert(t, db, game{id: "priv", game: "quoridor", variant: "standard", p1: "ana", p2: "bia", result: "win", winner: "first", ended: at(5), private: true})
	insert(t, db, game{id: "abort", game: "quoridor", variant: "standard", p1: "ana", p2: "cy", result: "win", winner: "first", reason: "aborted", ended: at(6)})
	insert(t, db, game{id: "local", game: "quoridor", variant: "standard", p1: "ana", p2: "ana", result: "win", winner: "first", ended: at(7)})
	insert(t, db, game{id: "solo", game: "corners", variant: "training", p1: "ana", result: "win", winner: "first", ended: at(8)})
	if _, err := db.ExecContext(ctx, `INSERT INTO ratings (player_id, game, variant, rating, deviation, volatility, games, updated_at)
		VALUES ('ana', 'quoridor', 'standard', 1612, 190, 0.06, 1, $1)`, at(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Profile(ctx, "ana_k", 10); !errors.Is(err, lobby.ErrNotFound) {
		t.Fatalf("profile before the claim: %v, want ErrNotFound", err)
	}
	if err := s.CreateAccount(ctx, account(t, "ana", "Ana_K")); err != nil {
		t.Fatal(err)
	}
	p, err := s.Profile(ctx, "ana_k", 10)
	if err != nil {
		t.Fatal(err)
	}
	if p.PlayerID != "ana" || p.Username != "Ana_K" || p.MemberSince.IsZero() {
		t.Errorf("profile = %+v", p)
	}
	if len(p.Ratings) != 1 || p.Ratings[0].Game != engine.Quoridor || math.Round(p.Ratings[0].Rating.Rating) != 1612 {
		t.Errorf("ratings = %+v", p.Ratings)
	}
	want := []sqlstore.GameRecordSummary{{Game: engine.Corners, Wins: 1}, {Game: engine.Quoridor, Wins: 1, Losses: 1, Draws: 1}}
	if fmt.Sprint(p.Records) != fmt.Sprint(want) {
		t.Errorf("records = %+v, want %+v", p.Records, want)
	}
	var ids []string
	for _, g := range p.Recent {
		ids = append(ids, g.GameID)
		if g.Private {
			t.Errorf("a private game among the recent ones: %s", g.GameID)
		}
	}
	if fmt.Sprint(ids) != "[solo local abort g4 g3 g2 g1]" {
		t.Errorf("recent games = %v", ids)
	}
	if p2, err := s.Profile(ctx, "ana_k", 2); err != nil || len(p2.Recent) != 2 || p2.Recent[0].GameID != "solo" {
		t.Errorf("2 recent games: %+v, %v", p2.Recent, err)
	}
	// The account's seats are named by its username, a guest's by its
	// stored name; history and records alike.
	g4 := p.Recent[3]
	if g4.Second.Username != "Ana_K" || g4.Second.DisplayName != "Ana_K" || g4.First.Username != "" || g4.First.DisplayName != "One" {
		t.Errorf("g4's seats: %+v %+v", g4.First, *g4.Second)
	}
	rec, err := s.Game(ctx, "g1")
	if err != nil || rec.First.Username != "Ana_K" || rec.First.DisplayName != "Ana_K" || rec.Second.Username != "" || rec.Second.DisplayName != "Two" {
		t.Errorf("g1's record: %+v %+v, %v", rec.First, rec.Second, err)
	}
	page, err := s.History(ctx, "bia", "bia", "", 10, "")
	if err != nil || len(page.Games) != 3 || page.Games[0].First.Username != "Ana_K" {
		t.Errorf("bia's history: %+v, %v", page.Games, err)
	}
	if got, err := s.Usernames(ctx, []string{"ana", "bia", "nobody", "", "ana"}); err != nil || fmt.Sprint(got) != "map[ana:Ana_K]" {
		t.Errorf("Usernames = %v, %v", got, err)
	}
	if _, err := s.Profile(ctx, "nobody", 10); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("an unknown username: %v, want ErrNotFound", err)
	}
	if err := s.DeleteAccount(ctx, "ana"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Profile(ctx, "ana_k", 10); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("a deleted account's profile: %v, want ErrNotFound", err)
	}
	if rec, err := s.Game(ctx, "g1"); err != nil || rec.First.Username != "" || rec.First.DisplayName != lobby.DeletedName {
		t.Errorf("g1 after the deletion: %+v, %v", rec.First, err)
	}
}
