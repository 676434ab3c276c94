// Package rooms keeps the lobby's rooms in Redis, shared by every lobby
// instance: create (public or private with an argon2id-hashed password),
// invite codes, listing open public rooms, join and leave. When the second
// seat fills, the joiner's instance creates the match through a
// lobby.MatchCreator exactly once: one Lua script lets one joiner claim the
// seat, and the match request is idempotent on the room id.
//
// Keys (all under the configured prefix and the hash tag {rooms}, so that
// the scripts' keys share one Redis Cluster slot):
//
//	{rooms}:room:<id>          hash: the room
//	{rooms}:invite:<code>      string: room id
//	{rooms}:open:all           zset: open public rooms by creation (ms)
//	{rooms}:open:<game>        the same, one game
//	{rooms}:open:<game>/<var>  the same, one variant
//	{rooms}:host:<player>      set: open rooms a player hosts
//	{rooms}:pwfail:<id>:<player> counter of password attempts in the window
//	{rooms}:pwfail:<id>        the same, every player
//	{rooms}:rematch:<match>    hash: a room match's players and settings, and its rematch
//	{rooms}:events             Pub/Sub channel: id of a room, or match id of a rematch, that changed
//
// A host's page keeps its open room alive: while the host watches the room
// (WatchRoom), the lobby stamps the room's host_seen field every HostGrace/3
// (HostHere). An open room whose host has watched it and whose stamp is
// older than HostGrace has lost its host (the page was closed): List leaves
// it out and closes it, and Join refuses it (failed precondition, saying so). A reload opens a
// new watch within the grace and keeps the room.
package rooms

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/lobby/internal/lobby"
)

// Status is where a room stands.
type Status string

// The statuses. Starting is the short moment between a joiner claiming the
// second seat and the match existing.
const (
	Open     Status = "open"
	Starting Status = "starting"
	Started  Status = "started"
	Closed   Status = "closed"
)

// Room is a table two people meet at.
type Room struct {
	ID         string
	InviteCode string
	Game       engine.Game
	Variant    string
	Clock      lobby.TimeControl
	Rated      bool
	Private    bool
	// OneDevice: both seats are played at one device (a second identity
	// of the host's joins); its match is made so (lobby.MatchSpec).
	OneDevice bool
	Host      lobby.Player
	Guest     lobby.Player // zero until someone joins
	// HostSeat is the seat the host asked for; NoSeat lets the rules decide
	// (white drawn at random, Q5). Rated rooms always draw.
	HostSeat engine.Seat
	Status   Status
	MatchID  string
	// FirstPlayerID holds SEAT_FIRST (white, moves first, Q5) once the
	// match exists.
	FirstPlayerID string
	CreatedAt     time.Time
	ExpiresAt     time.Time
	// HostSeen is when the host's watch of the room last stamped it; zero
	// if the host never watched it.
	HostSeen time.Time
	// HostGone: the room was closed because its host left (HostGrace).
	HostGone bool
}

// SeatOf returns the seat of player in the room's match; NoSeat before the
// match exists or for a non-member.
func (r Room) SeatOf(playerID string) engine.Seat {
	if r.FirstPlayerID == "" || (playerID != r.Host.ID && playerID != r.Guest.ID) {
		return engine.NoSeat
	}
	if playerID == r.FirstPlayerID {
		return engine.First
	}
	return engine.Second
}

// Spec is what a host asks for.
type Spec struct {
	Game     engine.Game
	Variant  string
	Clock    lobby.TimeControl
	Rated    bool
	Private  bool
	Password string // required (4–64 characters) for a private room, empty for a public one
	HostSeat engine.Seat
	// OneDevice: both seats at one device; only for a private, unrated room.
	OneDevice bool
}

// Config tunes the store. The zero value of a field takes its default.
type Config struct {
	Prefix           string        // key prefix, default "tabuleiro:lobby:"
	OpenTTL          time.Duration // an open room closes by itself after this, default 30 min
	StartedTTL       time.Duration // a started or closed room is kept this long, default 1 h
	MaxOpenPerHost   int           // default 5
	MaxWrongPassword int           // wrong guesses per player and room in the window, default 5
	// MaxWrongPerSource is the wrong guesses per room from one client
	// address in the window (default 20), every guess counted, a player's
	// first included: fresh identities are free, so 30 guests from one
	// address must not check 30 passwords. The holder of the right
	// password is locked out only by guesses from their own address.
	MaxWrongPerSource int
	WrongWindow       time.Duration // default 5 min
	Argon2            Argon2        // default DefaultArgon2
	// RematchTTL is how long after a room match starts its players can
	// rematch it, default 24 h.
	RematchTTL time.Duration
	// LiveMatches lists the ids of a player's matches that have not ended
	// (the match service's ListMatches), only among matchIDs when given: a
	// rematch is offered only once its match has ended. Nil: no check (the
	// one-live-match reservation still refuses to start a rematch beside a
	// live match).
	LiveMatches func(ctx context.Context, playerID string, matchIDs ...string) ([]string, error)
	// Reserver keeps each player in one live match at a time: a room's
	// match starts only when neither member is in another. Nil: no check.
	Reserver lobby.Reserver
	// HostGrace is how long an open room outlives its host's last watch
	// (WatchRoom) before it is closed, default 30 s: long enough for a
	// reload, short enough that the open rooms list only rooms with a host.
	HostGrace time.Duration
	Now       func() time.Time
}

func (c Config) withDefaults() Config {
	if c.Prefix == "" {
		c.Prefix = "tabuleiro:lobby:"
	}
	if c.OpenTTL == 0 {
		c.OpenTTL = 30 * time.Minute
	}
	if c.StartedTTL == 0 {
		c.StartedTTL = time.Hour
	}
	if c.RematchTTL == 0 {
		c.RematchTTL = 24 * time.Hour
	}
	if c.MaxOpenPerHost == 0 {
		c.MaxOpenPerHost = 5
	}
	if c.MaxWrongPassword == 0 {
		c.MaxWrongPassword = 5
	}
	if c.MaxWrongPerSource == 0 {
		c.MaxWrongPerSource = 20
	}
	if c.WrongWindow == 0 {
		c.WrongWindow = 5 * time.Minute
	}
	if c.Argon2 == (Argon2{}) {
		c.Argon2 = DefaultArgon2()
	}
	if c.HostGrace == 0 {
		c.HostGrace = 30 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Store is the rooms of every lobby instance, in Redis.
type Store struct {
	rdb     redis.UniversalClient
	cfg     Config
	lookup  lobby.VariantLookup
	matches lobby.MatchCreator

	mu       sync.Mutex
	watchers map[string]map[chan struct{}]struct{} // room id -> wake channels
}

// New returns a store.
func New(rdb redis.UniversalClient, lookup lobby.VariantLookup, matches lobby.MatchCreator, cfg Config) *Store {
	return &Store{rdb: rdb, cfg: cfg.withDefaults(), lookup: lookup, matches: matches,
		watchers: map[string]map[chan struct{}]struct{}{}}
}

func (s *Store) key(parts ...string) string {
	k := s.cfg.Prefix + "{rooms}"
	for _, p := range parts {
		k += ":" + p
	}
	return k
}

func (s *Store) roomKey(id string) string { return s.key("room", id) }

// EventsChannel is the Pub/Sub channel on which every change of a room is
// announced by its id.
func (s *Store) EventsChannel() string { return s.key("events") }

// Run holds this instance's one subscription to EventsChannel and wakes
// the local Changes listeners of each room that changed, until ctx ends.
// ready, if not nil, is called once the subscription is live.
func (s *Store) Run(ctx context.Context, ready func()) error {
	sub := s.rdb.Subscribe(ctx, s.EventsChannel())
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("subscribe to room events: %w", err)
	}
	if ready != nil {
		ready()
	}
	ch := sub.Channel()
	for {
		select {
		case <-ctx.Done():
			return nil
		case msg, ok := <-ch:
			if !ok {
				return nil
			}
			s.notify(msg.Payload)
		}
	}
}

// Changes returns a channel that receives (coalesced) when room id changes,
// and the function that stops listening. Events arrive only while Run runs
// on this instance; callers keep a slow re-read for events they miss.
func (s *Store) Changes(id string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	if s.watchers[id] == nil {
		s.watchers[id] = map[chan struct{}]struct{}{}
	}
	s.watchers[id][ch] = struct{}{}
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		delete(s.watchers[id], ch)
		if len(s.watchers[id]) == 0 {
			delete(s.watchers, id)
		}
		s.mu.Unlock()
	}
}

func (s *Store) notify(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.watchers[id] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (s *Store) indexKeys(game engine.Game, variant string) []string {
	return []string{s.key("open", "all"), s.key("open", string(game)), s.key("open", string(game)+"/"+variant)}
}

// Create opens a room with host in it.
func (s *Store) Create(ctx context.Context, host lobby.Player, spec Spec) (Room, error) {
	v, err := lobby.CheckVariant(s.lookup, spec.Game, spec.Variant, spec.Clock, spec.Rated)
	if err != nil {
		return Room{}, err
	}
	spec.Variant = v.ID // "" is the default variant
	if v.Players != 2 {
		return Room{}, lobby.Invalid("variant", "%s/%s is for one player; rooms seat two", spec.Game, spec.Variant)
	}
	n := len([]rune(spec.Password))
	switch {
	case spec.Private && (n < 4 || n > 64):
		return Room{}, lobby.Invalid("password", "a private room needs a password of 4 to 64 characters, got %d", n)
	case !spec.Private && n > 0:
		return Room{}, lobby.Invalid("password", "a public room has no password")
	}
	if spec.OneDevice && (!spec.Private || spec.Rated) {
		return Room{}, lobby.Invalid("one_device", "is only for a private, unrated room (both seats at one device)")
	}
	if spec.HostSeat != engine.NoSeat && spec.HostSeat != engine.First && spec.HostSeat != engine.Second {
		return Room{}, lobby.Invalid("host_seat", "unknown seat %d", spec.HostSeat)
	}
	if spec.Rated {
		spec.HostSeat = engine.NoSeat // rated rooms draw white at random
	}
	now := s.cfg.Now()
	id := lobby.NewID("r_")
	if err := s.takeHostSlot(ctx, host.ID, id); err != nil {
		return Room{}, err
	}
	r := Room{
		ID: id, Game: spec.Game, Variant: spec.Variant, Clock: spec.Clock,
		Rated: spec.Rated, Private: spec.Private, OneDevice: spec.OneDevice, Host: host, HostSeat: spec.HostSeat,
		Status: Open, CreatedAt: now, ExpiresAt: now.Add(s.cfg.OpenTTL),
	}
	var pw string
	if spec.Private {
		pw = s.cfg.Argon2.Hash(spec.Password)
	}
	for {
		r.InviteCode = newInviteCode()
		ok, err := s.rdb.SetNX(ctx, s.key("invite", r.InviteCode), r.ID, s.cfg.OpenTTL).Result()
		if err != nil {
			return Room{}, fmt.Errorf("reserve invite code: %w", err)
		}
		if ok {
			break
		}
	}
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		rk := s.roomKey(r.ID)
		p.HSet(ctx, rk, map[string]any{
			"id": r.ID, "code": r.InviteCode, "game": string(r.Game), "variant": r.Variant,
			"base": r.Clock.BaseMS, "inc": r.Clock.IncrementMS, "rated": b2i(r.Rated), "private": b2i(r.Private),
			"one_device": b2i(r.OneDevice),
			"pw":         pw, "host": host.ID, "host_name": host.DisplayName, "host_rating": host.Rating,
			"host_seat": int(r.HostSeat), "status": string(Open), "created": now.UnixMilli(),
			"expires": r.ExpiresAt.UnixMilli(),
		})
		p.PExpire(ctx, rk, s.cfg.OpenTTL)
		if !r.Private {
			for _, k := range s.indexKeys(r.Game, r.Variant) {
				p.ZAdd(ctx, k, redis.Z{Score: float64(now.UnixMilli()), Member: r.ID})
			}
		}
		p.Publish(ctx, s.EventsChannel(), r.ID)
		return nil
	})
	if err != nil {
		bg := context.WithoutCancel(ctx)
		s.rdb.SRem(bg, s.key("host", host.ID), r.ID)
		s.rdb.Del(bg, s.roomKey(r.ID))
		return Room{}, fmt.Errorf("create room: %w", err)
	}
	return r, nil
}

// hostSlot adds a new room to its host's set of open rooms unless the host
// already has the most allowed, atomically (concurrent creates cannot
// overshoot). It drops the set's rooms that are gone or no longer open,
// and creates the new room's hash as open so that a concurrent call
// counts it. ARGV: host set key, room key prefix, new room id, limit, ttl
// ms. Returns 1, or 0 at the limit. The new room already in the set is a
// second run of the same call (its first reply was lost, and the client
// sent it again): it took the slot.
var hostSlot = redis.NewScript(`
local hk, rp = ARGV[1], ARGV[2]
if redis.call('SISMEMBER', hk, ARGV[3]) == 1 and redis.call('HGET', rp .. ARGV[3], 'status') == 'open' then return 1 end
local open = 0
for _, id in ipairs(redis.call('SMEMBERS', hk)) do
  local st = redis.call('HGET', rp .. id, 'status')
  if st == 'open' then open = open + 1 else redis.call('SREM', hk, id) end
end
if open >= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', rp .. ARGV[3], 'status', 'open')
redis.call('PEXPIRE', rp .. ARGV[3], ARGV[5])
redis.call('SADD', hk, ARGV[3])
redis.call('PEXPIRE', hk, ARGV[5])
return 1
`)

func (s *Store) takeHostSlot(ctx context.Context, hostID, roomID string) error {
	ok, err := hostSlot.Run(ctx, s.rdb, []string{s.EventsChannel()}, s.key("host", hostID), s.roomKey(""), roomID,
		s.cfg.MaxOpenPerHost, s.cfg.OpenTTL.Milliseconds()).Int()
	if err != nil {
		return fmt.Errorf("count hosted rooms: %w", err)
	}
	if ok == 0 {
		return fmt.Errorf("you already host %d open rooms; close one first: %w", s.cfg.MaxOpenPerHost, lobby.ErrTooManyAttempts)
	}
	return nil
}

// Get returns a room by id.
func (s *Store) Get(ctx context.Context, id string) (Room, error) {
	if id == "" {
		return Room{}, lobby.Invalid("room_id", "required")
	}
	m, err := s.rdb.HGetAll(ctx, s.roomKey(id)).Result()
	if err != nil {
		return Room{}, fmt.Errorf("get room %s: %w", lobby.Clip(id), err)
	}
	if len(m) == 0 {
		return Room{}, fmt.Errorf("room %s: %w", lobby.Clip(id), lobby.ErrNotFound)
	}
	return decode(m), nil
}

// ByInvite returns the id of the room with an invite code (any case).
func (s *Store) ByInvite(ctx context.Context, code string) (string, error) {
	id, err := s.rdb.Get(ctx, s.key("invite", normalizeInvite(code))).Result()
	if errors.Is(err, redis.Nil) {
		return "", fmt.Errorf("invite code: %w", lobby.ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("resolve invite code: %w", err)
	}
	return id, nil
}

func decode(m map[string]string) Room {
	i64 := func(k string) int64 { v, _ := strconv.ParseInt(m[k], 10, 64); return v }
	f64 := func(k string) float64 { v, _ := strconv.ParseFloat(m[k], 64); return v }
	r := Room{
		ID: m["id"], InviteCode: m["code"], Game: engine.Game(m["game"]), Variant: m["variant"],
		Clock: lobby.TimeControl{BaseMS: i64("base"), IncrementMS: i64("inc")},
		Rated: m["rated"] == "1", Private: m["private"] == "1", OneDevice: m["one_device"] == "1",
		Host:     lobby.Player{ID: m["host"], DisplayName: m["host_name"], Rating: f64("host_rating")},
		Guest:    lobby.Player{ID: m["guest"], DisplayName: m["guest_name"], Rating: f64("guest_rating")},
		HostSeat: engine.Seat(i64("host_seat")), Status: Status(m["status"]), MatchID: m["match"],
		FirstPlayerID: m["first"],
		CreatedAt:     time.UnixMilli(i64("created")), ExpiresAt: time.UnixMilli(i64("expires")),
		HostGone: m["closed_by"] == hostGoneMark,
	}
	if ms := i64("host_seen"); ms > 0 {
		r.HostSeen = time.UnixMilli(ms)
	}
	return r
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Page is one page of open public rooms, newest first.
type Page struct {
	Rooms []Room
	Next  string // token of the next page; empty on the last
}

// List returns open public rooms, newest first, filtered by game (empty
// for all) and variant (empty for all; needs game). pageToken is a Page's
// Next, empty for the first page.
func (s *Store) List(ctx context.Context, game engine.Game, variant string, pageSize int, pageToken string) (Page, error) {
	if variant != "" && game == "" {
		return Page{}, lobby.Invalid("variant", "a variant filter needs a game")
	}
	if pageSize == 0 {
		pageSize = 20
	}
	if pageSize < 0 || pageSize > 100 {
		return Page{}, lobby.Invalid("page_size", "must be 1 to 100, got %d", pageSize)
	}
	offset := 0
	if pageToken != "" {
		n, err := strconv.Atoi(pageToken)
		if err != nil || n < 0 {
			return Page{}, lobby.Invalid("page_token", "malformed")
		}
		offset = n
	}
	idx := s.key("open", "all")
	switch {
	case variant != "":
		idx = s.key("open", string(game)+"/"+variant)
	case game != "":
		idx = s.key("open", string(game))
	}
	// Rooms whose key expired leave their index entry behind: drop the
	// entries older than an open room can live.
	stale := strconv.FormatInt(s.cfg.Now().Add(-s.cfg.OpenTTL).UnixMilli(), 10)
	s.rdb.ZRemRangeByScore(ctx, idx, "-inf", "("+stale)
	var page Page
	for len(page.Rooms) < pageSize {
		ids, err := s.rdb.ZRevRange(ctx, idx, int64(offset), int64(offset+pageSize-len(page.Rooms)-1)).Result()
		if err != nil {
			return Page{}, fmt.Errorf("list rooms: %w", err)
		}
		if len(ids) == 0 {
			return page, nil
		}
		cmds, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, id := range ids {
				p.HGetAll(ctx, s.roomKey(id))
			}
			return nil
		})
		if err != nil {
			return Page{}, fmt.Errorf("list rooms: %w", err)
		}
		for _, c := range cmds {
			offset++
			r := decode(c.(*redis.MapStringStringCmd).Val())
			if r.ID == "" || r.Status != Open {
				continue // expired a moment ago, or just claimed
			}
			if s.hostGone(r) {
				if _, err := s.closeIfHostGone(ctx, r); err != nil {
					return Page{}, err
				}
				continue
			}
			r.InviteCode = "" // sent to members only
			page.Rooms = append(page.Rooms, r)
		}
	}
	n, err := s.rdb.ZCard(ctx, idx).Result()
	if err != nil {
		return Page{}, fmt.Errorf("list rooms: %w", err)
	}
	if int64(offset) < n {
		page.Next = strconv.Itoa(offset)
	}
	return page, nil
}

// claimSeat takes the free seat of an open room for a joiner.
// KEYS: room, open:all, open:game, open:game/variant, host set.
// ARGV: player, name, rating, call token. Returns "ok", "missing", "host",
// "member" (already the guest) or the room's status. The claim records
// the call's token: a second run of the same call (its first reply lost)
// answers "ok" again, so that its caller goes on to create the match.
var claimSeat = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
local f = redis.call('HMGET', KEYS[1], 'status', 'host', 'guest', 'id', 'claim')
if f[1] == 'starting' and f[3] == ARGV[1] and f[5] == ARGV[4] then return 'ok' end
if f[2] == ARGV[1] then return 'host' end
if f[3] == ARGV[1] then return 'member' end
if f[1] ~= 'open' then return f[1] end
redis.call('HSET', KEYS[1], 'guest', ARGV[1], 'guest_name', ARGV[2], 'guest_rating', ARGV[3], 'status', 'starting', 'claim', ARGV[4])
for i = 2, 4 do redis.call('ZREM', KEYS[i], f[4]) end
redis.call('SREM', KEYS[5], f[4])
return 'ok'
`)

// releaseSeat undoes claimSeat when the match could not be created.
var releaseSeat = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'status', 'guest', 'id', 'private', 'created')
if f[1] ~= 'starting' or f[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'guest', '', 'guest_name', '', 'guest_rating', '', 'status', 'open')
if f[4] ~= '1' then
  for i = 2, 4 do redis.call('ZADD', KEYS[i], f[5], f[3]) end
end
redis.call('SADD', KEYS[5], f[3])
return 1
`)

// startRoom records the match of a room whose seat was claimed, and opens
// the match's rematch record (see rematch.go) with what a rematch copies.
// KEYS: room, invite prefix, rematch prefix. ARGV: guest, match id, first
// player, started ttl ms, rematch ttl ms.
var startRoom = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'status', 'guest', 'code')
if f[1] ~= 'starting' or f[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'status', 'started', 'match', ARGV[2], 'first', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2] .. f[3], ARGV[4])
local r = redis.call('HMGET', KEYS[1], 'id', 'game', 'variant', 'base', 'inc', 'rated', 'private',
  'host', 'host_name', 'host_rating', 'guest', 'guest_name', 'guest_rating', 'one_device')
local rk = KEYS[3] .. ARGV[2]
redis.call('HSET', rk, 'room', r[1], 'game', r[2], 'variant', r[3], 'base', r[4], 'inc', r[5],
  'rated', r[6], 'private', r[7], 'host', r[8], 'host_name', r[9], 'host_rating', r[10],
  'guest', r[11], 'guest_name', r[12], 'guest_rating', r[13], 'one_device', r[14] or '0', 'first', ARGV[3],
  'status', 'none')
redis.call('PEXPIRE', rk, ARGV[5])
return 1
`)

// Target names a room by id or by invite code; exactly one is set.
type Target struct {
	RoomID     string
	InviteCode string
	// OneDevice: the joiner knows the room is for two players at one
	// device and takes its second seat there (the host's own second
	// identity; JoinRoomRequest.one_device). A one-device room refuses a
	// join without it; other rooms ignore it.
	OneDevice bool
}

// Join takes the free seat of a room. When it fills the room, the match is
// created and the returned room carries its id. Joining a room one already
// sits in returns it unchanged.
//
// source is the client address the guess comes from (see checkPassword).
func (s *Store) Join(ctx context.Context, p lobby.Player, t Target, password, source string) (Room, error) {
	id := t.RoomID
	switch {
	case (t.RoomID == "") == (t.InviteCode == ""):
		return Room{}, lobby.Invalid("target", "give exactly one of room_id and invite_code")
	case t.InviteCode != "":
		var err error
		if id, err = s.ByInvite(ctx, t.InviteCode); err != nil {
			return Room{}, err
		}
	}
	r, err := s.Get(ctx, id)
	if err != nil {
		return Room{}, err
	}
	if !r.Private && password != "" {
		return Room{}, lobby.Invalid("password", "room %s is public; send no password", id)
	}
	if r.Private && r.Host.ID != p.ID && r.Guest.ID != p.ID {
		if err := s.checkPassword(ctx, r, p.ID, source, password); err != nil {
			return Room{}, err
		}
	}
	if r.OneDevice && !t.OneDevice && r.Host.ID != p.ID && r.Guest.ID != p.ID {
		// Its match waits for its players as long as a bot game: a friend
		// seated here would wait 30 days for a first ply nobody makes.
		return Room{}, lobby.Precondition("this room is for two players at one device; ask its host for a normal room")
	}
	if r.HostGone {
		return Room{}, s.hostGoneError(r)
	}
	if s.hostGone(r) && r.Host.ID != p.ID && r.Guest.ID != p.ID {
		closed, err := s.closeIfHostGone(ctx, r)
		if err != nil {
			return Room{}, err
		}
		if closed {
			return Room{}, s.hostGoneError(r)
		}
	}
	keys := append([]string{s.roomKey(id)}, s.indexKeys(r.Game, r.Variant)...)
	keys = append(keys, s.key("host", r.Host.ID))
	res, err := claimSeat.Run(ctx, s.rdb, keys, p.ID, p.DisplayName, p.Rating, lobby.NewID("c_")).Text()
	if err != nil {
		return Room{}, fmt.Errorf("join room %s: %w", id, err)
	}
	switch res {
	case "ok":
	case "missing":
		return Room{}, fmt.Errorf("room %s: %w", id, lobby.ErrNotFound)
	case "host":
		return Room{}, lobby.Precondition("you host room %s; wait for someone to join", id)
	case "member":
		return s.Get(ctx, id)
	default:
		return Room{}, lobby.Precondition("room %s is %s", id, res)
	}
	r.Guest, r.Status = p, Starting
	return s.start(ctx, r, keys)
}

// Invite returns the room of an invite code to someone who may join it:
// a private room's password is checked as Join checks it, and counted with
// Join's guesses, unless guesser is in the room. guesser is the caller's
// player id, or "" for a caller who is not signed in, whose guesses are
// counted per client address (source).
func (s *Store) Invite(ctx context.Context, code, guesser, password, source string) (Room, error) {
	id, err := s.ByInvite(ctx, code)
	if err != nil {
		return Room{}, err
	}
	r, err := s.Get(ctx, id)
	if err != nil {
		return Room{}, err
	}
	if !r.Private && password != "" {
		return Room{}, lobby.Invalid("password", "room %s is public; send no password", id)
	}
	if r.Private && (guesser == "" || guesser != r.Host.ID && guesser != r.Guest.ID) {
		if guesser == "" {
			guesser = "addr:" + source
		}
		if err := s.checkPassword(ctx, r, guesser, source, password); err != nil {
			return Room{}, err
		}
	}
	return r, nil
}

// takeAttempt counts a password attempt for a room before it is checked,
// atomically, so that concurrent guesses cannot slip past the limits: per
// (room, player) and per (room, client address), from the first guess.
// KEYS: per-(room, player) counter, per-(room, source) counter.
// ARGV: window ms, player limit, source limit. Returns 1 (counted), 0 (the
// player's limit is reached) or -1 (the source's is).
var takeAttempt = redis.NewScript(`
local b = tonumber(redis.call('GET', KEYS[1]) or '0')
if b >= tonumber(ARGV[2]) then return 0 end
local a = tonumber(redis.call('GET', KEYS[2]) or '0')
if a >= tonumber(ARGV[3]) then return -1 end
for k = 1, 2 do
  if redis.call('INCR', KEYS[k]) == 1 then redis.call('PEXPIRE', KEYS[k], ARGV[1]) end
end
return 1
`)

// checkPassword takes an attempt (refused with ErrTooManyAttempts over the
// per-player or per-source limit), then checks the password; a right one
// gives the attempt back.
func (s *Store) checkPassword(ctx context.Context, r Room, playerID, source, password string) error {
	pk, sk := s.key("pwfail", r.ID, playerID), s.key("pwsrc", r.ID, source)
	ok, err := takeAttempt.Run(ctx, s.rdb, []string{pk, sk}, s.cfg.WrongWindow.Milliseconds(),
		s.cfg.MaxWrongPassword, s.cfg.MaxWrongPerSource).Int()
	if err != nil {
		return fmt.Errorf("count password attempts: %w", err)
	}
	switch ok {
	case 0:
		return fmt.Errorf("too many wrong passwords for room %s; wait and retry: %w", r.ID, lobby.ErrTooManyAttempts)
	case -1:
		return fmt.Errorf("too many wrong passwords for room %s from your address; wait and retry: %w", r.ID, lobby.ErrTooManyAttempts)
	}
	pw, err := s.rdb.HGet(ctx, s.roomKey(r.ID), "pw").Result()
	if err != nil {
		return fmt.Errorf("room %s password: %w", r.ID, lobby.ErrNotFound)
	}
	match, err := verify(pw, password)
	if err != nil {
		return fmt.Errorf("room %s: %w", r.ID, err)
	}
	if !match {
		if password == "" {
			return fmt.Errorf("room %s: %w", r.ID, lobby.ErrPasswordNeeded)
		}
		return fmt.Errorf("room %s: %w", r.ID, lobby.ErrWrongPassword)
	}
	bg := context.WithoutCancel(ctx)
	s.rdb.Decr(bg, sk)
	s.rdb.Del(bg, pk)
	return nil
}

// start creates the match of a room whose second seat this instance
// claimed. White is the host's choice, or drawn at random (Q5; always
// drawn in rated rooms).
func (s *Store) start(ctx context.Context, r Room, keys []string) (Room, error) {
	first, second := r.Host, r.Guest
	switch {
	case r.HostSeat == engine.Second, r.HostSeat == engine.NoSeat && rand.IntN(2) == 1:
		first, second = second, first
	}
	spec := lobby.MatchSpec{
		RequestID: "room-" + r.ID, Game: r.Game, Variant: r.Variant, Clock: r.Clock, Rated: r.Rated, Private: r.Private, OneDevice: r.OneDevice,
		First:  lobby.Participant{PlayerID: first.ID, DisplayName: first.DisplayName, Rating: first.Rating},
		Second: lobby.Participant{PlayerID: second.ID, DisplayName: second.DisplayName, Rating: second.Rating},
	}
	var matchID string
	err := s.reserve(ctx, spec.RequestID, r.Guest.ID, r.Host.ID)
	if err == nil {
		matchID, err = s.matches.CreateMatch(ctx, spec)
		if err == nil {
			err = s.confirm(ctx, spec.RequestID, matchID, r.Guest.ID, r.Host.ID)
		} else {
			err = errors.Join(err, s.release(ctx, spec.RequestID, r.Guest.ID, r.Host.ID))
		}
	}
	if err != nil {
		// Give the seat back so that the room stays joinable; the match
		// request id makes a later attempt safe even if this one did create
		// a match the answer of which was lost.
		if rerr := releaseSeat.Run(context.WithoutCancel(ctx), s.rdb, keys, r.Guest.ID).Err(); rerr != nil {
			return Room{}, errors.Join(fmt.Errorf("create match of room %s: %w", r.ID, err), rerr)
		}
		s.rdb.Publish(context.WithoutCancel(ctx), s.EventsChannel(), r.ID)
		return Room{}, fmt.Errorf("create match of room %s: %w", r.ID, err)
	}
	ttl := s.cfg.StartedTTL.Milliseconds()
	if err := startRoom.Run(ctx, s.rdb, []string{keys[0], s.key("invite", ""), s.key("rematch", "")},
		r.Guest.ID, matchID, first.ID, ttl, s.cfg.RematchTTL.Milliseconds()).Err(); err != nil {
		return Room{}, fmt.Errorf("start room %s: %w", r.ID, err)
	}
	s.rdb.Publish(ctx, s.EventsChannel(), r.ID)
	r.Status, r.MatchID, r.FirstPlayerID = Started, matchID, first.ID
	return r, nil
}

func (s *Store) reserve(ctx context.Context, ref string, players ...string) error {
	if s.cfg.Reserver == nil {
		return nil
	}
	return s.cfg.Reserver.Reserve(ctx, ref, players...)
}

func (s *Store) confirm(ctx context.Context, ref, matchID string, players ...string) error {
	if s.cfg.Reserver == nil {
		return nil
	}
	return s.cfg.Reserver.Confirm(context.WithoutCancel(ctx), ref, matchID, players...)
}

func (s *Store) release(ctx context.Context, ref string, players ...string) error {
	if s.cfg.Reserver == nil {
		return nil
	}
	return s.cfg.Reserver.Release(context.WithoutCancel(ctx), ref, players...)
}

// closeRoom closes an open room when its host leaves. ARGV: player, ttl
// ms, call token; a second run of the same call (its first reply lost)
// finds the room closed by its token and answers "ok" again.
var closeRoom = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'status', 'host', 'guest', 'id', 'code', 'closed_by')
if not f[1] then return 'missing' end
if f[1] == 'closed' and f[6] == ARGV[3] then return 'ok' end
if f[2] ~= ARGV[1] and f[3] ~= ARGV[1] then return 'stranger' end
if f[1] ~= 'open' then return f[1] end
redis.call('HSET', KEYS[1], 'status', 'closed', 'closed_by', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
for i = 2, 4 do redis.call('ZREM', KEYS[i], f[4]) end
redis.call('SREM', KEYS[5], f[4])
redis.call('DEL', KEYS[6] .. f[5])
return 'ok'
`)

// Leave leaves a room that has not started; the host leaving closes it.
func (s *Store) Leave(ctx context.Context, playerID, roomID string) error {
	r, err := s.Get(ctx, roomID)
	if err != nil {
		return err
	}
	keys := append([]string{s.roomKey(roomID)}, s.indexKeys(r.Game, r.Variant)...)
	keys = append(keys, s.key("host", r.Host.ID), s.key("invite", ""))
	res, err := closeRoom.Run(ctx, s.rdb, keys, playerID, s.cfg.StartedTTL.Milliseconds(), lobby.NewID("c_")).Text()
	if err != nil {
		return fmt.Errorf("leave room %s: %w", roomID, err)
	}
	switch res {
	case "ok":
		s.rdb.Publish(ctx, s.EventsChannel(), roomID)
		return nil
	case "missing":
		return fmt.Errorf("room %s: %w", roomID, lobby.ErrNotFound)
	case "stranger":
		return lobby.Precondition("you are not in room %s", roomID)
	case string(Closed):
		return lobby.Precondition("room %s is already closed", roomID)
	case string(Started), string(Starting):
		return lobby.Precondition("room %s has started its match; resign the match instead", roomID)
	default:
		return lobby.Precondition("room %s is %s", roomID, res)
	}
}

// hostGoneMark is the closed_by of a room closed because its host left.
const hostGoneMark = "host_gone"

// hostGoneError is Join's refusal of a room whose host left.
func (s *Store) hostGoneError(r Room) error {
	return lobby.Precondition("room %s is closed: its host left (the host's page has been closed for over %s)", r.ID, s.cfg.HostGrace)
}

// hostGone reports whether an open room's host watched it once and has not
// for HostGrace.
func (s *Store) hostGone(r Room) bool {
	return r.Status == Open && !r.HostSeen.IsZero() && s.cfg.Now().Sub(r.HostSeen) > s.cfg.HostGrace
}

// stampHost records that the host of an open room watches it. KEYS: room.
// ARGV: host, now ms. Returns 1, or 0 if the room is not open or not
// the host's.
var stampHost = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'status', 'host')
if f[1] ~= 'open' or f[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'host_seen', ARGV[2])
return 1
`)

// HostHere records that the host of an open room watches it (WatchRoom
// calls it every HostBeat while the host's stream lasts). A call from
// anyone but the host, or for a room that is not open, changes nothing.
func (s *Store) HostHere(ctx context.Context, hostID, roomID string) error {
	if err := stampHost.Run(ctx, s.rdb, []string{s.roomKey(roomID)}, hostID, s.cfg.Now().UnixMilli()).Err(); err != nil {
		return fmt.Errorf("stamp room %s: %w", lobby.Clip(roomID), err)
	}
	return nil
}

// HostBeat is how often a host's watch stamps its room: a third of
// HostGrace, so that a stamp or two may be late without closing the room.
func (s *Store) HostBeat() time.Duration { return s.cfg.HostGrace / 3 }

// closeGone closes an open room whose host's last stamp is older than the
// cutoff, as the host leaving would. KEYS: room, open:all, open:game,
// open:game/variant, host set, invite prefix. ARGV: cutoff ms, ttl ms.
// Returns 1 if it closed the room.
var closeGone = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'status', 'host_seen', 'id', 'code')
if f[1] ~= 'open' or not f[2] or f[2] == '' or tonumber(f[2]) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'status', 'closed', 'closed_by', 'host_gone')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
for i = 2, 4 do redis.call('ZREM', KEYS[i], f[3]) end
redis.call('SREM', KEYS[5], f[3])
redis.call('DEL', KEYS[6] .. f[4])
return 1
`)

// closeIfHostGone closes r if its host is still gone (atomically: a stamp
// since r was read keeps it open), announcing the change to its watchers.
func (s *Store) closeIfHostGone(ctx context.Context, r Room) (bool, error) {
	keys := append([]string{s.roomKey(r.ID)}, s.indexKeys(r.Game, r.Variant)...)
	keys = append(keys, s.key("host", r.Host.ID), s.key("invite", ""))
	cutoff := s.cfg.Now().Add(-s.cfg.HostGrace).UnixMilli()
	n, err := closeGone.Run(ctx, s.rdb, keys, cutoff, s.cfg.StartedTTL.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("close room %s: %w", r.ID, err)
	}
	if n == 1 {
		s.rdb.Publish(ctx, s.EventsChannel(), r.ID)
	}
	return n == 1, nil
}
