// Package redisconn opens the services' Redis client from a URL: one
// server, or a primary and its replicas watched by Redis Sentinel.
//
//   - redis://[user:password@]host:port/db (rediss:// for TLS): one server,
//     as redis.ParseURL reads it;
//   - the same with master_name=NAME in the query: host:port (and every
//     addr=host:port parameter) are Sentinels, which name the primary of
//     NAME; the client follows a failover (redis.ParseFailoverURL), e.g.
//     redis://sentinel-0:26379/0?master_name=tabuleiro&addr=sentinel-1:26379&addr=sentinel-2:26379
//
// Redis Cluster is not supported: the match service's Lua scripts and
// transactions touch a match's state, its event stream, the deadline index
// and the outbox together, keys that fall in different hash slots.
package redisconn

import (
	"context"
	"fmt"
	"net/url"

	"github.com/redis/go-redis/v9"
)

// Open returns the client for rawURL (see the package comment). It does
// not connect: the first command does.
func Open(rawURL string) (*redis.Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", redactErr(err))
	}
	if u.Query().Has("master_name") {
		fo, err := redis.ParseFailoverURL(rawURL)
		if err != nil {
			return nil, fmt.Errorf("redis sentinel url: %w", redactErr(err))
		}
		if fo.MasterName == "" {
			return nil, fmt.Errorf("redis sentinel url: master_name is empty")
		}
		return redis.NewFailoverClient(fo), nil
	}
	if u.Query().Has("addr") {
		return nil, fmt.Errorf("redis url: addr= lists Sentinels and needs master_name=; Redis Cluster is not supported")
	}
	o, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", redactErr(err))
	}
	return redis.NewClient(o), nil
}

// Ping is a health check: the client's Redis (through Sentinel, the
// current primary) answers PING.
func Ping(rdb redis.UniversalClient) func(context.Context) error {
	return func(ctx context.Context) error { return rdb.Ping(ctx).Err() }
}

// redactErr drops a *url.Error's URL, which may hold a password.
func redactErr(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
