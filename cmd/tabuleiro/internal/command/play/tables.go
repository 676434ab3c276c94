package play

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/session"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/cmd/tabuleiro/internal/tui"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// tables makes the tables the terminal client plays at.
type tables struct {
	p      *text.Printer
	c      *client.Client
	me     client.Player
	second client.Player // the second player of a local game
	// secondID is the second local player's id when one was ever signed
	// in here; loadSecond signs it in when this run did not (--vs other
	// than local), to resume a game at one keyboard.
	secondID   string
	loadSecond func() (client.Player, error)
	opp        opponent
	tc         *gamev1.TimeControl
	password   string
	out        io.Writer // progress of rooms and queues, unless notify is set
	notify     func(string)
	addr       string // the server's address, for the invitation
	local      bool   // the server runs in this process
	dataDir    string // --data-dir when given (for the resume command)
	self       string // how the player runs this program (cli.Env.Self)
	game       gamev1.Game
	variant    string
}

// matchFor creates (or finds, for rooms and queues) a match and returns
// its id and the seat of each local player.
func (t *tables) matchFor(ctx context.Context, round int) (string, map[gamev1.Seat]client.Player, error) {
	mctx := t.me.Context(ctx)
	switch {
	case t.opp.local:
		return t.localMatch(ctx, round)
	case t.opp.room != "" && t.opp.room != "new" && round > 0:
		// The friend's room has had its game; a new one needs a new room.
		return "", nil, errors.New(t.t("error.room_over", "room", t.opp.room, "server", t.addr))
	case t.opp.room != "":
		return t.roomMatch(ctx)
	case t.opp.queue:
		return t.queueMatch(ctx)
	}
	resp, err := t.c.Lobby.PlayBot(mctx, &lobbyv1.PlayBotRequest{Game: t.game, Variant: t.variant, Level: t.opp.level, TimeControl: t.tc})
	if err != nil {
		if status.Code(err) == codes.FailedPrecondition && strings.Contains(err.Error(), "already in match") {
			// One live match per player (the lobby's rule).
			return "", nil, t.errorf("error.play_bot_busy", "error", err, "command", t.command())
		}
		return "", nil, t.errorf("error.play_bot", "error", err)
	}
	return resp.GetMatchId(), map[gamev1.Seat]client.Player{resp.GetYourSeat(): t.me}, nil
}

// badName is the refusal of the name given with --name, when err is the
// server's (INVALID_ARGUMENT on display_name: lobby.ValidateDisplayName
// is the rule), said as a player's sentence; nil for any other error.
// A name that is not UTF-8 never reaches the server (gRPC refuses to
// marshal it): that error is the same refusal.
func badName(p *text.Printer, name string, err error) error {
	if name == "" || err == nil {
		return nil
	}
	if utf8.ValidString(name) && (status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "display_name")) {
		return nil
	}
	return &cli.ExitError{Code: 2, Err: errors.New(text.T(p, "error.bad_name", "name", strconv.Quote(name)))}
}

// localMatch seats both players of this keyboard through a private room:
// the host (the first player) takes white on even rounds and black on odd
// ones, so that the players alternate who starts.
func (t *tables) localMatch(ctx context.Context, round int) (string, map[gamev1.Seat]client.Player, error) {
	seat := gamev1.Seat_SEAT_FIRST
	if round%2 == 1 {
		seat = gamev1.Seat_SEAT_SECOND
	}
	pw := rand.Text()[:16]
	room, err := t.c.Lobby.CreateRoom(t.me.Context(ctx), &lobbyv1.CreateRoomRequest{
		Game: t.game, Variant: t.variant, TimeControl: t.tc, Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PRIVATE,
		Password: pw, HostSeat: seat, OneDevice: true,
	})
	if err != nil {
		return "", nil, t.errorf("error.open_local_room", "error", err)
	}
	joined, err := t.c.Lobby.JoinRoom(t.second.Context(ctx), &lobbyv1.JoinRoomRequest{
		Target: &lobbyv1.JoinRoomRequest_InviteCode{InviteCode: room.GetRoom().GetInviteCode()}, Password: pw, OneDevice: true,
	})
	if err != nil {
		return "", nil, t.errorf("error.join_local_room", "error", err)
	}
	id, theirs := joined.GetRoom().GetMatchId(), joined.GetYourSeat()
	if id == "" {
		return "", nil, errors.New(t.t("error.local_room_no_match"))
	}
	mine := gamev1.Seat_SEAT_FIRST
	if theirs == gamev1.Seat_SEAT_FIRST {
		mine = gamev1.Seat_SEAT_SECOND
	}
	return id, map[gamev1.Seat]client.Player{mine: t.me, theirs: t.second}, nil
}

func (t *tables) roomMatch(ctx context.Context) (string, map[gamev1.Seat]client.Player, error) {
	mctx := t.me.Context(ctx)
	var roomID string
	if t.opp.room == "new" {
		vis := lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC
		if t.password != "" {
			vis = lobbyv1.RoomVisibility_ROOM_VISIBILITY_PRIVATE
		}
		r, err := t.c.Lobby.CreateRoom(mctx, &lobbyv1.CreateRoomRequest{Game: t.game, Variant: t.variant, TimeControl: t.tc, Visibility: vis, Password: t.password})
		if err != nil {
			return "", nil, t.errorf("error.open_room", "error", err)
		}
		roomID = r.GetRoom().GetRoomId()
		t.say(t.invitation(r.GetRoom(), t.gameLine()))
	} else {
		j, err := t.joinRoom(mctx)
		if err != nil {
			return "", nil, err
		}
		if id := j.GetRoom().GetMatchId(); id != "" {
			return id, map[gamev1.Seat]client.Player{j.GetYourSeat(): t.me}, nil
		}
		roomID = j.GetRoom().GetRoomId()
	}
	w, err := t.c.Lobby.WatchRoom(mctx, &lobbyv1.WatchRoomRequest{RoomId: roomID})
	if err != nil {
		return "", nil, t.errorf("error.watch_room", "error", err)
	}
	for {
		u, err := w.Recv()
		if err != nil {
			return "", nil, t.errorf("error.watch_room", "error", err)
		}
		if id := u.GetRoom().GetMatchId(); id != "" {
			return id, map[gamev1.Seat]client.Player{u.GetYourSeat(): t.me}, nil
		}
		if u.GetRoom().GetStatus() == lobbyv1.RoomStatus_ROOM_STATUS_CLOSED {
			return "", nil, errors.New(t.t("error.room_closed"))
		}
	}
}

// resumeHint is the command that comes back to an unfinished game: with
// the server and data directory of this run when they are not the
// defaults (another directory holds other identities and games).
func (t *tables) resumeHint() string {
	return "`" + t.resumeCommand() + "`"
}

func (t *tables) resumeCommand() string {
	c := t.command() + " play --resume"
	if !t.local {
		c += " --server " + session.ShellQuote(t.addr)
	}
	if t.dataDir != "" {
		c += " --data-dir " + session.ShellQuote(t.dataDir)
	}
	return c
}

// rematcher offers, accepts and follows the rematch of a finished room
// game with the same opponent (lobby.v1 OfferRematch, DeclineRematch,
// WatchRematch); the new match swaps the seats.
func (t *tables) rematcher(ctx context.Context) *tui.Rematcher {
	mctx := t.me.Context(ctx)
	return &tui.Rematcher{
		Offer: func(id string) (*lobbyv1.Rematch, error) {
			r, err := t.c.Lobby.OfferRematch(mctx, &lobbyv1.OfferRematchRequest{MatchId: id})
			return r.GetRematch(), err
		},
		Decline: func(id string) (*lobbyv1.Rematch, error) {
			r, err := t.c.Lobby.DeclineRematch(mctx, &lobbyv1.DeclineRematchRequest{MatchId: id})
			return r.GetRematch(), err
		},
		Watch: func(id string) (func() (*lobbyv1.Rematch, error), error) {
			w, err := t.c.Lobby.WatchRematch(mctx, &lobbyv1.WatchRematchRequest{MatchId: id})
			if err != nil {
				return nil, err
			}
			return func() (*lobbyv1.Rematch, error) {
				u, err := w.Recv()
				return u.GetRematch(), err
			}, nil
		},
		Table: func(r *lobbyv1.Rematch) (*tui.Table, error) {
			return t.table(ctx, r.GetNewMatchId(), map[gamev1.Seat]client.Player{r.GetYourSeat(): t.me}, "")
		},
	}
}

// say shows progress: on the waiting screen, or on the progress writer.
func (t *tables) say(s string) {
	if t.notify != nil {
		t.notify(s)
		return
	}
	fmt.Fprintln(t.out, s)
}

// invitation tells the host how a friend joins the room.
func (t *tables) invitation(r *lobbyv1.Room, game string) string {
	join := fmt.Sprintf("%s play --room %s --server %s", t.command(), r.GetInviteCode(), t.addr)
	if t.password != "" {
		join += " --password " + t.t("invite.password_word")
	}
	s := t.t("invite.open", "game", game, "code", r.GetInviteCode(), "room", r.GetRoomId(), "command", join) + "\n"
	if t.local {
		s += t.t("invite.local") + "\n"
	}
	return s + t.t("invite.waiting")
}

// t is the message key in the player's language.
func (t *tables) t(key string, kv ...any) string {
	return cli.Hints(text.T(t.p, key, kv...), t.command())
}

// command is how the player runs this program: "tabuleiro", or "go run
// ./cmd/tabuleiro" (cli.Env.Self).
func (t *tables) command() string { return cmp.Or(t.self, "tabuleiro") }

// errorf is env.errorf for the tables.
func (t *tables) errorf(key string, kv ...any) error {
	return (&cli.Env{P: t.p, Self: t.self}).Errorf(key, kv...)
}

// gameLine names the game, variant and clock of a new game: "Quoridor
// standard, no clock".
func (t *tables) gameLine() string {
	s := text.Game(t.p, t.game) + " " + t.variant
	if t.tc == nil {
		return t.t("game_line.no_clock", "game", s)
	}
	return t.t("game_line.clock", "game", s, "clock", fmt.Sprintf("%s+%s", time.Duration(t.tc.GetBaseMs())*time.Millisecond, time.Duration(t.tc.GetIncrementMs())*time.Millisecond))
}

// joinRoom joins the room --room names, by invite code or by room id.
func (t *tables) joinRoom(ctx context.Context) (*lobbyv1.JoinRoomResponse, error) {
	j, err := t.c.Lobby.JoinRoom(ctx, &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_InviteCode{InviteCode: t.opp.room}, Password: t.password})
	if status.Code(err) == codes.NotFound {
		j, err = t.c.Lobby.JoinRoom(ctx, &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_RoomId{RoomId: t.opp.room}, Password: t.password})
		if status.Code(err) == codes.NotFound {
			err = errors.New(t.t("error.no_room"))
			if t.local {
				err = errors.New(t.t("error.no_room_local"))
			}
		}
	}
	if err != nil && strings.Contains(err.Error(), "you host room") {
		// Both players of one machine share the identity of one data
		// directory.
		err = t.errorf("error.host_own_room", "error", err)
	}
	if err != nil {
		return nil, t.errorf("error.join_room", "room", t.opp.room, "error", err)
	}
	return j, nil
}

func (t *tables) queueMatch(ctx context.Context) (string, map[gamev1.Seat]client.Player, error) {
	fctx, cancel := context.WithCancel(t.me.Context(ctx))
	defer cancel()
	s, err := t.c.Lobby.FindMatch(fctx, &lobbyv1.FindMatchRequest{Game: t.game, Variant: t.variant, TimeControl: t.tc, Rated: t.opp.rated})
	if err != nil {
		return "", nil, t.errorf("error.queue", "error", err)
	}
	for {
		u, err := s.Recv()
		if err != nil {
			return "", nil, t.errorf("error.queue", "error", err)
		}
		if m := u.GetMatched(); m != nil {
			return m.GetMatchId(), map[gamev1.Seat]client.Player{m.GetYourSeat(): t.me}, nil
		}
		if u.GetQueued() != nil {
			fmt.Fprintln(t.out, t.t("queue.waiting"))
		}
	}
}

// table joins a match for the seats played here. title says whom the game
// is against; "" is what --vs, --room or --queue asked for, the person met
// in a room or a queue named. A bot opponent is named by the match itself,
// with its level's ladder rating when the variant's ladder was measured.
func (t *tables) table(ctx context.Context, id string, seats map[gamev1.Seat]client.Player, title string) (*tui.Table, error) {
	nameOpponent := title == "" && (t.opp.room != "" || t.opp.queue)
	tb := &tui.Table{MatchID: id, Title: cmp.Or(title, t.opp.render), Seats: map[gamev1.Seat]tui.Conn{}}
	if m, err := t.c.Match.GetMatch(t.me.Context(ctx), &matchv1.GetMatchRequest{MatchId: id}); err == nil {
		for _, s := range m.GetMatch().GetSeats() {
			p := s.GetParticipant()
			switch {
			case p.GetBotLevel() != gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED:
				tb.Title = botTitle(t.p, p.GetBotLevel(), t.botRating(ctx, m.GetMatch().GetGame(), m.GetMatch().GetVariant(), p.GetBotLevel()))
			case nameOpponent && p.GetPlayerId() != t.me.ID && p.GetDisplayName() != "":
				tb.Title = t.t("title.vs", "name", text.Name(t.p, p.GetDisplayName())) // name the person met there
			}
		}
	}
	var streams []*client.Stream
	for seat, p := range seats {
		st, err := t.c.Join(ctx, p, id, 0)
		if err != nil {
			for _, s := range streams {
				s.Close()
			}
			return nil, err
		}
		streams = append(streams, st)
		tb.Seats[seat] = st
	}
	lctx := t.me.Context(ctx)
	tb.Legal = func(req *matchv1.ListLegalPliesRequest) (*matchv1.ListLegalPliesResponse, error) {
		return t.c.Match.ListLegalPlies(lctx, req)
	}
	tb.Rejoin = func(seat gamev1.Seat, last int64) (tui.Conn, error) {
		return t.c.Join(ctx, seats[seat], id, last)
	}
	return tb, nil
}

// resume joins the unfinished match id (one of active) with every seat
// that a player of this keyboard holds: the person's, and the second
// player's of a game at one keyboard whatever --vs says this time. The
// title names the match's real opponent.
func (t *tables) resume(ctx context.Context, active []*lobbyv1.MatchSummary, id string) (*tui.Table, error) {
	seats := map[gamev1.Seat]client.Player{}
	var title string
	for _, m := range active {
		if m.GetMatchId() != id {
			continue
		}
		for _, p := range m.GetParticipants() {
			switch pid := p.GetPlayerId(); {
			case pid == t.me.ID:
				seats[p.GetSeat()] = t.me
			case pid != "" && pid == t.second.ID:
				seats[p.GetSeat()] = t.second
			case pid != "" && pid == t.secondID && t.loadSecond != nil:
				second, err := t.loadSecond()
				if err != nil {
					return nil, err
				}
				t.second = second
				seats[p.GetSeat()] = second
			}
		}
		title = resumedTitle(t.p, m, t.me.ID, cmp.Or(t.second.ID, t.secondID))
	}
	if len(seats) == 0 {
		return nil, errors.New(t.t("error.no_seat", "match", id))
	}
	return t.table(ctx, id, seats, title)
}

// botTitle names a bot opponent: "vs Bot (hard)", or "vs Bot (hard ·
// rating 700)" with its level's ladder rating (Elo scale, easy = 0). The
// anchor of the scale (rated 0, with no interval) is named by its level
// alone: "rating 0" reads as a level not rated or broken.
func botTitle(p *text.Printer, level gamev1.BotLevel, r *gamev1.BotRating) string {
	lvl := text.Level(p, level)
	if r == nil || r.GetRating() == 0 && r.GetRatingLow() == 0 && r.GetRatingHigh() == 0 {
		return text.T(p, "title.bot", "level", lvl)
	}
	return text.T(p, "title.bot_rating", "level", lvl, "rating", int(r.GetRating()))
}

// botRating is a level's ladder rating in a variant (lobby.v1
// ListVariants), or nil when the variant's ladder was not measured or the
// lobby cannot say.
func (t *tables) botRating(ctx context.Context, g gamev1.Game, variant string, level gamev1.BotLevel) *gamev1.BotRating {
	vs, err := t.c.Lobby.ListVariants(t.me.Context(ctx), &lobbyv1.ListVariantsRequest{Game: g})
	if err != nil {
		return nil
	}
	for _, v := range vs.GetVariants() {
		if v.GetId() != variant {
			continue
		}
		for _, r := range v.GetBotRatings() {
			if r.GetLevel() == level {
				return r
			}
		}
	}
	return nil
}

// resumedTitle names the opponent of a resumed match as a new game's
// title would (the flags of this run do not describe it).
func resumedTitle(pr *text.Printer, m *lobbyv1.MatchSummary, me, second string) string {
	var others []string
	mine := 0
	for _, p := range m.GetParticipants() {
		switch {
		case p.GetPlayerId() == me:
			mine++
		case second != "" && p.GetPlayerId() == second:
			others = append(others, text.T(pr, "title.local"))
		case p.GetBotLevel() != gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED:
			others = append(others, botTitle(pr, p.GetBotLevel(), nil))
		default:
			others = append(others, text.T(pr, "title.vs", "name", text.Name(pr, p.GetDisplayName())))
		}
	}
	if mine == 0 || len(others) != 1 {
		return ""
	}
	return others[0]
}

// unfinishedLine mentions n unfinished games not offered (others, when
// some were).
func (t *tables) unfinishedLine(n int, others bool) string {
	if others {
		return t.t("unfinished.others", "count", n, "command", t.resumeCommand())
	}
	return t.t("unfinished", "count", n, "command", t.resumeCommand())
}

// compatible reports whether unfinished match m is a game that this run's
// flags ask for: the same game, variant and clock against the same bot
// level, or at this keyboard. A room or the queue always means a new
// opponent.
func (t *tables) compatible(m *lobbyv1.MatchSummary) bool {
	if m.GetGame() != t.game || m.GetVariant() != t.variant || !proto.Equal(m.GetTimeControl(), t.tc) {
		return false
	}
	for _, p := range m.GetParticipants() {
		switch {
		case p.GetPlayerId() == t.me.ID:
		case t.opp.local:
			return t.secondID != "" && p.GetPlayerId() == t.secondID || t.second.ID != "" && p.GetPlayerId() == t.second.ID
		case t.opp.level != gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED:
			return p.GetBotLevel() == t.opp.level
		default:
			return false
		}
	}
	return false
}

// unfinished drops the matches that ended since they were listed (a
// deadline the sweeper fired on start-up): they cannot be resumed.
func (t *tables) unfinished(ctx context.Context, ms []*lobbyv1.MatchSummary) []*lobbyv1.MatchSummary {
	var out []*lobbyv1.MatchSummary
	for _, m := range ms {
		resp, err := t.c.Match.GetMatch(t.me.Context(ctx), &matchv1.GetMatchRequest{MatchId: m.GetMatchId()})
		if err == nil && resp.GetMatch().GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED {
			continue
		}
		if err == nil && m.GetToMove() == gamev1.Seat_SEAT_UNSPECIFIED {
			// The lobby's list of live matches does not say whose turn it
			// is; the match does.
			m = proto.CloneOf(m)
			m.ToMove = resp.GetMatch().GetView().GetToMove()
		}
		out = append(out, m)
	}
	return out
}
