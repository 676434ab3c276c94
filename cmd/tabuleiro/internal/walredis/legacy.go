package walredis

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// legacyKey is one line of redis.jsonl, the snapshot the embedded store
// wrote before it had a log.
type legacyKey struct {
	Key    string             `json:"key"`
	Type   string             `json:"type"`
	TTLMS  int64              `json:"ttl_ms,omitempty"`
	String string             `json:"string,omitempty"`
	List   []string           `json:"list,omitempty"`
	Set    []string           `json:"set,omitempty"`
	Hash   map[string]string  `json:"hash,omitempty"`
	ZSet   map[string]float64 `json:"zset,omitempty"`
	Stream []struct {
		ID     string   `json:"id"`
		Values []string `json:"values"`
	} `json:"stream,omitempty"`
}

// importLegacy loads o.Legacy (its TTLs counted from now, as it kept
// them), writes it as the first snapshot and renames it out of the way.
func (s *Store) importLegacy() error {
	f, err := os.Open(s.o.Legacy)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("embedded redis: %w", err)
	}
	defer func() { _ = f.Close() }()
	now := time.Now()
	dec := json.NewDecoder(bufio.NewReader(f))
	for dec.More() {
		var k legacyKey
		if err := dec.Decode(&k); err != nil {
			return fmt.Errorf("embedded redis: import %s: %w", s.o.Legacy, err)
		}
		var err error
		switch k.Type {
		case "string":
			err = s.m.Set(k.Key, k.String)
		case "list":
			_, err = s.m.Push(k.Key, k.List...)
		case "set":
			_, err = s.m.SetAdd(k.Key, k.Set...)
		case "hash":
			for f, v := range k.Hash {
				s.m.HSet(k.Key, f, v)
			}
		case "zset":
			for m, sc := range k.ZSet {
				if _, err = s.m.ZAdd(k.Key, sc, m); err != nil {
					break
				}
			}
		case "stream":
			for _, e := range k.Stream {
				if _, err = s.m.XAdd(k.Key, e.ID, e.Values); err != nil {
					break
				}
			}
		default:
			err = fmt.Errorf("unknown type %q", k.Type)
		}
		if err != nil {
			return fmt.Errorf("embedded redis: import key %q: %w", k.Key, err)
		}
		if k.TTLMS > 0 && s.m.Exists(k.Key) {
			s.m.SetTTL(k.Key, marker)
			s.exp.set(k.Key, now.Add(time.Duration(k.TTLMS)*time.Millisecond).UnixNano())
		}
	}
	if _, err := s.writeSnapshot(context.Background(), s.o.Dir, 0); err != nil {
		return fmt.Errorf("embedded redis: import %s: %w", s.o.Legacy, err)
	}
	_ = f.Close()
	if err := os.Rename(s.o.Legacy, s.o.Legacy+".imported"); err != nil {
		return fmt.Errorf("embedded redis: %w", err)
	}
	return nil
}
