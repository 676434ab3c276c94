// Package signin tells a service that takes the lobby's tokens whether the
// sign-in a token belongs to (its refresh family, auth.Principal.Family)
// has ended: signed out (on one device, on every device, or with a
// deleted account) or revoked (a refresh token used twice). A token lives
// on after its sign-in ends, up to its lifetime; a service that asks here
// refuses it at once, as the lobby does.
//
// The lobby keeps each sign-in in Redis, as the hash Key(prefix, family)
// (services/lobby's sessions package), whose "revoked" field is "out"
// once signed out and "1" once revoked. A service reads the same keys: it
// needs the lobby's Redis and key prefix.
package signin

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/platform/auth"
)

// Key is the Redis hash of a sign-in (refresh family) under the lobby's
// key prefix.
func Key(prefix, family string) string { return prefix + "refresh:" + family }

// The "revoked" field's values.
const (
	Field     = "revoked"
	SignedOut = "out"
	Revoked   = "1"
)

// Checker answers auth.SignIns from the lobby's keys. A sign-in found live
// is not read again for a while (Cache): a token of a sign-in that ends
// meanwhile is refused that much later, and a player's calls cost one
// Redis read a while rather than one each.
type Checker struct {
	rdb    redis.UniversalClient
	prefix string
	cache  time.Duration

	mu   sync.Mutex
	live map[string]time.Time // family -> when it was last read live
}

// maxCached bounds the live sign-ins remembered; past it the memory
// starts again.
const maxCached = 100_000

// New returns a Checker of the sign-ins under the lobby's key prefix in
// rdb; cache is how long a live answer is reused (0: never).
func New(rdb redis.UniversalClient, prefix string, cache time.Duration) *Checker {
	return &Checker{rdb: rdb, prefix: prefix, cache: cache, live: map[string]time.Time{}}
}

// Check returns auth.ErrSignedOut or auth.ErrSignInRevoked for a sign-in
// that ended, nil for one that stands (or that the lobby no longer keeps:
// its refresh tokens have expired, and its bearer tokens long before).
func (c *Checker) Check(ctx context.Context, family string) error {
	now := time.Now()
	if c.cache > 0 {
		c.mu.Lock()
		at, ok := c.live[family]
		c.mu.Unlock()
		if ok && now.Sub(at) < c.cache {
			return nil
		}
	}
	v, err := c.rdb.HGet(ctx, Key(c.prefix, family), Field).Result()
	switch {
	case errors.Is(err, redis.Nil):
	case err != nil:
		return fmt.Errorf("read sign-in: %w", err)
	case v == SignedOut:
		c.forget(family)
		return auth.ErrSignedOut
	case v == Revoked:
		c.forget(family)
		return auth.ErrSignInRevoked
	}
	if c.cache > 0 {
		c.mu.Lock()
		if len(c.live) >= maxCached {
			c.live = map[string]time.Time{}
		}
		c.live[family] = now
		c.mu.Unlock()
	}
	return nil
}

func (c *Checker) forget(family string) {
	c.mu.Lock()
	delete(c.live, family)
	c.mu.Unlock()
}
