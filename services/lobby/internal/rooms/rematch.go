package rooms

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/lobby/internal/lobby"
)

// RematchStatus is where the rematch of a finished room match stands.
type RematchStatus string

// The rematch statuses. RematchStarting is the short moment between the
// second offer and the new match existing.
const (
	RematchNone     RematchStatus = "none"
	RematchOffered  RematchStatus = "offered"
	RematchStarting RematchStatus = "starting"
	RematchStarted  RematchStatus = "started"
	RematchDeclined RematchStatus = "declined"
)

// Rematch is a room match's rematch record: who played it (with the same
// settings a rematch copies) and the state of the rematch. Every match a
// room starts gets one (startRoom), and so does every rematch's match, so
// that a rematch can be rematched in turn.
type Rematch struct {
	MatchID string // the finished match
	RoomID  string // the room the first match of the series came from
	Game    engine.Game
	Variant string
	Clock   lobby.TimeControl
	Rated   bool
	Private bool // a private room's: the rematch's match is private too
	// OneDevice: a one-device room's; the rematch is played at one device
	// too.
	OneDevice bool
	Host      lobby.Player
	Guest     lobby.Player
	// FirstPlayerID held SEAT_FIRST in MatchID; the rematch gives it to the
	// other player.
	FirstPlayerID string
	Status        RematchStatus
	OfferedBy     []string // player ids, first offer first
	DeclinedBy    string
	NewMatchID    string // set once Status is RematchStarted
}

// Opponent returns the other player of the match than playerID.
func (m Rematch) Opponent(playerID string) lobby.Player {
	if playerID == m.Host.ID {
		return m.Guest
	}
	return m.Host
}

// NewSeatOf returns playerID's seat in the rematch's match (the other seat
// than in MatchID); NoSeat before it exists or for a non-member.
func (m Rematch) NewSeatOf(playerID string) engine.Seat {
	if m.NewMatchID == "" || (playerID != m.Host.ID && playerID != m.Guest.ID) {
		return engine.NoSeat
	}
	if playerID == m.FirstPlayerID {
		return engine.Second
	}
	return engine.First
}

// Member reports whether playerID played the match.
func (m Rematch) Member(playerID string) bool {
	return playerID != "" && (playerID == m.Host.ID || playerID == m.Guest.ID)
}

func (s *Store) rematchKey(matchID string) string { return s.key("rematch", matchID) }

func decodeRematch(matchID string, m map[string]string) Rematch {
	i64 := func(k string) int64 { v, _ := strconv.ParseInt(m[k], 10, 64); return v }
	f64 := func(k string) float64 { v, _ := strconv.ParseFloat(m[k], 64); return v }
	r := Rematch{
		MatchID: matchID, RoomID: m["room"], Game: engine.Game(m["game"]), Variant: m["variant"],
		Clock: lobby.TimeControl{BaseMS: i64("base"), IncrementMS: i64("inc")}, Rated: m["rated"] == "1",
		Private:       m["private"] == "1",
		OneDevice:     m["one_device"] == "1",
		Host:          lobby.Player{ID: m["host"], DisplayName: m["host_name"], Rating: f64("host_rating")},
		Guest:         lobby.Player{ID: m["guest"], DisplayName: m["guest_name"], Rating: f64("guest_rating")},
		FirstPlayerID: m["first"], Status: RematchStatus(m["status"]), DeclinedBy: m["declined_by"],
		NewMatchID: m["new_match"],
	}
	if m["offers"] != "" {
		r.OfferedBy = strings.Split(m["offers"], ",")
	}
	return r
}

// GetRematch returns the rematch record of a room match, for one of its
// players: ErrNotFound for a match no room started (or whose record
// expired), ErrForbidden for anyone else (ErrNotFound for a private room's
// match: to anyone else it is like a match that does not exist).
func (s *Store) GetRematch(ctx context.Context, playerID, matchID string) (Rematch, error) {
	if matchID == "" {
		return Rematch{}, lobby.Invalid("match_id", "required")
	}
	m, err := s.rdb.HGetAll(ctx, s.rematchKey(matchID)).Result()
	if err != nil {
		return Rematch{}, fmt.Errorf("get rematch of %s: %w", lobby.Clip(matchID), err)
	}
	if len(m) == 0 {
		return Rematch{}, fmt.Errorf("match %s is not a room match the lobby knows (only room games have rematches): %w",
			lobby.Clip(matchID), lobby.ErrNotFound)
	}
	r := decodeRematch(matchID, m)
	if !r.Member(playerID) {
		return Rematch{}, strangerError(matchID, r.Private)
	}
	return r, nil
}

// strangerError is what a caller who did not play matchID is told: that
// they did not (ErrForbidden), or for a private room's match the same as
// for a match the lobby does not know (ErrNotFound), so that a private
// match's existence is not told to anyone else.
func strangerError(matchID string, private bool) error {
	if private {
		return fmt.Errorf("match %s is not a room match the lobby knows (only room games have rematches): %w",
			lobby.Clip(matchID), lobby.ErrNotFound)
	}
	return fmt.Errorf("you did not play match %s: %w", lobby.Clip(matchID), lobby.ErrForbidden)
}

// strangerErrorOf is strangerError for a match whose record says whether
// it is private.
func (s *Store) strangerErrorOf(ctx context.Context, matchID string) error {
	private, err := s.rdb.HGet(ctx, s.rematchKey(matchID), "private").Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("get rematch of %s: %w", lobby.Clip(matchID), err)
	}
	return strangerError(matchID, private == "1")
}

// offerRematch records a player's offer. KEYS: the rematch record. ARGV:
// player, call token. Returns "missing", "stranger", the status that
// forbids an offer ("declined", "started", "starting"), "offered", or
// "start" when this offer is the second (the status is then "starting",
// the call's token is kept, and the caller creates the match; a second
// run of the same call, its first reply lost, answers "start" again).
var offerRematch = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
local f = redis.call('HMGET', KEYS[1], 'status', 'host', 'guest', 'offers', 'starter')
if ARGV[1] ~= f[2] and ARGV[1] ~= f[3] then return 'stranger' end
if f[1] == 'starting' and f[5] == ARGV[2] then return 'start' end
if f[1] == 'declined' or f[1] == 'started' or f[1] == 'starting' then return f[1] end
local offers = f[4] or ''
if not string.find(',' .. offers .. ',', ',' .. ARGV[1] .. ',', 1, true) then
  if offers == '' then offers = ARGV[1] else offers = offers .. ',' .. ARGV[1] end
  redis.call('HSET', KEYS[1], 'offers', offers)
end
if string.find(offers, ',', 1, true) then
  redis.call('HSET', KEYS[1], 'status', 'starting', 'starter', ARGV[2])
  return 'start'
end
redis.call('HSET', KEYS[1], 'status', 'offered')
return 'offered'
`)

// unstartRematch takes back an acceptance whose match could not be
// created: the other player's offer stays. KEYS: record. ARGV: player.
var unstartRematch = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'status', 'offers')
if f[1] ~= 'starting' then return 0 end
local kept = {}
for id in string.gmatch(f[2] or '', '[^,]+') do
  if id ~= ARGV[1] then table.insert(kept, id) end
end
redis.call('HSET', KEYS[1], 'status', 'offered', 'offers', table.concat(kept, ','))
return 1
`)

// finishRematch records the new match and opens its own rematch record,
// seats swapped. KEYS: old record, new record. ARGV: new match id, new
// first player, ttl ms.
var finishRematch = redis.NewScript(`
local f = redis.call('HGETALL', KEYS[1])
if #f == 0 then return 0 end
redis.call('HSET', KEYS[1], 'status', 'started', 'new_match', ARGV[1])
local keep = {room=1, game=1, variant=1, base=1, inc=1, rated=1, private=1, one_device=1, host=1, host_name=1,
  host_rating=1, guest=1, guest_name=1, guest_rating=1}
for i = 1, #f, 2 do
  if keep[f[i]] then redis.call('HSET', KEYS[2], f[i], f[i + 1]) end
end
redis.call('HSET', KEYS[2], 'first', ARGV[2], 'status', 'none')
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
`)

// declineRematch ends a rematch. KEYS: record. ARGV: player. Returns
// "missing", "stranger", "started", "starting", or "ok" (also when it was
// already declined).
var declineRematch = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
local f = redis.call('HMGET', KEYS[1], 'status', 'host', 'guest')
if ARGV[1] ~= f[2] and ARGV[1] ~= f[3] then return 'stranger' end
if f[1] == 'started' or f[1] == 'starting' then return f[1] end
if f[1] == 'declined' then return 'ok' end
redis.call('HSET', KEYS[1], 'status', 'declined', 'declined_by', ARGV[1])
return 'ok'
`)

// OfferRematch offers the opponent of a finished room match a rematch, or
// accepts theirs: when both have offered it creates the new match (same
// game, variant, clock and rated flag; seats swapped) and returns the
// record with NewMatchID set.
func (s *Store) OfferRematch(ctx context.Context, playerID, matchID string) (Rematch, error) {
	r, err := s.GetRematch(ctx, playerID, matchID)
	if err != nil {
		return Rematch{}, err
	}
	if s.cfg.LiveMatches != nil {
		live, err := s.cfg.LiveMatches(ctx, playerID, matchID)
		if err != nil {
			return Rematch{}, fmt.Errorf("check that match %s ended: %w", matchID, err)
		}
		if slices.Contains(live, matchID) {
			return Rematch{}, lobby.Precondition("match %s has not ended; a rematch is offered after it", matchID)
		}
	}
	res, err := offerRematch.Run(ctx, s.rdb, []string{s.rematchKey(matchID)}, playerID, lobby.NewID("c_")).Text()
	if err != nil {
		return Rematch{}, fmt.Errorf("offer rematch of %s: %w", matchID, err)
	}
	switch res {
	case "offered":
		s.rdb.Publish(ctx, s.EventsChannel(), matchID)
		return s.GetRematch(ctx, playerID, matchID)
	case "start":
	case "missing":
		return Rematch{}, fmt.Errorf("match %s: %w", matchID, lobby.ErrNotFound)
	case "stranger":
		return Rematch{}, s.strangerErrorOf(ctx, matchID)
	case string(RematchDeclined):
		return Rematch{}, lobby.Precondition("the rematch of match %s was declined", matchID)
	case string(RematchStarted), string(RematchStarting):
		// Both have offered already: the offer is answered by the state.
		return s.GetRematch(ctx, playerID, matchID)
	default:
		return Rematch{}, lobby.Precondition("the rematch of match %s is %s", matchID, res)
	}
	return s.startRematch(ctx, playerID, r)
}

// startRematch creates the rematch's match after the second offer.
func (s *Store) startRematch(ctx context.Context, playerID string, r Rematch) (Rematch, error) {
	first, second := r.Host, r.Guest
	if r.FirstPlayerID == r.Host.ID {
		first, second = second, first
	}
	spec := lobby.MatchSpec{
		RequestID: "rematch-" + r.MatchID, Game: r.Game, Variant: r.Variant, Clock: r.Clock, Rated: r.Rated, Private: r.Private,
		OneDevice: r.OneDevice,
		First:     lobby.Participant{PlayerID: first.ID, DisplayName: first.DisplayName, Rating: first.Rating},
		Second:    lobby.Participant{PlayerID: second.ID, DisplayName: second.DisplayName, Rating: second.Rating},
	}
	var matchID string
	err := s.reserve(ctx, spec.RequestID, first.ID, second.ID)
	if err == nil {
		matchID, err = s.matches.CreateMatch(ctx, spec)
		if err == nil {
			err = s.confirm(ctx, spec.RequestID, matchID, first.ID, second.ID)
		} else {
			err = errors.Join(err, s.release(ctx, spec.RequestID, first.ID, second.ID))
		}
	}
	bg := context.WithoutCancel(ctx)
	if err != nil {
		// The opponent's offer stays; this acceptance can be repeated once
		// whatever stopped it (another live match, say) is over. The
		// request id keeps a retry from creating a second match.
		if uerr := unstartRematch.Run(bg, s.rdb, []string{s.rematchKey(r.MatchID)}, playerID).Err(); uerr != nil {
			err = errors.Join(err, uerr)
		}
		s.rdb.Publish(bg, s.EventsChannel(), r.MatchID)
		return Rematch{}, fmt.Errorf("start the rematch of %s: %w", r.MatchID, err)
	}
	if err := finishRematch.Run(bg, s.rdb, []string{s.rematchKey(r.MatchID), s.rematchKey(matchID)},
		matchID, first.ID, s.cfg.RematchTTL.Milliseconds()).Err(); err != nil {
		return Rematch{}, fmt.Errorf("record the rematch of %s: %w", r.MatchID, err)
	}
	s.rdb.Publish(bg, s.EventsChannel(), r.MatchID)
	return s.GetRematch(ctx, playerID, r.MatchID)
}

// DeclineRematch declines the opponent's offer, withdraws the caller's, or
// says no rematch before anyone offered.
func (s *Store) DeclineRematch(ctx context.Context, playerID, matchID string) (Rematch, error) {
	if matchID == "" {
		return Rematch{}, lobby.Invalid("match_id", "required")
	}
	res, err := declineRematch.Run(ctx, s.rdb, []string{s.rematchKey(matchID)}, playerID).Text()
	if err != nil {
		return Rematch{}, fmt.Errorf("decline rematch of %s: %w", matchID, err)
	}
	switch res {
	case "ok":
		s.rdb.Publish(ctx, s.EventsChannel(), matchID)
		return s.GetRematch(ctx, playerID, matchID)
	case "missing":
		return Rematch{}, fmt.Errorf("match %s is not a room match the lobby knows: %w", lobby.Clip(matchID), lobby.ErrNotFound)
	case "stranger":
		return Rematch{}, s.strangerErrorOf(ctx, matchID)
	default:
		return Rematch{}, lobby.Precondition("the rematch of match %s has already started", matchID)
	}
}
