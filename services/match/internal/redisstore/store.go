// Package redisstore keeps matches in Redis: a match's state, plies and
// event stream under keys that share the hash tag {match-id}, a sorted set
// of deadlines swept by every instance, a results outbox stream, and a Hub
// that multiplexes every local subscriber's Pub/Sub channel on one
// connection. Every write of a match is one Lua script, so a version check,
// the state, the events, the deadline and the publication happen together
// or not at all.
//
// Redis Cluster: every script and transaction touches keys of one hash
// slot; the indexes shared by matches are split into buckets, each in the
// slot of the matches it indexes (slots.go).
package redisstore

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/services/match/internal/match"
)

// Options tune the Store.
type Options struct {
	// Prefix is put before every key and channel ("tabuleiro:" say); tests
	// use a random one.
	Prefix string
	// StreamMaxLen is how many events a match keeps (default 16): a
	// client further behind (one that reconnects after missing more, or
	// falls that far behind) gets a snapshot, one message that costs less
	// to build and send than the events it replaces. The plies are kept
	// whole; the events only serve such catching up.
	StreamMaxLen int
	// LiveTTL is the expiry of an ongoing match's keys, renewed by every
	// write (default 24h): a match nobody touches cannot stay forever.
	LiveTTL time.Duration
	// FinishedTTL is the expiry of a finished match's keys (default 10m):
	// long enough for late rejoins; the record is in the outbox.
	FinishedTTL time.Duration
	// RefreshEvery (default 10s) is how often a commit renews an ongoing
	// match's expiries and its activity time in the live-match index: the
	// commits in between write neither (seven fewer Redis calls a ply).
	// The expiry set is LiveTTL+RefreshEvery, so the keys still live at
	// least LiveTTL after the last write; the index orders matches by
	// activity to within RefreshEvery. A commit that writes a summary,
	// adds the first ply or ends the match always renews both.
	RefreshEvery time.Duration
	// WaitReplicas, when positive, makes every commit wait (Redis WAIT,
	// at most WaitTimeout) until that many replicas have received it, and
	// publishes the commit's events only then: a change is acknowledged —
	// Commit returns nil, the events reach the streams — only once a
	// replica holds it, so a Sentinel failover that promotes that replica
	// loses no acknowledged ply. Fewer replicas in time: the commit stays
	// on the primary unpublished and Commit returns match.ErrNotReplicated
	// (the client retries; the feeds pick the events up from the stream).
	// Create and Replicated wait the same way.
	WaitReplicas int
	// WaitTimeout bounds each WAIT (default 1s when WaitReplicas is set).
	WaitTimeout time.Duration
	// JSON writes states, plies and events as JSON, as versions before the
	// binary encoding did (codec.go), for the first step of a rolling
	// upgrade from one: every instance reads both. It implies Compat.
	JSON bool
	// Compat writes what versions before the events list and the derived
	// live-match summaries read, for the first step of a rolling upgrade
	// from one: a new match's events go in a Redis stream (see eventsKey;
	// every instance reads both, and a match goes on in the form it was
	// created with), and each live match's summary in the index's hash
	// live:sum (which only those versions read; see Live).
	Compat bool
}

// Store implements match.Store on Redis.
type Store struct {
	rdb     redis.UniversalClient
	cluster *redis.ClusterClient // rdb, when it is a cluster's
	o       Options
	group   *scriptGroup // commits
	loads   *scriptGroup
}

var _ match.Store = (*Store)(nil)

// New returns a Store on rdb.
func New(rdb redis.UniversalClient, o Options) *Store {
	if o.StreamMaxLen <= 0 {
		o.StreamMaxLen = 16
	}
	if o.LiveTTL <= 0 {
		o.LiveTTL = 24 * time.Hour
	}
	if o.FinishedTTL <= 0 {
		o.FinishedTTL = 10 * time.Minute
	}
	if o.RefreshEvery <= 0 {
		o.RefreshEvery = 10 * time.Second
	}
	if o.WaitReplicas > 0 && o.WaitTimeout <= 0 {
		o.WaitTimeout = time.Second
	}
	if o.JSON {
		o.Compat = true // the versions that wrote JSON read only streams
	}
	cluster, _ := rdb.(*redis.ClusterClient)
	return &Store{rdb: rdb, cluster: cluster, o: o,
		group: &scriptGroup{rdb: rdb, cluster: cluster, script: commitScript, wait: o.WaitReplicas, waitTimeout: o.WaitTimeout},
		loads: &scriptGroup{rdb: rdb, cluster: cluster, script: loadScript, wait: o.WaitReplicas, waitTimeout: o.WaitTimeout, mark: o.Prefix + "replicated"},
	}
}

// Keys of a match; they share the hash tag {id}.
func (s *Store) stateKey(id string) string { return s.o.Prefix + "m:{" + id + "}" }
func (s *Store) pliesKey(id string) string { return s.o.Prefix + "m:{" + id + "}:p" }

// eventsKey holds match id's events: a list of the encoded events, in seq
// order without gaps, the first of seq f (the state hash's field f, 1
// when absent: set once the list is trimmed to StreamMaxLen). Versions
// before it (and Options.Compat) keep a stream there instead, of
// entries "seq-1" with the field e; a match created so goes on so, and
// every reader takes either. A list holds the same events in about half
// the memory: Redis allocates a stream's first node whole (4 KB), which a
// match's events rarely fill.
func (s *Store) eventsKey(id string) string { return s.o.Prefix + "m:{" + id + "}:e" }

// Channel is the Pub/Sub channel of match id.
func (s *Store) Channel(id string) string { return s.o.Prefix + "m:{" + id + "}:c" }

// matchOf is the match id of a Channel.
func (s *Store) matchOf(channel string) string {
	id := strings.TrimPrefix(channel, s.o.Prefix+"m:{")
	return strings.TrimSuffix(id, "}:c")
}

// watchersKey is the hash of match id's spectators: per instance, its
// number of Watch streams (field INSTANCE) and when that count lapses
// unless renewed (INSTANCE:t, unix ms). Versions before kept one member
// a stream in a sorted set at m:{id}:w.
func (s *Store) watchersKey(id string) string { return s.o.Prefix + "m:{" + id + "}:ws" }

// lagKey is the hash of match id's probes and lag estimates (probes.go):
// the state key with ":lag", so the commit script expires it with the
// match.
func (s *Store) lagKey(id string) string { return s.stateKey(id) + ":lag" }

// bucketKey is the key name of bucket b (slots.go): name with the
// bucket's hash tag, or name alone for the legacy bucket.
func (s *Store) bucketKey(name string, b int) string {
	if b == legacy {
		return s.o.Prefix + name
	}
	return s.o.Prefix + name + ":{" + bucketTags[b] + "}"
}

// The indexes' keys of match id's bucket; LeasesKey and the others are
// exported for tests.
func (s *Store) leasesKey(id string) string    { return s.bucketKey("leases", bucketOfID(id)) }
func (s *Store) deadlinesKey(id string) string { return s.bucketKey("deadlines", bucketOfID(id)) }
func (s *Store) outboxKey(id string) string    { return s.bucketKey("outbox", bucketOfID(id)) }
func (s *Store) requestKey(r string) string {
	return s.bucketKey("req", bucketOfRequest(r)) + ":" + r
}

// buckets are the buckets readers read: on a single Redis also the
// legacy one.
func (s *Store) buckets() []int {
	bs := make([]int, 0, Buckets+1)
	if s.cluster == nil {
		bs = append(bs, legacy)
	}
	for b := range Buckets {
		bs = append(bs, b)
	}
	return bs
}

// The live-match index: ids by last activity, and each player's live
// matches by last activity, in match id's bucket. A match's summary is
// derived from its state when listed (Live); live:sum holds the summaries
// that versions before did not derive (written with Options.Compat,
// cleared as matches end).
func (s *Store) liveKey(id string) string    { return s.bucketKey("live", bucketOfID(id)) }
func (s *Store) liveSumKey(id string) string { return s.bucketKey("live:sum", bucketOfID(id)) }
func (s *Store) playerKey(p string, b int) string {
	if b == legacy {
		return s.o.Prefix + "pl:" + p
	}
	return s.bucketKey("pl", b) + ":" + p
}
func (s *Store) indexKeys(st *match.State) []string {
	keys := []string{s.liveKey(st.ID), s.liveSumKey(st.ID)}
	for _, p := range st.PlayerIDs() {
		keys = append(keys, s.playerKey(p, bucketOfID(st.ID)))
	}
	return keys
}

// indexLua maintains the live-match index inside the create and commit
// scripts: KEYS from k are live, live:sum and the player keys; summary is
// the json summary for live:sum (Options.Compat), ” once finished, '='
// otherwise; at is the activity time.
const indexLua = `
local function index(k, summary, at, id)
  if summary == '' then
    redis.call('ZREM', KEYS[k], id)
    redis.call('HDEL', KEYS[k + 1], id)
    for j = k + 2, #KEYS do redis.call('ZREM', KEYS[j], id) end
  else
    redis.call('ZADD', KEYS[k], at, id)
    if summary ~= '=' then redis.call('HSET', KEYS[k + 1], id, summary) end
    for j = k + 2, #KEYS do redis.call('ZADD', KEYS[j], at, id) end
  end
end
`

// MatchKeys returns every key of match id, for tests that check nothing
// is left behind.
func (s *Store) MatchKeys(id string) []string {
	return []string{s.stateKey(id), s.pliesKey(id), s.eventsKey(id), s.watchersKey(id), s.lagKey(id)}
}

// IndexKeys returns the index keys of match id's bucket (deadlines,
// outbox, leases, live, live:sum) and those of the given players, for
// tests.
func (s *Store) IndexKeys(id string, players ...string) []string {
	keys := []string{s.deadlinesKey(id), s.outboxKey(id), s.leasesKey(id), s.liveKey(id), s.liveSumKey(id)}
	for _, p := range players {
		keys = append(keys, s.playerKey(p, bucketOfID(id)))
	}
	return keys
}

// PlayerKeys returns every bucket's key of player's live matches, for
// tests.
func (s *Store) PlayerKeys(player string) []string {
	var keys []string
	for _, b := range s.buckets() {
		keys = append(keys, s.playerKey(player, b))
	}
	return keys
}

// AllIndexKeys returns every bucket's keys of index name ("deadlines",
// "outbox", "leases", "live", "live:sum"), for tests.
func (s *Store) AllIndexKeys(name string) []string {
	var keys []string
	for _, b := range s.buckets() {
		keys = append(keys, s.bucketKey(name, b))
	}
	return keys
}

var createScript = redis.NewScript(indexLua + `
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[4])
redis.call('HSET', KEYS[2], 'v', '1', 's', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
if ARGV[3] ~= '0' then redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1]) end
index(4, ARGV[5], ARGV[6], ARGV[1])
return ARGV[1]
`)

// Create implements match.Store.
// The match is created in the bucket of requestID (so that a retried
// request finds its request key): st.ID is replaced by an id of that
// bucket's slot unless it is one already.
func (s *Store) Create(ctx context.Context, requestID string, st *match.State, deadline int64) (string, error) {
	if b := bucketOfRequest(requestID); bucketOfID(st.ID) != b {
		st.ID = newID(b)
	}
	b, err := encodeValue(s.o.JSON, st, encodeState)
	if err != nil {
		return "", err
	}
	sum := []byte("=")
	if s.o.Compat {
		if sum, err = json.Marshal(match.SummaryOf(st)); err != nil {
			return "", err
		}
	}
	id, err := createScript.Run(ctx, s.rdb,
		append([]string{s.requestKey(requestID), s.stateKey(st.ID), s.deadlinesKey(st.ID)}, s.indexKeys(st)...),
		st.ID, b, deadline, s.o.LiveTTL.Milliseconds(), sum, st.CreatedAt).Text()
	if err != nil {
		return "", fmt.Errorf("create match: %w", err)
	}
	// Read back where WAIT runs: after a failover the match may be gone
	// with the old primary.
	var exists *redis.IntCmd
	if err := s.confirm(ctx, id, func(p redis.Pipeliner) { exists = p.Exists(ctx, s.stateKey(id)) }); err != nil {
		return "", fmt.Errorf("create match: %w", err)
	}
	if exists.Val() != 1 {
		return "", fmt.Errorf("create match %s: lost in a Redis failover: %w", id, match.ErrNotReplicated)
	}
	return id, nil
}

// PlyStored implements match.Store: the stored ply is read, and with
// WaitReplicas a small write and WAIT follow, all in one pipeline: on one
// connection to one server, so the ply read is the one the waited-for
// replicas hold (WAIT counts the replicas that have this connection's
// last write, and so everything written before it). A read and a WAIT
// sent apart could each go to a different primary across a failover.
func (s *Store) PlyStored(ctx context.Context, id string, ply match.PlyRecord) (bool, error) {
	var got *redis.StringCmd
	err := s.confirm(ctx, id, func(p redis.Pipeliner) { got = p.LIndex(ctx, s.pliesKey(id), int64(ply.Number-1)) })
	if err != nil && !errors.Is(err, redis.Nil) {
		return false, fmt.Errorf("ply %d of match %s: %w", ply.Number, id, err)
	}
	var stored match.PlyRecord
	if got.Err() != nil || decodePly([]byte(got.Val()), &stored) != nil {
		return false, nil
	}
	return stored.Number == ply.Number && stored.Seq == ply.Seq && stored.Notation == ply.Notation, nil
}

// confirm runs read (of match id's keys) in a pipeline followed, with
// WaitReplicas, by a small write and WAIT, on the server of id's slot;
// it returns read's error, or ErrNotReplicated when too few replicas
// answered in time.
func (s *Store) confirm(ctx context.Context, id string, read func(p redis.Pipeliner)) error {
	var wait *redis.IntCmd
	err := s.pipeOn(ctx, s.stateKey(id), func(p redis.Pipeliner) error {
		read(p)
		if s.o.WaitReplicas > 0 {
			p.Set(ctx, s.bucketKey("replicated", bucketOfID(id)), time.Now().UnixMilli(), time.Minute)
			wait = redis.NewIntCmd(ctx, "WAIT", s.o.WaitReplicas, s.o.WaitTimeout.Milliseconds())
			_ = p.Process(ctx, wait)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if wait != nil {
		if n := wait.Val(); n < int64(s.o.WaitReplicas) {
			return fmt.Errorf("%d of %d replicas within %v: %w", n, s.o.WaitReplicas, s.o.WaitTimeout, match.ErrNotReplicated)
		}
	}
	return nil
}

// pipeOn runs fn's pipeline on the server of key's slot: on a cluster,
// on that primary's own connection, not split across nodes, so that a
// WAIT in it counts that primary's replicas holding the writes before it
// (WAIT is per server, and a cluster client would send a keyless command
// anywhere). A failure makes the cluster client reload its slot map: the
// primary may have failed over or the slot moved.
func (s *Store) pipeOn(ctx context.Context, key string, fn func(p redis.Pipeliner) error) error {
	if s.cluster == nil {
		_, err := s.rdb.Pipelined(ctx, fn)
		return err
	}
	node, err := s.cluster.MasterForKey(ctx, key)
	if err != nil {
		return err
	}
	_, err = node.Pipelined(ctx, fn)
	if err != nil && !errors.Is(err, redis.Nil) {
		s.cluster.ReloadState(ctx)
	}
	return err
}

var loadScript = redis.NewScript(`
local h = redis.call('HMGET', KEYS[1], 'v', 's')
if not h[1] then return false end
return {h[1], h[2], redis.call('LRANGE', KEYS[2], math.max(tonumber(ARGV[1]) - 1, 0), -1), redis.call('LLEN', KEYS[2])}
`)

// Load implements match.Store: the state and the plies from number have
// on, in one round trip (shared with the loads waiting at the same time).
func (s *Store) Load(ctx context.Context, id string, have int) (*match.State, int, error) {
	v, err := s.loads.run(ctx, []string{s.stateKey(id), s.pliesKey(id)}, []any{max(have, 0)}, nil)
	if errors.Is(err, redis.Nil) {
		return nil, 0, fmt.Errorf("load match %s: %w", id, match.ErrNotFound)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("load match %s: %w", id, err)
	}
	res, ok := v.([]any)
	if !ok {
		return nil, 0, fmt.Errorf("load match %s: unexpected reply %T", id, v)
	}
	return decodeLoaded(id, have, res)
}

// decodeLoaded decodes {version, state json, plies json after have, total
// plies}, the reply of the load script and of a lost commit.
func decodeLoaded(id string, have int, res []any) (*match.State, int, error) {
	var (
		vs, sj string
		raw    []any
		total  int64
		ok     = len(res) == 4
	)
	if ok {
		vs, ok = res[0].(string)
	}
	if ok {
		sj, ok = res[1].(string)
	}
	if ok {
		raw, ok = res[2].([]any)
	}
	if ok {
		total, ok = res[3].(int64)
	}
	if !ok {
		return nil, 0, fmt.Errorf("load match %s: malformed reply %v", id, res)
	}
	v, err := strconv.ParseInt(vs, 10, 64)
	if err != nil {
		return nil, 0, fmt.Errorf("load match %s: version: %w", id, err)
	}
	st := &match.State{}
	if err := decodeState([]byte(sj), st); err != nil {
		return nil, 0, fmt.Errorf("load match %s: %w", id, err)
	}
	st.Version = v
	if err := st.Check(id); err != nil {
		return nil, 0, fmt.Errorf("load match %s: %w", id, err)
	}
	st.Plies = make([]match.PlyRecord, len(raw))
	for i, r := range raw {
		b, _ := r.(string)
		if err := decodePly([]byte(b), &st.Plies[i]); err != nil {
			return nil, 0, fmt.Errorf("load match %s: ply %d: %w", id, max(have, 1)+i, err)
		}
	}
	return st, int(total), nil
}

// commitScript: KEYS state, plies, events, deadlines, outbox, leases.
// ARGV: prev version, new version, state json, deadline (0 none), match id,
// channel, events maxlen, ttl ms, record json (” none), nplies, plies…,
// nevents, (seq, event json, published form or ” for the json)… (a seq
// of 0 is a notice, match.Commit.Notices: published, not stored), lease,
// lease until, summary, at, refresh every (ms), publish ('1': the script
// publishes the events, 'S': with SPUBLISH, the channel being a sharded
// one in the match's slot (shardsub.go); '0': the caller does, after
// WAIT), have (plies the
// caller holds), stream ('1': a match without events yet keeps them in a
// stream, Options.Compat).
//
// The argument before publish is the call's token, kept with the state: a
// run that finds the new version under its own token is a second run of
// the same call (the client sent it again when the first reply was lost),
// which committed already and reports so without writing again. (The
// state alone would not tell: two writers of the same ply number with the
// same clock write the same state JSON, their plies differing.)
//
// The state's field x is when the keys' expiries and the index were last
// renewed (Options.RefreshEvery): a commit renews them when that is
// RefreshEvery ago or more (or later than its own time: another
// instance's clock), when it ends the match, writes a summary or creates
// the plies list (its first ply), or when x is missing (the match's first
// commit, or one stored by a version that renewed on every commit).
var commitScript = redis.NewScript(indexLua + `
local h = redis.call('HMGET', KEYS[1], 'v', 'c', 'x')
local v = h[1]
if v == ARGV[2] and h[2] == ARGV[#ARGV - 3] then return 1 end
if v ~= ARGV[1] then
  if not v then return 0 end
  local from = math.max(tonumber(ARGV[#ARGV - 1]) - 1, 0)
  return {v, redis.call('HGET', KEYS[1], 's'), redis.call('LRANGE', KEYS[2], from, -1), redis.call('LLEN', KEYS[2])}
end
local refresh = ARGV[9] ~= '' or not h[3]
local i = 11
for _ = 1, tonumber(ARGV[10]) do
  if redis.call('RPUSH', KEYS[2], ARGV[i]) == 1 then refresh = true end -- the first ply: a new key
  i = i + 1
end
local n = tonumber(ARGV[i])
i = i + 1
local stream, len, last = nil, 0, nil
for _ = 1, n do
  if ARGV[i] ~= '0' then -- seq 0: a notice, published only
    if stream == nil and ARGV[#ARGV] == '1' then
      local t = redis.call('TYPE', KEYS[3]).ok
      stream = t == 'stream' or t == 'none'
    end
    if not stream then -- a list, unless RPUSH finds the stream of an older version
      local r = redis.pcall('RPUSH', KEYS[3], ARGV[i + 1])
      if type(r) == 'number' then
        len, last, stream = r, ARGV[i], false
      elseif string.find(r.err, 'WRONGTYPE', 1, true) then
        stream = true
      else
        return r
      end
    end
    if stream then
      redis.call('XADD', KEYS[3], 'MAXLEN', ARGV[7], ARGV[i] .. '-1', 'e', ARGV[i + 1])
    end
  end
  local how = ARGV[#ARGV - 2]
  if how ~= '0' then
    local pub = ARGV[i + 2]
    if pub == '' then pub = ARGV[i + 1] end
    if how == 'S' then
      redis.call('SPUBLISH', ARGV[6], pub)
    else
      redis.call('PUBLISH', ARGV[6], pub)
    end
  end
  i = i + 3
end
local maxlen = tonumber(ARGV[7])
if len > maxlen then -- the list's first event is now of seq f
  redis.call('LTRIM', KEYS[3], -maxlen, -1)
  redis.call('HSET', KEYS[1], 'f', tonumber(last) - maxlen + 1)
end
-- ARGV[i..]: lease, lease until, summary, at, refresh every
local at = tonumber(ARGV[i + 3])
if not refresh and ARGV[i + 2] == '=' then
  local x = tonumber(h[3])
  refresh = at - x >= tonumber(ARGV[i + 4]) or at < x
else
  refresh = true
end
if refresh then
  redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3], 'c', ARGV[#ARGV - 3], 'x', ARGV[i + 3])
else
  redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3], 'c', ARGV[#ARGV - 3])
end
if ARGV[4] == '0' then
  redis.call('ZREM', KEYS[4], ARGV[5])
else
  redis.call('ZADD', KEYS[4], ARGV[4], ARGV[5])
end
if ARGV[9] ~= '' then
  redis.call('XADD', KEYS[5], '*', 'id', ARGV[5], 'r', ARGV[9])
end
if ARGV[i] ~= '' then redis.call('ZADD', KEYS[6], ARGV[i + 1], ARGV[i]) end
if refresh then
  for k = 1, 3 do redis.call('PEXPIRE', KEYS[k], ARGV[8]) end
  redis.call('PEXPIRE', KEYS[1] .. ':lag', ARGV[8]) -- the probes' hash (lagKey), if any
  index(7, ARGV[i + 2], ARGV[i + 3], ARGV[5])
end
return 1
`)

// Commit implements match.Store. Its errors name the match, but for a
// conflict (match.ErrVersionConflict, or a *match.Conflict, which is one),
// which the service resolves.
func (s *Store) Commit(ctx context.Context, c match.Commit) error {
	err := s.commit(ctx, c)
	if err == nil || errors.Is(err, match.ErrVersionConflict) {
		return err
	}
	return fmt.Errorf("commit match %s: %w", c.State.ID, err)
}

func (s *Store) commit(ctx context.Context, c match.Commit) error {
	id := c.State.ID
	sb, err := encodeValue(s.o.JSON, c.State, encodeState)
	if err != nil {
		return err
	}
	// An ongoing match's expiry is renewed only every RefreshEvery: the
	// keys live at least LiveTTL after the last write.
	ttl := s.o.LiveTTL + s.o.RefreshEvery
	rec := ""
	if c.Record != nil {
		rb, err := json.Marshal(c.Record)
		if err != nil {
			return err
		}
		rec, ttl = string(rb), s.o.FinishedTTL
	}
	// 10 before the plies, the events' count, 3 a event, 2 of the lease, 7
	// at the end: one array, never grown.
	args := make([]any, 0, 20+len(c.Plies)+3*(len(c.Events)+len(c.Notices)))
	args = append(args, c.PrevVersion, c.State.Version, sb, c.Deadline, id, s.Channel(id),
		s.o.StreamMaxLen, ttl.Milliseconds(), rec, len(c.Plies))
	const plyArgs = 10 // the plies' JSON follows the ten arguments above
	plies := make([][]byte, len(c.Plies))
	for i := range c.Plies {
		if plies[i], err = encodeValue(s.o.JSON, &c.Plies[i], encodePly); err != nil {
			return err
		}
		args = append(args, plies[i])
	}
	args = append(args, len(c.Events)+len(c.Notices))
	for i := range c.Events {
		e := &c.Events[i]
		b, err := encodeValue(s.o.JSON, e, encodeEvent)
		if err != nil {
			return err
		}
		var pub any = "" // the event is published as it is stored
		if i == len(c.Events)-1 {
			pub = s.withCommit(b, c.State.Version, len(c.Events), sb, plies)
		}
		args = append(args, e.Seq, b, pub)
	}
	for _, e := range c.Notices {
		e.Seq = 0
		b, err := encodeValue(s.o.JSON, &e, encodeEvent)
		if err != nil {
			return err
		}
		args = append(args, 0, b, "")
	}
	if c.Lease != nil {
		args = append(args, c.Lease.String(), c.LeaseUntil)
	} else {
		args = append(args, "", 0)
	}
	sum := ""
	switch {
	case c.State.Status == match.StatusFinished:
	case c.Have > 0 || !s.o.Compat:
		// Live derives the summary from the state; and for versions that
		// read live:sum (Options.Compat), nothing in a summary changes
		// after the first ply but the number of plies, which they read
		// from the plies themselves: only the activity time is written.
		sum = "="
	default:
		b, err := json.Marshal(match.SummaryOf(c.State))
		if err != nil {
			return err
		}
		sum = string(b)
	}
	scriptPublishes := "1"
	if s.sharded() {
		scriptPublishes = "S"
	}
	if s.o.WaitReplicas > 0 {
		scriptPublishes = "0"
	}
	stream := "0"
	if s.o.Compat {
		stream = "1"
	}
	// Then the call's token, publish, what the conflict branch reads, and
	// where a first event goes.
	args = append(args, sum, c.At, s.o.RefreshEvery.Milliseconds(), rand.Text(), scriptPublishes, max(c.Have, 0), stream)
	keys := append([]string{s.stateKey(id), s.pliesKey(id), s.eventsKey(id), s.deadlinesKey(id), s.outboxKey(id), s.leasesKey(id)}, s.indexKeys(c.State)...)
	var publish func(p redis.Pipeliner)
	if s.o.WaitReplicas > 0 {
		// The script did not publish: the group does once replicated.
		evArgs, n, ch := args[plyArgs+len(c.Plies)+1:], len(c.Events)+len(c.Notices), s.Channel(id)
		publish = func(p redis.Pipeliner) {
			for i := range n {
				pub := evArgs[3*i+2]
				if pub == "" {
					pub = evArgs[3*i+1]
				}
				s.publish(ctx, p, ch, pub)
			}
		}
	}
	res, err := s.group.run(ctx, keys, args, publish)
	if err != nil {
		return err
	}
	switch r := res.(type) {
	case int64:
		if r == 0 {
			return match.ErrVersionConflict // the match is gone
		}
		return nil
	case []any:
		st, total, err := decodeLoaded(id, c.Have, r)
		if err != nil {
			return err
		}
		return &match.Conflict{State: st, Total: total}
	}
	return fmt.Errorf("unexpected reply %T", res)
}

// withCommit returns the published form of a commit's last event, which
// carries the commit too, so that every instance following the match
// brings its cache up to date without reading the store: in the binary
// encoding, encodeCommit's; in JSON, lines of
//
//	#VERSION EVENTS (the commit's number of events)
//	EVENT JSON
//	STATE JSON
//	PLY JSON (one line per new ply)
//
// Compact JSON holds no newline, and a bare event (a JSON object) never
// starts with '#'. The hub decodes the event alone unless the cache wants
// the rest.
func (s *Store) withCommit(event []byte, version int64, events int, state []byte, plies [][]byte) []byte {
	if !s.o.JSON {
		return encodeCommit(event, version, events, state, plies)
	}
	out := make([]byte, 0, len(event)+len(state)+32+64*len(plies))
	out = append(out, '#')
	out = strconv.AppendInt(out, version, 10)
	out = append(out, ' ')
	out = strconv.AppendInt(out, int64(events), 10)
	out = append(out, '\n')
	out = append(out, event...)
	out = append(out, '\n')
	out = append(out, state...)
	for _, p := range plies {
		out = append(out, '\n')
		out = append(out, p...)
	}
	return out
}

// eventsScript returns up to ARGV[2] events after seq ARGV[1] (see
// eventsKey): those of a list, or a stream's XRANGE reply (ids "seq-1",
// so a range by sequence number is a range by id) after the word stream.
var eventsScript = redis.NewScript(`
if redis.call('TYPE', KEYS[2]).ok == 'stream' then
  return {'stream', redis.call('XRANGE', KEYS[2], '(' .. ARGV[1] .. '-1', '+', 'COUNT', ARGV[2])}
end
local first = tonumber(redis.call('HGET', KEYS[1], 'f') or '1')
local from = math.max(tonumber(ARGV[1]) + 1 - first, 0)
return redis.call('LRANGE', KEYS[2], from, from + tonumber(ARGV[2]) - 1)
`)

// Events implements match.Store.
func (s *Store) Events(ctx context.Context, id string, after int64, limit int) ([]match.Event, error) {
	if limit <= 0 {
		return nil, nil
	}
	keys := []string{s.stateKey(id), s.eventsKey(id)}
	var res []any
	var err error
	if s.o.WaitReplicas > 0 {
		// Events a replica holds only: a commit that failed its WAIT
		// is in the list, and a failover may lose it (confirm).
		var cmd *redis.Cmd
		if err = s.confirm(ctx, id, func(p redis.Pipeliner) { cmd = eventsScript.Eval(ctx, p, keys, after, limit) }); err == nil {
			res, err = cmd.Slice()
		}
	} else {
		res, err = eventsScript.Run(ctx, s.rdb, keys, after, limit).Slice()
	}
	if err != nil {
		return nil, fmt.Errorf("events of match %s: %w", id, err)
	}
	raw := res
	if len(res) == 2 && res[0] == "stream" {
		entries, _ := res[1].([]any)
		raw = make([]any, len(entries))
		for i, e := range entries { // {id, {field, value, ...}}
			if e, ok := e.([]any); ok && len(e) == 2 {
				if fv, ok := e[1].([]any); ok {
					for j := 0; j+1 < len(fv); j += 2 {
						if fv[j] == "e" {
							raw[i] = fv[j+1]
						}
					}
				}
			}
		}
	}
	evs := make([]match.Event, len(raw))
	for i, r := range raw {
		b, ok := r.(string)
		if !ok {
			return nil, fmt.Errorf("events of match %s: malformed reply %v", id, r)
		}
		if err := decodeEvent([]byte(b), id, &evs[i]); err != nil {
			return nil, fmt.Errorf("events of match %s: event %d after %d: %w", id, i+1, after, err)
		}
	}
	return evs, nil
}

// Due implements match.Store: both ranges of every bucket of groups
// (nil: every group), and the earliest entry of each after now, in one
// pipeline (on a cluster, one round trip to each primary).
func (s *Store) Due(ctx context.Context, groups []int, now int64, limit int) ([]string, []match.Lease, int64, error) {
	bs := s.buckets()
	if groups != nil {
		bs = bs[:0:0]
		for _, g := range groups {
			bs = append(bs, s.groupBuckets(g)...)
		}
	}
	ids := make([]*redis.StringSliceCmd, len(bs))
	leases := make([]*redis.StringSliceCmd, len(bs))
	nexts := make([]*redis.ZSliceCmd, 0, 2*len(bs))
	upTo := func(key string) redis.ZRangeArgs {
		return redis.ZRangeArgs{Key: key, Start: "-inf", Stop: strconv.FormatInt(now, 10), ByScore: true, Count: int64(limit)}
	}
	after := func(key string) redis.ZRangeArgs {
		return redis.ZRangeArgs{Key: key, Start: "(" + strconv.FormatInt(now, 10), Stop: "+inf", ByScore: true, Count: 1}
	}
	if len(bs) == 0 {
		return nil, nil, 0, nil
	}
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, b := range bs {
			ids[i] = p.ZRangeArgs(ctx, upTo(s.bucketKey("deadlines", b)))
			leases[i] = p.ZRangeArgs(ctx, upTo(s.bucketKey("leases", b)))
			nexts = append(nexts, p.ZRangeArgsWithScores(ctx, after(s.bucketKey("deadlines", b))),
				p.ZRangeArgsWithScores(ctx, after(s.bucketKey("leases", b))))
		}
		return nil
	}); err != nil {
		return nil, nil, 0, fmt.Errorf("due deadlines and lapsed leases: %w", err)
	}
	var due []string
	var lapsed []match.Lease
	for i, b := range bs {
		due = append(due, ids[i].Val()...)
		for _, r := range leases[i].Val() {
			l, err := match.ParseLease(r)
			if err != nil {
				s.rdb.ZRem(ctx, s.bucketKey("leases", b), r) // not ours to keep
				continue
			}
			lapsed = append(lapsed, l)
		}
	}
	var next int64
	for _, c := range nexts {
		for _, z := range c.Val() {
			if at := int64(z.Score); next == 0 || at < next {
				next = at
			}
		}
	}
	return due[:min(len(due), limit)], lapsed[:min(len(lapsed), limit)], next, nil
}

// claimScript: a deadline already moved to this very until is this call's
// own claim, run again (a lost reply): it is still won. (Another sweeper's
// claim at the same millisecond would win too; firing a deadline twice is
// harmless, each fire commits against the match's version.)
var claimScript = redis.NewScript(`
local d = redis.call('ZSCORE', KEYS[1], ARGV[1])
if d and tonumber(d) == tonumber(ARGV[3]) then return 1 end
if d and tonumber(d) <= tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
return 0
`)

// Claim implements match.Store: the deadline moves to until in the same
// step that checks it is due, so exactly one sweeper wins it, and it comes
// back by itself if the winner dies before handling it.
func (s *Store) Claim(ctx context.Context, id string, now, until int64) (bool, error) {
	n, err := claimScript.Run(ctx, s.rdb, []string{s.deadlinesKey(id)}, id, now, until).Int()
	return n == 1, err
}

var rescheduleScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v')
if not v or ARGV[3] == '0' then
  redis.call('ZREM', KEYS[2], ARGV[1])
elseif v == ARGV[2] then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
end
return 1
`)

// markAliveScript sets the alive mark to ARGV[1] unless it is later, and
// returns the mark it found.
var markAliveScript = redis.NewScript(`
local prev = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > prev then redis.call('SET', KEYS[1], ARGV[1]) end
return prev
`)

// MarkAlive implements match.Store.
func (s *Store) MarkAlive(ctx context.Context, now int64) (int64, error) {
	return markAliveScript.Run(ctx, s.rdb, []string{s.o.Prefix + "alive"}, now).Int64()
}

// Reschedule implements match.Store.
func (s *Store) Reschedule(ctx context.Context, id string, version, deadline int64) error {
	return rescheduleScript.Run(ctx, s.rdb, []string{s.stateKey(id), s.deadlinesKey(id)}, id, version, deadline).Err()
}

// Live implements match.Store: the most recent of every bucket's index,
// merged; with ids, those matches alone.
func (s *Store) Live(ctx context.Context, playerID string, limit int, now int64, ids ...string) ([]match.Summary, error) {
	key := func(b int) string {
		if playerID != "" {
			return s.playerKey(playerID, b)
		}
		return s.bucketKey("live", b)
	}
	if len(ids) > 0 {
		return s.summaries(ctx, playerID, slices.Compact(slices.Sorted(slices.Values(ids))), key)
	}
	bs := s.buckets()
	// An entry's activity time is renewed every RefreshEvery, and its
	// keys live LiveTTL+RefreshEvery from then.
	staleMS := now - (s.o.LiveTTL + s.o.RefreshEvery).Milliseconds()
	stale := strconv.FormatInt(staleMS, 10)
	olds := make([]*redis.StringSliceCmd, len(bs))
	recent := make([]*redis.ZSliceCmd, len(bs))
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, b := range bs {
			if playerID != "" {
				// A player's index holds their few live matches: one
				// read of a bucket's whole index, split below (the lobby
				// asks when a player queues again after a game, over
				// every bucket).
				recent[i] = p.ZRangeWithScores(ctx, key(b), 0, -1)
				continue
			}
			olds[i] = p.ZRangeArgs(ctx, redis.ZRangeArgs{Key: key(b), Start: "-inf", Stop: stale, ByScore: true, Count: 100})
			recent[i] = p.ZRevRangeByScoreWithScores(ctx, key(b), &redis.ZRangeBy{Min: "(" + stale, Max: "+inf", Count: int64(limit)})
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("live matches: %w", err)
	}
	var all []redis.Z
	for i, b := range bs {
		if playerID != "" {
			var old []string
			for _, z := range recent[i].Val() {
				if m, _ := z.Member.(string); z.Score <= float64(staleMS) {
					old = append(old, m)
				} else {
					all = append(all, z)
				}
			}
			if len(old) > 0 {
				s.rdb.ZRem(ctx, key(b), toAny(old)...)
			}
			continue
		}
		if old := olds[i].Val(); len(old) > 0 {
			// Matches untouched longer than their keys live are gone.
			s.rdb.ZRem(ctx, key(b), toAny(old)...)
			if playerID == "" {
				s.rdb.HDel(ctx, s.bucketKey("live:sum", b), old...)
			}
		}
		all = append(all, recent[i].Val()...)
	}
	slices.SortStableFunc(all, func(a, b redis.Z) int { return cmp.Compare(b.Score, a.Score) })
	all = all[:min(len(all), limit)]
	ids = make([]string, len(all))
	for i, z := range all {
		ids[i], _ = z.Member.(string)
	}
	return s.summaries(ctx, playerID, ids, key)
}

// summaries reads the summaries of the live matches among ids, in their
// order (where playerID holds a seat when set), and drops the ended ones
// from the index key names (by bucket).
func (s *Store) summaries(ctx context.Context, playerID string, ids []string, key func(b int) string) ([]match.Summary, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	// Each summary is derived from the match's state, its number of plies
	// and its first ply's time (the start).
	var (
		states        = make([]*redis.StringCmd, len(ids))
		counts        = make([]*redis.IntCmd, len(ids))
		firsts        = make([]*redis.StringCmd, len(ids))
		ended, broken []string
	)
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			states[i] = p.HGet(ctx, s.stateKey(id), "s")
			counts[i] = p.LLen(ctx, s.pliesKey(id))
			firsts[i] = p.LIndex(ctx, s.pliesKey(id), 0)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("live matches: %w", err)
	}
	out := make([]match.Summary, 0, len(ids))
	for i, id := range ids {
		b, err := states[i].Bytes()
		if errors.Is(err, redis.Nil) {
			ended = append(ended, id) // expired
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("live match %s: %w", id, err)
		}
		st := &match.State{}
		if err := decodeState(b, st); err != nil || st.Check(id) != nil {
			broken = append(broken, id)
			continue
		}
		if st.Status == match.StatusFinished {
			ended = append(ended, id)
			continue
		}
		if playerID != "" && !slices.Contains(st.PlayerIDs(), playerID) {
			continue // named by the caller, not seated
		}
		sum := match.SummaryOf(st)
		sum.Plies = int(counts[i].Val())
		var first match.PlyRecord
		if f, err := firsts[i].Bytes(); err == nil && decodePly(f, &first) == nil {
			sum.StartedAt = first.At
		}
		out = append(out, sum)
	}
	for _, id := range ended {
		b := bucketOfID(id)
		s.rdb.ZRem(ctx, key(b), id)
		if playerID == "" {
			s.rdb.HDel(ctx, s.bucketKey("live:sum", b), id) // a summary of Options.Compat
		}
	}
	if len(broken) > 0 {
		return nil, fmt.Errorf("live matches: undecodable state of %v", broken)
	}
	return out, nil
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
