// Package redisconn opens the services' Redis client from a URL, the
// client's kind chosen by the URL's scheme:
//
//   - redis://[user:password@]host:port/db (rediss:// for TLS): one server,
//     as redis.ParseURL reads it;
//   - redis-sentinel://[user:password@]host:port,host:port/db?master_name=NAME
//     (rediss-sentinel:// for TLS): the hosts are Sentinels, which name the
//     primary of NAME; the client follows a failover
//     (redis.ParseFailoverURL). The older form, redis://host:port/db with
//     master_name=NAME and addr=host:port parameters, means the same;
//   - redis-cluster://[user:password@]host:port,host:port (rediss-cluster://
//     for TLS): a Redis Cluster (or Valkey cluster), the hosts any of its
//     nodes; the client learns the slot map from them and follows MOVED and
//     ASK redirections and failovers (redis.ParseClusterURL). A cluster has
//     no database number.
//
// Query parameters (timeouts, pool sizes...) are go-redis's, for every
// form. On a cluster, every multi-key command and script the services run
// touches keys of one hash slot: a match's keys share the hash tag
// {match-id}, and the indexes shared by matches are buckets whose hash tag
// puts each in the slot of the matches it indexes (see the match service's
// redisstore).
package redisconn

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Open returns the client for rawURL (see the package comment): a
// *redis.Client for one server or Sentinel, a *redis.ClusterClient for a
// cluster. It does not connect: the first command does.
func Open(rawURL string) (redis.UniversalClient, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", redactErr(err))
	}
	switch u.Scheme {
	case "redis-cluster", "rediss-cluster":
		if u.Path != "" && u.Path != "/" {
			return nil, fmt.Errorf("redis cluster url: a cluster has no database number (path %q)", u.Path)
		}
		o, err := redis.ParseClusterURL(plainURL(u, "-cluster"))
		if err != nil {
			return nil, fmt.Errorf("redis cluster url: %w", redactErr(err))
		}
		return redis.NewClusterClient(o), nil
	case "redis-sentinel", "rediss-sentinel":
		if !u.Query().Has("master_name") {
			return nil, fmt.Errorf("redis sentinel url: master_name= (the monitored primary's name) is missing")
		}
		return openFailover(plainURL(u, "-sentinel"))
	case "redis", "rediss":
	default:
		return nil, fmt.Errorf("redis url: scheme %q is none of redis, rediss, redis-sentinel, rediss-sentinel, redis-cluster, rediss-cluster", u.Scheme)
	}
	if u.Query().Has("master_name") {
		return openFailover(rawURL)
	}
	if u.Query().Has("addr") {
		return nil, fmt.Errorf("redis url: addr= lists Sentinels and needs master_name= (or use redis-cluster://host1,host2 for a cluster)")
	}
	if strings.Contains(u.Host, ",") {
		return nil, fmt.Errorf("redis url: several hosts need redis-sentinel:// or redis-cluster://")
	}
	o, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", redactErr(err))
	}
	return redis.NewClient(o), nil
}

func openFailover(rawURL string) (redis.UniversalClient, error) {
	fo, err := redis.ParseFailoverURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redis sentinel url: %w", redactErr(err))
	}
	if fo.MasterName == "" {
		return nil, fmt.Errorf("redis sentinel url: master_name is empty")
	}
	return redis.NewFailoverClient(fo), nil
}

// plainURL rewrites a URL of scheme redis-KIND://h1,h2,.../path?q (or
// rediss-KIND) into go-redis's form redis://h1/path?q&addr=h2&...
func plainURL(u *url.URL, kind string) string {
	c := *u
	c.Scheme = strings.TrimSuffix(u.Scheme, kind)
	hosts := strings.Split(u.Host, ",")
	c.Host = hosts[0]
	q := u.Query()
	for _, h := range hosts[1:] {
		if h != "" {
			q.Add("addr", h)
		}
	}
	c.RawQuery = q.Encode()
	return c.String()
}

// Ping is a health check: the client's Redis (through Sentinel, the
// current primary; on a cluster, every primary) answers PING.
func Ping(rdb redis.UniversalClient) func(context.Context) error {
	if c, ok := rdb.(*redis.ClusterClient); ok {
		return func(ctx context.Context) error {
			return c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return m.Ping(ctx).Err() })
		}
	}
	return func(ctx context.Context) error { return rdb.Ping(ctx).Err() }
}

// redactErr drops a *url.Error's URL, which may hold a password.
func redactErr(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
