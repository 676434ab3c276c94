// Package sqlstore is the lobby's record in SQL: players, Glicko-2
// ratings (updated from the match service's finished games), history and
// stats. It is the only lobby package with SQL, and it runs on PostgreSQL
// (NewPostgres) and on SQLite, the one-process mode's embedded store
// (NewSQLite). The SQL is the same in both but for the locks of the
// ratings processor: Postgres locks the game row (FOR UPDATE SKIP LOCKED,
// so instances share the work) and the rating rows (FOR UPDATE); SQLite
// has no row locks, and a database opened with migrations.OpenSQLite
// begins every transaction IMMEDIATE, taking the write lock at once, so
// processors take turns.
//
// The games table belongs to the match service (migration 0100); the lobby
// reads it and sets games.rating_processed_at in the same transaction that
// applies a rated game to both ratings, so a game never counts twice.
package sqlstore

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/platform/telemetry"
	"tabuleiro.dev/services/lobby/internal/glicko"
	"tabuleiro.dev/services/lobby/internal/lobby"
)

// Store is the lobby's SQL store.
type Store struct {
	db     *sql.DB
	params glicko.Params
	now    func() time.Time
	// lockGame and lockRating end the processor's SELECTs of the next
	// game and of a rating row: row locks in Postgres, nothing in SQLite
	// (its transactions hold the database's write lock).
	lockGame, lockRating string
	fair                 Fairness
}

// Fairness is what a game asked to be rated needs to change ratings,
// beyond being finished between two different people: both players
// established, and not a repeat of the day.
type Fairness struct {
	// MinCasualGames and MinAge: a player is established once they have
	// finished MinCasualGames unrated games (not aborted) or their
	// identity is older than MinAge, both as of the game's start. A game
	// with a player who is neither is unrated ("new-player"): identities
	// are free, and fresh ones that lose at once would hand out rating.
	MinCasualGames int
	MinAge         time.Duration
	// RepeatWindow: once a game between two players (or between two
	// players who signed in from the same pair of addresses) has changed
	// ratings, their games ending within RepeatWindow after it do not
	// ("repeat-opponents", "repeat-addresses").
	RepeatWindow time.Duration
}

// DefaultFairness is the production rule: 3 casual games or a day, and
// one rated game a day per pair of players or of addresses.
func DefaultFairness() Fairness {
	return Fairness{MinCasualGames: 3, MinAge: 24 * time.Hour, RepeatWindow: 24 * time.Hour}
}

// Why a game asked to be rated changed no rating (games.unrated_reason).
const (
	UnratedNotTwoPlayers   = "not-two-players"
	UnratedNewPlayer       = "new-player"
	UnratedRepeatOpponents = "repeat-opponents"
	UnratedRepeatAddresses = "repeat-addresses"
)

// SetFairness replaces DefaultFairness (tests of the rating arithmetic
// turn it off with a zero Fairness).
func (s *Store) SetFairness(f Fairness) { s.fair = f }

// NewPostgres returns a store on a PostgreSQL pool whose schema
// migrations.Up has brought up to date. now may be nil for time.Now.
func NewPostgres(pool *pgxpool.Pool, params glicko.Params, now func() time.Time) *Store {
	s := newStore(stdlib.OpenDBFromPool(pool), params, now)
	s.lockGame, s.lockRating = " FOR UPDATE SKIP LOCKED", " FOR UPDATE"
	return s
}

// NewSQLite returns a store on a SQLite database opened with
// migrations.OpenSQLite (whose transactions begin IMMEDIATE: the ratings
// processor relies on it) and brought up to date by migrations.UpSQLite.
// now may be nil for time.Now.
func NewSQLite(db *sql.DB, params glicko.Params, now func() time.Time) *Store {
	return newStore(db, params, now)
}

func newStore(db *sql.DB, params glicko.Params, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, params: params, now: now, fair: DefaultFairness()}
}

// SavePlayer records a player (or renames one signing in again).
func (s *Store) SavePlayer(ctx context.Context, p lobby.Player) error {
	var addr any
	if p.Addr != "" {
		addr = p.Addr
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO players (player_id, display_name, signin_addr) VALUES ($1, $2, $3)
		ON CONFLICT (player_id) DO UPDATE SET display_name = EXCLUDED.display_name`, p.ID, p.DisplayName, addr)
	if err != nil {
		return fmt.Errorf("save player %s: %w", p.ID, err)
	}
	return nil
}

// Player returns a player by id, with its account's username (empty for
// a guest); lobby.ErrNotFound for a deleted player or a merged guest.
func (s *Store) Player(ctx context.Context, id string) (lobby.Player, error) {
	p := lobby.Player{ID: id}
	var username sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT p.display_name, a.username FROM players p
		LEFT JOIN accounts a ON a.player_id = p.player_id WHERE p.player_id = $1 AND p.deleted_at IS NULL AND p.merged_into IS NULL`, id).Scan(&p.DisplayName, &username)
	p.Username = username.String
	if errors.Is(err, sql.ErrNoRows) {
		return lobby.Player{}, fmt.Errorf("player %s: %w", lobby.Clip(id), lobby.ErrNotFound)
	}
	if err != nil {
		return lobby.Player{}, fmt.Errorf("load player %s: %w", lobby.Clip(id), err)
	}
	return p, nil
}

// Rating is a player's rating in one variant.
type Rating struct {
	Game      engine.Game
	Variant   string
	Rating    glicko.Rating
	Games     int
	UpdatedAt time.Time // zero for a player who never played the variant
}

// Rating returns a player's rating in a variant; the initial rating when
// the player never played it.
func (s *Store) Rating(ctx context.Context, playerID string, game engine.Game, variant string) (Rating, error) {
	r := Rating{Game: game, Variant: variant, Rating: s.params.Initial}
	err := s.db.QueryRowContext(ctx, `SELECT rating, deviation, volatility, games, updated_at FROM ratings
		WHERE player_id = $1 AND game = $2 AND variant = $3`, playerID, string(game), variant).
		Scan(&r.Rating.Rating, &r.Rating.Deviation, &r.Rating.Volatility, &r.Games, &r.UpdatedAt)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Rating{}, fmt.Errorf("load rating of %s: %w", playerID, err)
	}
	return r, nil
}

// ProcessRatings applies up to limit finished rated games, oldest first,
// to the ratings, one transaction per game, and returns how many it
// processed. Instances may run it at once: each game is locked (SKIP
// LOCKED) and marked processed in the transaction that updates the
// ratings. Aborted games, and rated games without two people, are marked
// without changing any rating.
func (s *Store) ProcessRatings(ctx context.Context, limit int) (int, error) {
	n := 0
	for n < limit {
		done, err := s.processOne(ctx)
		if err != nil {
			return n, err
		}
		if !done {
			return n, nil
		}
		n++
	}
	return n, nil
}

func (s *Store) processOne(ctx context.Context) (bool, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("begin rating transaction: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	var (
		id, game, variant, result, reason string
		first, second, winner             *string
		started, ended                    time.Time
	)
	err = tx.QueryRowContext(ctx, `SELECT game_id, game, variant, first_player_id, second_player_id, result, winner, reason,
		started_at, ended_at
		FROM games WHERE rated AND rating_processed_at IS NULL
		ORDER BY ended_at, game_id LIMIT 1`+s.lockGame).
		Scan(&id, &game, &variant, &first, &second, &result, &winner, &reason, &started, &ended)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("next rated game: %w", err)
	}
	now := s.now().UTC()
	var why any // games.unrated_reason; nil when rated
	switch {
	case reason == engine.ReasonAborted.String():
		// Never rated (the match service clears rated); its reason says why.
	case first == nil || second == nil || *first == *second:
		why = UnratedNotTwoPlayers
	default:
		w, err := s.unrated(ctx, tx, id, *first, *second, started, ended)
		if err != nil {
			return false, err
		}
		if w != "" {
			why = w
			break
		}
		if err := s.applyGame(ctx, tx, id, engine.Game(game), variant, *first, *second, result, winner, now); err != nil {
			return false, err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE games SET rating_processed_at = $2, unrated_reason = $3 WHERE game_id = $1`, id, now, why); err != nil {
		return false, fmt.Errorf("mark game %s rated: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("commit ratings of game %s: %w", id, err)
	}
	return true, nil
}

// unrated returns why the game between first and second (started and
// ended as given) changes no rating under s.fair, "" when it does.
func (s *Store) unrated(ctx context.Context, tx *sql.Tx, gameID, first, second string, started, ended time.Time) (string, error) {
	f := s.fair
	addrs := make([]*string, 2)
	for i, p := range []string{first, second} {
		var created time.Time
		err := tx.QueryRowContext(ctx, `SELECT created_at, signin_addr FROM players WHERE player_id = $1`, p).Scan(&created, &addrs[i])
		if errors.Is(err, sql.ErrNoRows) {
			continue // not signed in here (records from elsewhere): nothing known against them
		}
		if err != nil {
			return "", fmt.Errorf("player %s of game %s: %w", p, gameID, err)
		}
		if f.MinAge <= 0 || !started.Before(created.Add(f.MinAge)) {
			continue
		}
		var casual int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM games
			WHERE (first_player_id = $1 OR second_player_id = $1) AND NOT rated AND reason <> 'aborted'
			  AND ended_at <= $2 AND game_id <> $3`, p, started, gameID).Scan(&casual); err != nil {
			return "", fmt.Errorf("casual games of %s: %w", p, err)
		}
		if casual < f.MinCasualGames {
			return UnratedNewPlayer, nil
		}
	}
	if f.RepeatWindow <= 0 {
		return "", nil
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM games
		WHERE rated AND unrated_reason IS NULL AND rating_processed_at IS NOT NULL AND reason <> 'aborted'
		  AND ((first_player_id = $1 AND second_player_id = $2) OR (first_player_id = $2 AND second_player_id = $1))
		  AND ended_at > $3 AND ended_at <= $4 AND game_id <> $5`,
		first, second, ended.Add(-f.RepeatWindow), ended, gameID).Scan(&n); err != nil {
		return "", fmt.Errorf("earlier games of %s and %s: %w", first, second, err)
	}
	if n > 0 {
		return UnratedRepeatOpponents, nil
	}
	if addrs[0] == nil || addrs[1] == nil {
		return "", nil
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM games g
		JOIN players a ON a.player_id = g.first_player_id
		JOIN players b ON b.player_id = g.second_player_id
		WHERE g.rated AND g.unrated_reason IS NULL AND g.rating_processed_at IS NOT NULL AND g.reason <> 'aborted'
		  AND ((a.signin_addr = $1 AND b.signin_addr = $2) OR (a.signin_addr = $2 AND b.signin_addr = $1))
		  AND g.ended_at > $3 AND g.ended_at <= $4 AND g.game_id <> $5`,
		*addrs[0], *addrs[1], ended.Add(-f.RepeatWindow), ended, gameID).Scan(&n); err != nil {
		return "", fmt.Errorf("earlier games of the addresses of %s and %s: %w", first, second, err)
	}
	if n > 0 {
		return UnratedRepeatAddresses, nil
	}
	return "", nil
}

func (s *Store) applyGame(ctx context.Context, tx *sql.Tx, gameID string, game engine.Game, variant, first, second, result string, winner *string, now time.Time) error {
	var score float64
	switch {
	case result == engine.Draw.String():
		score = 0.5
	case result == engine.Win.String() && winner != nil && *winner == engine.First.String():
		score = 1
	case result == engine.Win.String() && winner != nil && *winner == engine.Second.String():
		score = 0
	default:
		return fmt.Errorf("game %s: result %q winner %v is not a finished game", gameID, result, winner)
	}
	// Lock both rating rows in player-id order so that two transactions
	// sharing a player never deadlock.
	ids := []string{first, second}
	if second < first {
		ids = []string{second, first}
	}
	init := s.params.Initial
	cur := map[string]Rating{}
	for _, p := range ids {
		if _, err := tx.ExecContext(ctx, `INSERT INTO ratings (player_id, game, variant, rating, deviation, volatility, games, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, 0, $7) ON CONFLICT DO NOTHING`,
			p, string(game), variant, init.Rating, init.Deviation, init.Volatility, now); err != nil {
			return fmt.Errorf("initial rating of %s: %w", p, err)
		}
		r := Rating{Game: game, Variant: variant}
		if err := tx.QueryRowContext(ctx, `SELECT rating, deviation, volatility, games FROM ratings
			WHERE player_id = $1 AND game = $2 AND variant = $3`+s.lockRating, p, string(game), variant).
			Scan(&r.Rating.Rating, &r.Rating.Deviation, &r.Rating.Volatility, &r.Games); err != nil {
			return fmt.Errorf("lock rating of %s: %w", p, err)
		}
		cur[p] = r
	}
	a, b := s.params.Game(cur[first].Rating, cur[second].Rating, score)
	for _, u := range []struct {
		id  string
		new glicko.Rating
	}{{first, a}, {second, b}} {
		if _, err := tx.ExecContext(ctx, `UPDATE ratings SET rating = $4, deviation = $5, volatility = $6,
			games = games + 1, updated_at = $7 WHERE player_id = $1 AND game = $2 AND variant = $3`,
			u.id, string(game), variant, u.new.Rating, u.new.Deviation, u.new.Volatility, now); err != nil {
			return fmt.Errorf("update rating of %s: %w", u.id, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO rating_changes (game_id, player_id, before, after) VALUES ($1, $2, $3, $4)`,
			gameID, u.id, cur[u.id].Rating.Rating, u.new.Rating); err != nil {
			return fmt.Errorf("record rating change of %s: %w", u.id, err)
		}
	}
	return nil
}

// RunRatings processes rated games every interval until ctx ends. Errors
// are reported to onErr and retried at the next tick.
func (s *Store) RunRatings(ctx context.Context, interval time.Duration, onErr func(error)) {
	// A poll every interval: untraced (telemetry.Untraced), rating updates
	// included; they show in the logs and the ratings tables.
	ctx = telemetry.Untraced(ctx)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := s.ProcessRatings(ctx, 100); err != nil && ctx.Err() == nil {
			onErr(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Seat is who held a seat of a finished game.
type Seat struct {
	PlayerID    string // empty for a bot
	DisplayName string // an account's username (Username) when it is one
	Bot         lobby.BotLevel
	// Username is the account's username when the seat's player is an
	// account now; "" for a guest, a bot and a deleted player.
	Username string
}

// Summary is a finished game in a list.
type Summary struct {
	GameID    string
	Game      engine.Game
	Variant   string
	Rated     bool
	Clock     lobby.TimeControl
	First     Seat
	Second    *Seat // nil in a one-player game
	Plies     int
	Outcome   engine.Outcome
	StartedAt time.Time
	EndedAt   time.Time
	// Private: a private room's game, shown only to its own players.
	Private bool
	// UnratedReason is why the game changed no rating: "casual" (not
	// asked to be rated), "aborted", or one of the Unrated* reasons of the
	// ratings processor; "" for a rated game (applied or pending).
	UnratedReason string
}

// Why a game changed no rating, besides the processor's Unrated* reasons.
const (
	UnratedCasual  = "casual"
	UnratedAborted = "aborted"
)

// SeatOf returns the seat a player held; NoSeat if none.
func (g Summary) SeatOf(playerID string) engine.Seat {
	switch {
	case g.First.PlayerID == playerID && playerID != "":
		return engine.First
	case g.Second != nil && g.Second.PlayerID == playerID && playerID != "":
		return engine.Second
	}
	return engine.NoSeat
}

// PlyRecord is one ply of a finished game.
type PlyRecord struct {
	Notation string
	ClockMS  *int64 // the mover's clock after the ply; nil without a clock
	ThinkMS  int64
}

// RatingChange is how one game moved one person's rating.
type RatingChange struct {
	PlayerID      string
	Before, After float64
}

// Record is a finished game's whole record.
type Record struct {
	Summary
	Plies   []PlyRecord
	Seed    string
	Layout  string
	Changes []RatingChange
	// Invited are a private game's invited spectators: they may read
	// the record as its players may.
	Invited []string
}

const summaryColumns = `game_id, game, variant, rated, first_player_id, first_display_name, first_bot_level,
	second_player_id, second_display_name, second_bot_level, base_ms, increment_ms, ply_count,
	result, winner, reason, started_at, ended_at, private, unrated_reason`

func scanSummary(row interface{ Scan(...any) error }, extra ...any) (Summary, error) {
	var (
		g                    Summary
		game, result, reason string
		p1, p2, n2, winner   *string
		unrated              *string
		b1, b2               *int
		base, inc            *int64
	)
	dest := []any{&g.GameID, &game, &g.Variant, &g.Rated, &p1, &g.First.DisplayName, &b1,
		&p2, &n2, &b2, &base, &inc, &g.Plies, &result, &winner, &reason, &g.StartedAt, &g.EndedAt, &g.Private, &unrated}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return Summary{}, err
	}
	g.Game = engine.Game(game)
	switch {
	case reason == engine.ReasonAborted.String():
		g.UnratedReason = UnratedAborted
	case !g.Rated:
		g.UnratedReason = UnratedCasual
	default:
		g.UnratedReason = deref(unrated)
	}
	g.First.PlayerID = deref(p1)
	if b1 != nil {
		g.First.Bot = lobby.BotLevel(*b1)
	}
	if p2 != nil || n2 != nil || b2 != nil {
		g.Second = &Seat{PlayerID: deref(p2), DisplayName: deref(n2)}
		if b2 != nil {
			g.Second.Bot = lobby.BotLevel(*b2)
		}
	}
	if base != nil {
		g.Clock.BaseMS = *base
	}
	if inc != nil {
		g.Clock.IncrementMS = *inc
	}
	r, _ := engine.ParseReason(reason)
	switch result {
	case engine.Win.String():
		w := engine.First
		if deref(winner) == engine.Second.String() {
			w = engine.Second
		}
		g.Outcome = engine.WinFor(w, r)
	case engine.Draw.String():
		g.Outcome = engine.DrawBy(r)
	}
	return g, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Page is one page of a player's finished games, newest first.
type Page struct {
	Games []Summary
	Next  string // token of the next page; empty on the last
}

// History returns a player's finished games, newest first (by end time,
// then game id), filtered by game (empty for all), as viewer may see them:
// a private room's game only when viewer played in it. pageToken is a
// Page's Next.
func (s *Store) History(ctx context.Context, playerID, viewer string, game engine.Game, pageSize int, pageToken string) (Page, error) {
	if pageSize <= 0 {
		pageSize = 20
	}
	if pageSize > 100 {
		return Page{}, lobby.Invalid("page_size", "must be 1 to 100, got %d", pageSize)
	}
	after := time.Unix(1<<40, 0) // later than any game
	afterID := ""
	if pageToken != "" {
		var err error
		if after, afterID, err = decodeToken(pageToken); err != nil {
			return Page{}, lobby.Invalid("page_token", "malformed")
		}
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+summaryColumns+` FROM games
		WHERE (first_player_id = $1 OR second_player_id = $1)
		  AND ($2 = '' OR game = $2)
		  AND (ended_at, game_id) < ($3, $4)
		  AND (NOT private OR first_player_id = $6 OR second_player_id = $6)
		ORDER BY ended_at DESC, game_id DESC LIMIT $5`,
		playerID, string(game), after.UTC(), afterID, pageSize+1, viewer)
	if err != nil {
		return Page{}, fmt.Errorf("history of %s: %w", playerID, err)
	}
	defer rows.Close()
	var page Page
	for rows.Next() {
		g, err := scanSummary(rows)
		if err != nil {
			return Page{}, fmt.Errorf("history of %s: %w", playerID, err)
		}
		page.Games = append(page.Games, g)
	}
	if err := rows.Err(); err != nil {
		return Page{}, fmt.Errorf("history of %s: %w", playerID, err)
	}
	if len(page.Games) > pageSize {
		page.Games = page.Games[:pageSize]
		last := page.Games[pageSize-1]
		page.Next = encodeToken(last.EndedAt, last.GameID)
	}
	seats := make([]*Summary, len(page.Games))
	for i := range page.Games {
		seats[i] = &page.Games[i]
	}
	return page, s.nameSeats(ctx, seats)
}

func encodeToken(t time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(t.UnixMicro(), 10) + "|" + id))
}

func decodeToken(tok string) (time.Time, string, error) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return time.Time{}, "", err
	}
	us, id, ok := strings.Cut(string(b), "|")
	if !ok {
		return time.Time{}, "", errors.New("no separator")
	}
	n, err := strconv.ParseInt(us, 10, 64)
	if err != nil {
		return time.Time{}, "", err
	}
	return time.UnixMicro(n), id, nil
}

// Game returns one finished game's record.
func (s *Store) Game(ctx context.Context, gameID string) (Record, error) {
	var plies, clocks, thinks string
	var seed, layout, invited *string
	row := s.db.QueryRowContext(ctx, `SELECT `+summaryColumns+`, plies, ply_clock_ms, ply_think_ms, seed, layout, invited
		FROM games WHERE game_id = $1`, gameID)
	sum, err := scanSummary(row, &plies, &clocks, &thinks, &seed, &layout, &invited)
	if errors.Is(err, sql.ErrNoRows) {
		return Record{}, fmt.Errorf("game %s: %w", lobby.Clip(gameID), lobby.ErrNotFound)
	}
	if err != nil {
		return Record{}, fmt.Errorf("load game %s: %w", gameID, err)
	}
	rec := Record{Summary: sum, Seed: deref(seed), Layout: deref(layout)}
	if err := s.nameSeats(ctx, []*Summary{&rec.Summary}); err != nil {
		return Record{}, err
	}
	if invited != nil {
		if err := json.Unmarshal([]byte(*invited), &rec.Invited); err != nil {
			return Record{}, fmt.Errorf("game %s: invited: %w", gameID, err)
		}
	}
	ps, cs, ts := strings.Fields(plies), strings.Fields(clocks), strings.Fields(thinks)
	for i, p := range ps {
		pr := PlyRecord{Notation: p}
		if i < len(cs) && cs[i] != "-" {
			if v, err := strconv.ParseInt(cs[i], 10, 64); err == nil {
				pr.ClockMS = &v
			}
		}
		if i < len(ts) {
			pr.ThinkMS, _ = strconv.ParseInt(ts[i], 10, 64)
		}
		rec.Plies = append(rec.Plies, pr)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT player_id, before, after FROM rating_changes WHERE game_id = $1 ORDER BY player_id`, gameID)
	if err != nil {
		return Record{}, fmt.Errorf("rating changes of %s: %w", gameID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var c RatingChange
		if err := rows.Scan(&c.PlayerID, &c.Before, &c.After); err != nil {
			return Record{}, fmt.Errorf("rating changes of %s: %w", gameID, err)
		}
		rec.Changes = append(rec.Changes, c)
	}
	return rec, rows.Err()
}

// BotRecord is a player's record against one bot level in one game.
type BotRecord struct {
	Game                engine.Game
	Level               lobby.BotLevel
	Wins, Losses, Draws int
}

// Stats is a player's ratings and records against the bots.
type Stats struct {
	Player  lobby.Player
	Ratings []Rating
	Bots    []BotRecord
	// Unrated counts the player's games asked to be rated that changed no
	// rating, by reason ("aborted" and the processor's Unrated* reasons).
	Unrated map[string]int
}

// unratedCounts counts a player's aborted games and games the ratings
// processor left unrated, by reason.
func (s *Store) unratedCounts(ctx context.Context, playerID string) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT why, count(*) FROM (
			SELECT CASE WHEN reason = 'aborted' THEN 'aborted' ELSE unrated_reason END AS why FROM games
			WHERE (first_player_id = $1 OR second_player_id = $1) AND (reason = 'aborted' OR unrated_reason IS NOT NULL)
		) AS unrated GROUP BY why ORDER BY why`, playerID)
	if err != nil {
		return nil, fmt.Errorf("unrated games of %s: %w", playerID, err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var why string
		var n int
		if err := rows.Scan(&why, &n); err != nil {
			return nil, fmt.Errorf("unrated games of %s: %w", playerID, err)
		}
		out[why] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("unrated games of %s: %w", playerID, err)
	}
	return out, nil
}

// Stats returns a player's ratings (one per rated variant played) and
// wins, losses and draws against each bot level per game. Only games
// between the player and a bot count: local two-player games and games
// between people do not, nor aborted games.
func (s *Store) Stats(ctx context.Context, playerID string) (Stats, error) {
	p, err := s.Player(ctx, playerID)
	if err != nil {
		return Stats{}, err
	}
	st := Stats{Player: p}
	if st.Ratings, err = s.ratingsOf(ctx, playerID); err != nil {
		return Stats{}, err
	}
	if st.Unrated, err = s.unratedCounts(ctx, playerID); err != nil {
		return Stats{}, err
	}
	// The player's seat decides what counts as a win: 'first' or 'second'.
	rows, err := s.db.QueryContext(ctx, `SELECT game, level,
			count(*) FILTER (WHERE result = 'win' AND winner = seat),
			count(*) FILTER (WHERE result = 'win' AND winner <> seat),
			count(*) FILTER (WHERE result = 'draw')
		FROM (
			SELECT game, second_bot_level AS level, 'first' AS seat, result, winner, reason FROM games
			WHERE first_player_id = $1 AND second_bot_level IS NOT NULL AND second_player_id IS NULL
			UNION ALL
			SELECT game, first_bot_level, 'second', result, winner, reason FROM games
			WHERE second_player_id = $1 AND first_bot_level IS NOT NULL AND first_player_id IS NULL
		) AS bot_games
		WHERE reason <> 'aborted'
		GROUP BY game, level ORDER BY game, level`, playerID)
	if err != nil {
		return Stats{}, fmt.Errorf("bot records of %s: %w", playerID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var b BotRecord
		var game string
		var lvl int
		if err := rows.Scan(&game, &lvl, &b.Wins, &b.Losses, &b.Draws); err != nil {
			return Stats{}, fmt.Errorf("bot records of %s: %w", playerID, err)
		}
		b.Game, b.Level = engine.Game(game), lobby.BotLevel(lvl)
		st.Bots = append(st.Bots, b)
	}
	return st, rows.Err()
}

// Finished reports which of ids have a finished record.
func (s *Store) Finished(ctx context.Context, ids []string) (map[string]bool, error) {
	if len(ids) == 0 {
		return map[string]bool{}, nil
	}
	marks := make([]string, len(ids))
	args := make([]any, len(ids))
	for i, id := range ids {
		marks[i], args[i] = "$"+strconv.Itoa(i+1), id
	}
	rows, err := s.db.QueryContext(ctx, `SELECT game_id FROM games WHERE game_id IN (`+strings.Join(marks, ", ")+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("finished games: %w", err)
	}
	defer rows.Close()
	done := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("finished games: %w", err)
		}
		done[id] = true
	}
	return done, rows.Err()
}

// Review returns the stored review of a game at an engine version (the
// game.v1 GameReview in protobuf's JSON form), and whether there is one.
func (s *Store) Review(ctx context.Context, gameID, version string) (string, bool, error) {
	var r string
	err := s.db.QueryRowContext(ctx, `SELECT review FROM game_reviews WHERE game_id = $1 AND engine_version = $2`, gameID, version).Scan(&r)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("load review of %s: %w", gameID, err)
	}
	return r, true, nil
}

// SaveReview stores a game's review at an engine version; a review
// already stored for both is kept (two requests at once made the same).
func (s *Store) SaveReview(ctx context.Context, gameID, version, review string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO game_reviews (game_id, engine_version, review) VALUES ($1, $2, $3)
		ON CONFLICT (game_id, engine_version) DO NOTHING`, gameID, version, review)
	if err != nil {
		return fmt.Errorf("save review of %s: %w", gameID, err)
	}
	return nil
}
