package redisconn

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/metric"

	"tabuleiro.dev/pkg/platform/telemetry"
)

// Observe exports what the alerts on Redis need (deploy/prometheus/rules.yml),
// read each time metrics are collected: tabuleiro.dependency.up for
// "redis" (the primary answers PING) and, behind Sentinel (rawURL with
// master_name), "redis-sentinel-quorum" (SENTINEL CKQUORUM: enough
// Sentinels agree to fail over); and tabuleiro.redis.replicas, the
// replicas the primary reports connected (INFO replication). The
// service's other dependencies (its PostgreSQL) go in more.
func Observe(rdb *redis.Client, rawURL string, more ...telemetry.Dependency) error {
	deps := append([]telemetry.Dependency{{Name: "redis", Check: Ping(rdb)}}, more...)
	if q := SentinelQuorum(rawURL); q != nil {
		deps = append(deps, telemetry.Dependency{Name: "redis-sentinel-quorum", Check: q})
	}
	if err := telemetry.ObserveDependencies(deps...); err != nil {
		return err
	}
	meter := telemetry.Meter("tabuleiro.dev/pkg/platform/redisconn")
	_, err := meter.Int64ObservableGauge("tabuleiro.redis.replicas",
		metric.WithDescription("Replicas the Redis primary reports connected (INFO replication connected_slaves)."), metric.WithUnit("{replica}"),
		metric.WithInt64Callback(func(ctx context.Context, o metric.Int64Observer) error {
			ctx, cancel := context.WithTimeout(telemetry.Untraced(ctx), 2*time.Second)
			defer cancel()
			n, err := Replicas(ctx, rdb)
			if err == nil {
				o.Observe(n)
			}
			return nil
		}))
	return err
}

// Replicas is the number of replicas the primary rdb reaches reports
// connected.
func Replicas(ctx context.Context, rdb *redis.Client) (int64, error) {
	info, err := rdb.Info(ctx, "replication").Result()
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "connected_slaves:"); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	return 0, errors.New("INFO replication has no connected_slaves")
}

// SentinelQuorum returns a check that asks the Sentinels of rawURL, in
// turn, whether they can fail the primary over (SENTINEL CKQUORUM): nil
// when one answers OK. It returns nil for a URL without Sentinels.
func SentinelQuorum(rawURL string) func(ctx context.Context) error {
	u, err := url.Parse(rawURL)
	if err != nil || !u.Query().Has("master_name") {
		return nil
	}
	fo, err := redis.ParseFailoverURL(rawURL)
	if err != nil {
		return nil
	}
	return func(ctx context.Context) error {
		var errs []error
		for _, addr := range fo.SentinelAddrs {
			sc := redis.NewSentinelClient(&redis.Options{Addr: addr, Username: fo.SentinelUsername, Password: fo.SentinelPassword,
				TLSConfig: fo.TLSConfig, DialTimeout: time.Second, MaxRetries: -1})
			res, err := sc.CkQuorum(ctx, fo.MasterName).Result()
			_ = sc.Close()
			if err == nil && strings.HasPrefix(res, "OK") {
				return nil
			}
			errs = append(errs, fmt.Errorf("sentinel %s: %v", addr, err))
		}
		return errors.Join(errs...)
	}
}
