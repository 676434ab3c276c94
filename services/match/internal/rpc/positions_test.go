package rpc

import (
	"context"
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	"tabuleiro.dev/services/match/internal/match"
)

// TestPositionsFollowPliesWithoutCopying: a stream that follows a long
// match's plies itself (the instance's cached state is busy or elsewhere)
// appends each ply to a plies array of its own, which grows a few times
// rather than being copied whole for every ply (it was: 8.5 GB of the 9.8
// GB that matchload allocated in 10 s); a state it took from the cache
// keeps its plies and its spare capacity untouched; every state it returns
// holds the match's plies in order.
func TestPositionsFollowPliesWithoutCopying(t *testing.T) {
	start, err := games.New(engine.Quoridor, "standard", "")
	if err != nil {
		t.Fatal(err)
	}
	svc := match.NewService(match.Deps{Rules: match.Registry{}}, match.Config{}) // nothing cached: Peek fails
	moves := [2][2]string{{"e2", "e1"}, {"e8", "e9"}}
	ply := func(n int) *match.PlyRecord {
		seat := (n - 1) % 2
		return &match.PlyRecord{Number: n, Seat: engine.Seat(seat + 1), Notation: moves[seat][((n-1)/2)%2], Seq: int64(n)}
	}

	// The cache's state after 3 plies, with spare capacity marked: the
	// slots past its length are not the stream's to write.
	shared := &match.State{ID: "m", Game: engine.Quoridor, Variant: "standard", Plies: make([]match.PlyRecord, 3, 8)}
	for i := range shared.Plies[:cap(shared.Plies)] {
		if i < 3 {
			shared.Plies[i] = *ply(i + 1)
		} else {
			shared.Plies[:cap(shared.Plies)][i] = match.PlyRecord{Notation: "spare"}
		}
	}
	pos := start
	for _, r := range shared.Plies {
		pl, err := pos.ParsePly(r.Notation)
		if err != nil {
			t.Fatal(err)
		}
		if pos, err = pos.Play(pl); err != nil {
			t.Fatal(err)
		}
	}
	p := &positions{svc: svc, st: shared, pos: pos, shared: true}

	const plies = 2000
	arrays := 0
	var last *match.PlyRecord
	for n := 4; n <= plies; n++ {
		st, pos, err := p.at(context.Background(), match.Event{MatchID: "m", Kind: match.EventPly, Plies: n, Seq: int64(n), Ply: ply(n)})
		if err != nil {
			t.Fatalf("ply %d: %v", n, err)
		}
		if pos.Plies() != n || len(st.Plies) != n {
			t.Fatalf("ply %d: position at %d plies, state with %d", n, pos.Plies(), len(st.Plies))
		}
		for _, i := range []int{0, n / 2, n - 1} {
			if st.Plies[i] != *ply(i + 1) {
				t.Fatalf("ply %d: the state's ply %d is %+v, want %+v", n, i+1, st.Plies[i], *ply(i + 1))
			}
		}
		if &st.Plies[0] != last {
			last = &st.Plies[0]
			arrays++
		}
	}
	if len(shared.Plies) != 3 {
		t.Errorf("the cache's state has %d plies, want 3", len(shared.Plies))
	}
	for i, r := range shared.Plies[3:cap(shared.Plies)] {
		if r.Notation != "spare" {
			t.Errorf("the cache's spare slot %d was written: %+v", 3+i, r)
		}
	}
	// Doubling from one array: about log2(2000) = 11 arrays.
	if arrays > 24 {
		t.Errorf("following %d plies used %d plies arrays: the plies are copied per ply, not appended", plies-3, arrays)
	}
}
