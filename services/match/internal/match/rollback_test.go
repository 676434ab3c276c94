package match_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// Redis loses its last writes (a failover to a replica that lagged, or a
// restart from an older snapshot) while instance A keeps its cache, and the
// game carries on on instance B with other plies, past A's version. A's
// catch-up sees that its last ply is not the stored one and reads the
// match whole, so it never plays on a history the store does not have.
func TestCatchUpAfterTheStoreLostWrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2, redisstore.Options{}, match.Config{})
	a, b := e.svcs[0], e.svcs[1]
	ctx := t.Context()
	st, err := a.Create(ctx, match.CreateParams{RequestID: "rb-" + t.Name(), Game: engine.Quoridor,
		Seats: []match.Participant{{PlayerID: "alice", DisplayName: "Alice"}, {PlayerID: "bob", DisplayName: "Bob"}}})
	if err != nil {
		t.Fatal(err)
	}
	id := st.ID
	for range 4 {
		e.play(a, id)
	}
	// The replica's (older) copy of the match (read by type rather than
	// with DUMP, which the one-process mode's embedded Redis lacks).
	restore := snapshot(t, e, e.store.MatchKeys(id)[:3])
	// A commits two more plies (the first legal ones)...
	for range 2 {
		e.play(a, id)
	}
	// ...which the failover loses.
	restore()
	// B plays plies 5-7 differently: the last legal ply each time, and a
	// 7th that is also legal on A's (wrong) position.
	for range 2 {
		cur, pos, err := b.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		l := pos.Legal()
		if _, _, err := b.SubmitPly(ctx, id, cur.ToMove, cur.NextPly(), l[len(l)-1].String()); err != nil {
			t.Fatal(err)
		}
	}
	cur, pos, err := b.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	_, apos, _ := a.CachedForTest(id)
	aLegal := map[string]bool{}
	for _, p := range apos.Legal() {
		aLegal[p.String()] = true
	}
	seventh := ""
	for _, p := range pos.Legal() {
		if aLegal[p.String()] {
			seventh = p.String()
			break
		}
	}
	if _, _, err := b.SubmitPly(ctx, id, cur.ToMove, cur.NextPly(), seventh); err != nil {
		t.Fatal(err)
	}
	tst, tpos := e.truth(id)
	ast, apos2, err := a.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if d := sameAs(ast, apos2, tst, tpos); d != "" {
		t.Errorf("after the rollback, instance A's Get disagrees with the store: %s", d)
	}
	// A's next ply, chosen on A's position, is committed on the real game.
	l := apos2.Legal()
	tLegal := map[string]bool{}
	for _, p := range tpos.Legal() {
		tLegal[p.String()] = true
	}
	for _, p := range l {
		if !tLegal[p.String()] {
			_, _, err := a.SubmitPly(ctx, id, ast.ToMove, ast.NextPly(), p.String())
			t.Logf("A submits %s (illegal in the stored game): err=%v", p, err)
			fresh := match.NewService(match.Deps{Store: e.store, Rules: match.Registry{}, Now: e.clock.Now}, match.Config{})
			if _, _, err := fresh.Get(ctx, id); err != nil {
				t.Errorf("the stored game no longer replays: %v", err)
			}
			break
		}
	}
}

// snapshot copies the hash, list and stream keys and returns a function
// that puts the copies back in their place.
func snapshot(t *testing.T, e *env, keys []string) func() {
	t.Helper()
	ctx := t.Context()
	var puts []func(redis.Pipeliner)
	for _, k := range keys {
		typ, err := e.rdb.Type(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		switch typ {
		case "hash":
			h, err := e.rdb.HGetAll(ctx, k).Result()
			if err != nil {
				t.Fatal(err)
			}
			puts = append(puts, func(p redis.Pipeliner) { p.HSet(ctx, k, h) })
		case "list":
			l, err := e.rdb.LRange(ctx, k, 0, -1).Result()
			if err != nil {
				t.Fatal(err)
			}
			puts = append(puts, func(p redis.Pipeliner) {
				for _, v := range l {
					p.RPush(ctx, k, v)
				}
			})
		case "stream":
			msgs, err := e.rdb.XRange(ctx, k, "-", "+").Result()
			if err != nil {
				t.Fatal(err)
			}
			puts = append(puts, func(p redis.Pipeliner) {
				for _, m := range msgs {
					p.XAdd(ctx, &redis.XAddArgs{Stream: k, ID: m.ID, Values: m.Values})
				}
			})
		default:
			t.Fatalf("snapshot of %s: type %s", k, typ)
		}
	}
	return func() {
		t.Helper()
		_, err := e.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Del(ctx, keys...)
			for _, put := range puts {
				put(p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
