package accounts

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Guesses limits wrong passwords, in Redis so that every lobby instance
// counts them together:
//
//   - per (username, client address): PerPair wrong guesses in Window,
//     then that address is refused for that username until the window
//     passes. There is no limit per username alone: an address that has
//     not guessed wrong (the owner's) is always checked, so nobody
//     else's guesses lock the owner out;
//   - per client address: PerAddress wrong guesses in Window over every
//     username, known or not (one address trying many accounts).
//
// An attempt is counted before its password is checked (concurrent
// guesses cannot slip past) and given back when it was right.
type Guesses struct {
	rdb    redis.UniversalClient
	prefix string
	cfg    GuessLimits
}

// GuessLimits are the limits of Guesses.
type GuessLimits struct {
	PerPair, PerAddress int
	Window              time.Duration
}

// DefaultGuessLimits: 5 per username and address, 30 per address, in 15
// minutes.
func DefaultGuessLimits() GuessLimits {
	return GuessLimits{PerPair: 5, PerAddress: 30, Window: 15 * time.Minute}
}

// NewGuesses returns the limiter; zero limits take the defaults.
func NewGuesses(rdb redis.UniversalClient, prefix string, cfg GuessLimits) *Guesses {
	def := DefaultGuessLimits()
	if cfg.PerPair == 0 {
		cfg.PerPair = def.PerPair
	}
	if cfg.PerAddress == 0 {
		cfg.PerAddress = def.PerAddress
	}
	if cfg.Window == 0 {
		cfg.Window = def.Window
	}
	return &Guesses{rdb: rdb, prefix: prefix, cfg: cfg}
}

// Every key shares one hash tag, so that the script's keys are in one
// slot of a Redis Cluster.
func (g *Guesses) keys(key, addr string) []string {
	return []string{
		g.prefix + "{signin}:pair:" + key + "\x00" + addr,
		g.prefix + "{signin}:addr:" + addr,
	}
}

// take: KEYS pair and address counters; ARGV window ms, pair and
// address limits. Returns 0 (counted) or the counter that refused: 1 the
// pair's, 2 the address's.
var take = redis.NewScript(`
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[2]) then return 1 end
if tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[3]) then return 2 end
for k = 1, 2 do
  if redis.call('INCR', KEYS[k]) == 1 then redis.call('PEXPIRE', KEYS[k], ARGV[1]) end
end
return 0
`)

// Refused is a guess refused by a limit: Why for a person, RetryAfter
// until the limit's window passes.
type Refused struct {
	Why        string
	RetryAfter time.Duration
}

// Take counts an attempt of addr at the username key; a non-nil Refused
// says it may not be checked.
func (g *Guesses) Take(ctx context.Context, key, addr string) (*Refused, error) {
	keys := g.keys(key, addr)
	which, err := take.Run(ctx, g.rdb, keys, g.cfg.Window.Milliseconds(), g.cfg.PerPair, g.cfg.PerAddress).Int()
	if err != nil {
		return nil, fmt.Errorf("count sign-in attempts: %w", err)
	}
	if which == 0 {
		return nil, nil
	}
	// The refusing counter's window: when it expires, guesses are checked
	// again (a second at least, and the window when Redis cannot say).
	retry := g.cfg.Window
	if ttl, err := g.rdb.PTTL(ctx, keys[which-1]).Result(); err == nil && ttl > 0 {
		retry = max(ttl, time.Second)
	}
	if which == 1 {
		return &Refused{Why: "too many wrong passwords for this account from your address", RetryAfter: retry}, nil
	}
	return &Refused{Why: "too many wrong passwords from your address", RetryAfter: retry}, nil
}

// Right gives back a right attempt: the pair's count is cleared, the
// address's loses this one.
func (g *Guesses) Right(ctx context.Context, key, addr string) {
	k := g.keys(key, addr)
	ctx = context.WithoutCancel(ctx)
	g.rdb.Del(ctx, k[0])
	g.rdb.Decr(ctx, k[1])
}
