package ratelimit

import (
	"context"
	"crypto/rand"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc/codes"

	"tabuleiro.dev/pkg/platform/reason"
)

// Streams caps the concurrent streams of one key (a player) across every
// instance: each open stream is a member "instance/id" of a set per key,
// and each instance holding streams keeps one heartbeat, its entry in a
// sorted set of instances scored by when it lapses, renewed every TTL/3
// (one Redis call per instance, whatever its number of streams). A
// stream counts while its instance's heartbeat has not lapsed: the
// streams of an instance that died stop counting TTL after its last
// heartbeat. Their members are purged by the Acquire that finds the key
// at its cap (the only one that needs them gone). A nil *Streams allows
// everything.
//
// The keys are split into StreamBuckets buckets by a hash of the key, each
// its own hash tag with its own heartbeats ("streams:{<what>:<bucket>}:<key>"
// and "streams:{<what>:<bucket>}|hosts"), so that on Redis Cluster the
// caps spread over the primaries: a stream's acquire touches its bucket's
// slot, and an instance's beat renews its heartbeat in every bucket.
type Streams struct {
	rdb  redis.UniversalClient
	base string        // prefix + "streams:{" + what
	Max  int           // streams per key
	TTL  time.Duration // default 30 s
	// KeyTTL is how long a key's set outlives its last change; the
	// instance keeps the sets of its open streams alive every KeyTTL/2.
	// Default 1 h.
	KeyTTL time.Duration
	What   string // "streams", for the refusal's reason
	Now    func() time.Time
	// Instance names this instance's heartbeat (random by default).
	Instance string

	mu   sync.Mutex
	open map[string]*keyStreams // this instance's open streams by key
	// lost is the members by key that may sit in Redis with no stream
	// behind them: an acquire whose reply was lost (the script may have
	// run), a release whose removal failed. Removed at once if Redis
	// answers, else by the next heartbeat: until then they count.
	lost map[string][]string
	stop chan struct{} // closed to end the running heartbeat; nil when none runs
	beat chan struct{} // closed when the running heartbeat has ended
}

// keyStreams is this instance's open streams of one key.
type keyStreams struct {
	n       int
	touched int64 // unix ms the key's expiry was last set
}

// NewStreams returns a cap of max concurrent streams per key (0: no cap).
func NewStreams(rdb redis.UniversalClient, prefix, what string, maxStreams int) *Streams {
	return &Streams{
		rdb: rdb, base: prefix + "streams:{" + what,
		Max: maxStreams, TTL: 30 * time.Second, KeyTTL: time.Hour, What: what, Now: time.Now, Instance: rand.Text(),
	}
}

// StreamBuckets is the number of buckets a cap's keys are split into: each
// beat renews an instance's heartbeat in each.
const StreamBuckets = 32

// Keys returns the Redis keys of key's streams: its set, and the
// heartbeats of its bucket's instances.
func (s *Streams) Keys(key string) (set, hosts string) {
	h := fnv.New32a()
	h.Write([]byte(key))
	tag := s.base + ":" + strconv.Itoa(int(h.Sum32()%StreamBuckets)) + "}"
	return tag + ":" + key, tag + "|hosts"
}

// hostsKeys returns every bucket's heartbeats key.
func (s *Streams) hostsKeys() []string {
	out := make([]string, StreamBuckets)
	for b := range out {
		out[b] = s.base + ":" + strconv.Itoa(b) + "}|hosts"
	}
	return out
}

// heartbeatLua defines heartbeat(member, lapse) for the scripts below
// (KEYS[2] the hosts set): when the heartbeat of the member's instance (the
// part before "/") lapses, in ms, 0 if it has none; lapse caches it per
// instance.
const heartbeatLua = `
local function heartbeat(m, lapse)
  local slash = string.find(m, '/', 1, true)
  local inst = slash and string.sub(m, 1, slash - 1) or ''
  local at = lapse[inst]
  if at == nil then
    at = tonumber(redis.call('ZSCORE', KEYS[2], inst) or '0')
    lapse[inst] = at
  end
  return at
end
`

// acquireScript: KEYS set, hosts. ARGV now ms, heartbeat until ms, max,
// member, key ttl ms, instance. The caller's instance beats first (it is
// alive); at the cap, members of instances whose heartbeat lapsed are
// removed before the count is taken again. Returns 1, or minus the ms
// until the soonest heartbeat among the key's instances lapses.
var acquireScript = redis.NewScript(heartbeatLua + `
local now = tonumber(ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[6])
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[3]) then
  local lapse = {}
  local soonest = nil
  for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    local at = heartbeat(m, lapse)
    if at <= now then
      redis.call('ZREM', KEYS[1], m)
      n = n - 1
    elseif soonest == nil or at < soonest then
      soonest = at
    end
  end
  if n >= tonumber(ARGV[3]) then return -math.max(soonest - now, 1) end
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`)

// countScript: KEYS set, hosts. ARGV now ms. The members whose instance's
// heartbeat has not lapsed.
var countScript = redis.NewScript(heartbeatLua + `
local now = tonumber(ARGV[1])
local lapse = {}
local n = 0
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if heartbeat(m, lapse) > now then n = n + 1 end
end
return n
`)

func (s *Streams) ttl() time.Duration {
	if s.TTL <= 0 {
		return 30 * time.Second
	}
	return s.TTL
}

func (s *Streams) keyTTL() time.Duration {
	if s.KeyTTL <= 0 {
		return time.Hour
	}
	return s.KeyTTL
}

// Acquire opens one stream for key, or refuses with RESOURCE_EXHAUSTED
// when key holds Max already. release ends it (call it once, when the
// stream ends); until then it counts while this instance's heartbeat
// lives.
func (s *Streams) Acquire(ctx context.Context, key string) (release func(), err error) {
	if s == nil || s.Max <= 0 || key == "" {
		return func() {}, nil
	}
	k, hosts := s.Keys(key)
	member := s.Instance + "/" + rand.Text()
	now := s.Now().UnixMilli()
	// Counted as open before the script runs, so that the heartbeat runs
	// from the moment the member may exist.
	s.hold(k, now)
	res, err := acquireScript.Run(ctx, s.rdb, []string{k, hosts},
		now, now+s.ttl().Milliseconds(), s.Max, member, s.keyTTL().Milliseconds(), s.Instance).Int64()
	if err != nil || res <= 0 {
		s.drop(k)
		if err != nil {
			s.remove(ctx, k, member)
			return nil, reason.Error(codes.Unavailable, reason.Unavailable, fmt.Sprintf("count open %s: %v", s.What, err), nil)
		}
		return nil, Exhausted(fmt.Sprintf("too many open %s (at most %d at once); close one", s.What, s.Max), time.Duration(-res)*time.Millisecond)
	}
	s.mu.Lock()
	if ks := s.open[k]; ks != nil {
		ks.touched = now
	}
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.remove(ctx, k, member)
			s.drop(k)
		})
	}, nil
}

// remove takes member out of key k's set, or leaves it to the next
// heartbeat if Redis does not answer.
func (s *Streams) remove(ctx context.Context, k, member string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.ttl()/3)
	defer cancel()
	if s.rdb.ZRem(ctx, k, member).Err() == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost == nil {
		s.lost = map[string][]string{}
	}
	s.lost[k] = append(s.lost[k], member)
}

// hold counts one more open stream of key k on this instance, and starts
// the heartbeat if none runs.
func (s *Streams) hold(k string, now int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open == nil {
		s.open = map[string]*keyStreams{}
	}
	ks := s.open[k]
	if ks == nil {
		ks = &keyStreams{touched: now} // the acquire script sets the key's expiry
		s.open[k] = ks
	}
	ks.n++
	if s.stop == nil {
		// A heartbeat that drop has just told to end may beat once more:
		// harmless.
		s.stop, s.beat = make(chan struct{}), make(chan struct{})
		go s.heartbeat(s.stop, s.beat)
	}
}

// drop counts one stream of key k less, and ends the heartbeat with the
// instance's last stream.
func (s *Streams) drop(k string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ks := s.open[k]; ks != nil {
		if ks.n--; ks.n <= 0 {
			delete(s.open, k)
		}
	}
	if len(s.open) == 0 && s.stop != nil {
		close(s.stop)
		s.stop = nil
	}
}

// heartbeat beats every TTL/3 until stop is closed.
func (s *Streams) heartbeat(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(s.ttl() / 3)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.ttl()/3)
		_ = s.Beat(ctx)
		cancel()
	}
}

// Beat renews this instance's heartbeat now, in one pipeline with the
// expiry of the sets of its open streams that was last set KeyTTL/2 ago
// or more and the removal of its lost members (see lost), and forgets
// the heartbeats that lapsed. The heartbeat calls it every TTL/3 while
// the instance holds streams; exported for tests.
func (s *Streams) Beat(ctx context.Context) error {
	ttl, keyTTL := s.ttl(), s.keyTTL()
	now := s.Now().UnixMilli()
	var stale []string
	s.mu.Lock()
	for k, ks := range s.open {
		if now-ks.touched >= keyTTL.Milliseconds()/2 {
			ks.touched = now
			stale = append(stale, k)
		}
	}
	lost := s.lost
	s.lost = nil
	s.mu.Unlock()
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, hosts := range s.hostsKeys() {
			p.ZAdd(ctx, hosts, redis.Z{Score: float64(now + ttl.Milliseconds()), Member: s.Instance})
			p.ZRemRangeByScore(ctx, hosts, "-inf", fmt.Sprint(now))
			p.PExpire(ctx, hosts, 2*ttl)
		}
		for _, k := range stale {
			p.PExpire(ctx, k, keyTTL)
		}
		for k, members := range lost {
			p.ZRem(ctx, k, members)
		}
		return nil
	})
	if err != nil {
		s.mu.Lock()
		for k, members := range lost {
			if s.lost == nil {
				s.lost = map[string][]string{}
			}
			s.lost[k] = append(s.lost[k], members...)
		}
		s.mu.Unlock()
		return fmt.Errorf("%s heartbeat: %w", s.What, err)
	}
	return nil
}

// Stop ends the heartbeat at once (a clean shutdown, or a test that
// abandons an instance): this instance's streams stop counting when it
// lapses. Streams acquired later start it again.
func (s *Streams) Stop() {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.stop != nil {
		close(s.stop)
		s.stop = nil
	}
	beat := s.beat
	s.mu.Unlock()
	if beat != nil {
		<-beat
	}
}

// Open returns how many streams key holds now, on every instance whose
// heartbeat lives (tests, metrics).
func (s *Streams) Open(ctx context.Context, key string) (int, error) {
	k, hosts := s.Keys(key)
	n, err := countScript.Run(ctx, s.rdb, []string{k, hosts}, s.Now().UnixMilli()).Int()
	return n, err
}
