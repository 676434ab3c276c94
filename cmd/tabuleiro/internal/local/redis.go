package local

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// embeddedRedis is miniredis, the Redis-protocol server the services' own
// Redis code talks to in the one-process mode. TTLs follow the wall clock
// (ClockTTL), as on a real Redis: without it miniredis expires keys only
// when told to.
type embeddedRedis struct {
	m    *miniredis.Miniredis
	path string // the snapshot file; "" keeps nothing
	// keys lists the keys to save; nil means m.Keys. Tests list keys
	// that are gone by the time they are read, as the services' writes
	// between listing and reading make them.
	keys func() []string
	// kick asks SaveEvery for a save now. Its one-slot buffer coalesces
	// requests: while a save runs, any number of requests make exactly
	// one more.
	kick chan struct{}
	// c reads what miniredis's Go API would hand out unlocked: its
	// SortedSet returns the live map, which the services change while a
	// save reads it.
	c *redis.Client
}

// startRedis serves an embedded Redis on a loopback port, first loading
// the snapshot at path when there is one.
func startRedis(path string) (*embeddedRedis, error) {
	m := miniredis.NewMiniRedis()
	m.ClockTTL(true)
	if err := m.StartAddr("127.0.0.1:0"); err != nil {
		return nil, fmt.Errorf("start embedded redis: %w", err)
	}
	r := &embeddedRedis{m: m, path: path, kick: make(chan struct{}, 1), c: redis.NewClient(&redis.Options{Addr: m.Addr()})}
	if path != "" {
		if err := r.load(); err != nil {
			_ = r.c.Close()
			m.Close()
			return nil, err
		}
	}
	return r, nil
}

// URL is the redis:// URL of the server.
func (r *embeddedRedis) URL() string { return "redis://" + r.m.Addr() + "/0" }

// SaveEvery saves the snapshot every interval, and whenever RequestSave
// asks, until ctx ends, so that a crash loses at most that much of a game
// in progress (a clean exit saves everything in Close). One save runs at
// a time.
func (r *embeddedRedis) SaveEvery(ctx context.Context, interval time.Duration, onErr func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-r.kick:
		}
		if err := r.save(); err != nil {
			onErr(err)
		}
	}
}

// RequestSave asks SaveEvery for a save as soon as the one running (if
// any) is done; it never blocks.
func (r *embeddedRedis) RequestSave() {
	select {
	case r.kick <- struct{}{}:
	default: // a save is already due: it will see this change too
	}
}

// SaveOnPublish requests a save (RequestSave) after every message
// published on a channel matching the glob pattern, until ctx ends; the
// subscription is in place when it returns. The returned wait blocks until
// the subscriber has stopped.
func (r *embeddedRedis) SaveOnPublish(ctx context.Context, pattern string) (wait func(), err error) {
	c := redis.NewClient(&redis.Options{Addr: r.m.Addr()})
	ps := c.PSubscribe(ctx, pattern)
	if _, err := ps.Receive(ctx); err != nil { // the subscription's confirmation
		_ = ps.Close()
		_ = c.Close()
		return nil, fmt.Errorf("subscribe to %s: %w", pattern, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		msgs := ps.Channel()
		for {
			select {
			case <-ctx.Done():
				_ = ps.Close()
				_ = c.Close()
				return
			case _, ok := <-msgs:
				if !ok {
					return
				}
				r.RequestSave()
			}
		}
	}()
	return func() { <-done }, nil
}

// globQuote escapes the characters special in a Redis glob pattern.
func globQuote(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`).Replace(s)
}

// Close saves the snapshot and stops the server.
func (r *embeddedRedis) Close() error {
	err := r.save()
	_ = r.c.Close()
	r.m.Close()
	return err
}

// snapshotKey is one key of a snapshot. Stream consumer groups and hash
// field TTLs are not kept (the services rebuild their consumer groups at
// start-up).
type snapshotKey struct {
	Key    string             `json:"key"`
	Type   string             `json:"type"`
	TTLMS  int64              `json:"ttl_ms,omitempty"`
	String string             `json:"string,omitempty"`
	List   []string           `json:"list,omitempty"`
	Set    []string           `json:"set,omitempty"`
	Hash   map[string]string  `json:"hash,omitempty"`
	ZSet   map[string]float64 `json:"zset,omitempty"`
	Stream []streamEntry      `json:"stream,omitempty"`
}

type streamEntry struct {
	ID     string   `json:"id"`
	Values []string `json:"values"`
}

// save writes every key of database 0 to the snapshot file, one JSON
// object a line, through a temporary file so that a crash never leaves
// half a snapshot.
func (r *embeddedRedis) save() error {
	if r.path == "" {
		return nil
	}
	tmp := r.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("save redis snapshot: %w", err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	list := r.m.Keys
	if r.keys != nil {
		list = r.keys
	}
	keys := list()
	slices.Sort(keys)
	for _, k := range keys {
		sk, err := r.dump(k)
		if errors.Is(err, errVanished) {
			continue // deleted (or expired) since the listing: nothing to keep
		}
		if err != nil {
			_ = f.Close()
			return fmt.Errorf("save redis key %q: %w", k, err)
		}
		if err := enc.Encode(sk); err != nil {
			_ = f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, r.path)
}

// errVanished: the key was deleted between the listing and its reading.
// The services write while a save runs, so this is normal: save skips it.
var errVanished = errors.New("key vanished")

// dump reads key k; errVanished when it no longer exists.
func (r *embeddedRedis) dump(k string) (snapshotKey, error) {
	if !r.m.Exists(k) {
		return snapshotKey{}, errVanished
	}
	sk := snapshotKey{Key: k, Type: r.m.Type(k), TTLMS: r.m.TTL(k).Milliseconds()}
	var err error
	switch sk.Type {
	case "string":
		sk.String, err = r.m.Get(k)
	case "list":
		sk.List, err = r.m.List(k)
	case "set":
		sk.Set, err = r.m.Members(k)
	case "hash":
		var fields []string
		fields, err = r.m.HKeys(k)
		sk.Hash = map[string]string{}
		for _, f := range fields {
			sk.Hash[f] = r.m.HGet(k, f)
		}
	case "zset":
		var zs []redis.Z
		zs, err = r.c.ZRangeWithScores(context.Background(), k, 0, -1).Result()
		sk.ZSet = map[string]float64{}
		for _, z := range zs {
			sk.ZSet[z.Member.(string)] = z.Score
		}
		if err == nil && len(zs) == 0 {
			err = errVanished
		}
	case "stream":
		var entries []miniredis.StreamEntry
		entries, err = r.m.Stream(k)
		for _, e := range entries {
			sk.Stream = append(sk.Stream, streamEntry{ID: e.ID, Values: e.Values})
		}
	case "none", "":
		err = errVanished
	default:
		err = fmt.Errorf("type %q cannot be kept", sk.Type)
	}
	if errors.Is(err, miniredis.ErrKeyNotFound) {
		err = errVanished // deleted between its type and its value
	}
	return sk, err
}

// load restores a snapshot written by save. Keys whose TTL ran out while
// the process was stopped are restored with the TTL they had left: the
// clock of a local game stops with the process only as far as Redis keys
// go; the match service's own deadlines are times, and it judges them.
func (r *embeddedRedis) load() error {
	f, err := os.Open(r.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("load redis snapshot: %w", err)
	}
	defer func() { _ = f.Close() }()
	dec := json.NewDecoder(bufio.NewReader(f))
	for dec.More() {
		var sk snapshotKey
		if err := dec.Decode(&sk); err != nil {
			return fmt.Errorf("load redis snapshot %s: %w", filepath.Base(r.path), err)
		}
		if err := r.restore(sk); err != nil {
			return fmt.Errorf("restore redis key %q: %w", sk.Key, err)
		}
	}
	return nil
}

func (r *embeddedRedis) restore(sk snapshotKey) error {
	k := sk.Key
	var err error
	switch sk.Type {
	case "string":
		err = r.m.Set(k, sk.String)
	case "list":
		_, err = r.m.Push(k, sk.List...)
	case "set":
		_, err = r.m.SetAdd(k, sk.Set...)
	case "hash":
		for f, v := range sk.Hash {
			r.m.HSet(k, f, v)
		}
	case "zset":
		for m, s := range sk.ZSet {
			if _, err = r.m.ZAdd(k, s, m); err != nil {
				break
			}
		}
	case "stream":
		for _, e := range sk.Stream {
			if _, err = r.m.XAdd(k, e.ID, e.Values); err != nil {
				break
			}
		}
	default:
		err = fmt.Errorf("unknown type %q", sk.Type)
	}
	if err == nil && sk.TTLMS > 0 {
		r.m.SetTTL(k, time.Duration(sk.TTLMS)*time.Millisecond)
	}
	return err
}
