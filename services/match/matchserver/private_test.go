package matchserver_test

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	ptestenv "tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/match/internal/match"
)

// A private match is NOT_FOUND to a stranger on every path that reads it
// (GetMatch, ListLegalPlies, Watch, Play), flagged private in ListMatches,
// and visible to its seats and to the players a seat invited; a public
// match stays visible to anyone.
func TestPrivateMatchVisibleOnlyToMembersAndInvited(t *testing.T) {
	c := newCluster(t, 1, match.Config{}, nil)
	ctx := t.Context()
	cl := c.client(0)
	priv := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard", Private: true})
	pub := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard"})

	readable := func(who, id string) error {
		if _, err := cl.GetMatch(c.as(ctx, who), &matchv1.GetMatchRequest{MatchId: id}); err != nil {
			return err
		}
		if _, err := cl.ListLegalPlies(c.as(ctx, who), &matchv1.ListLegalPliesRequest{MatchId: id}); err != nil {
			return err
		}
		wctx, cancel := context.WithDeadline(c.as(ctx, who), ptestenv.Deadline(t))
		defer cancel()
		w, err := cl.Watch(wctx, &matchv1.WatchRequest{MatchId: id})
		if err != nil {
			return err
		}
		m, err := w.Recv()
		if err != nil {
			return err
		}
		if m.GetSnapshot().GetMatchId() != id {
			t.Fatalf("%s watching %s: first message %v", who, id, m)
		}
		return nil
	}
	for _, who := range []string{"alice", "bob", "mallory"} {
		if err := readable(who, pub); err != nil {
			t.Errorf("%s reading the public match: %v", who, err)
		}
	}
	for _, who := range []string{"alice", "bob"} {
		if err := readable(who, priv); err != nil {
			t.Errorf("seat %s reading the private match: %v", who, err)
		}
	}
	if err := readable("mallory", priv); status.Code(err) != codes.NotFound {
		t.Fatalf("stranger reading the private match: %v, want NotFound", err)
	}
	// A stranger who tries to play it gets NOT_FOUND too.
	p := c.play(0, "mallory", priv, 0)
	if err := <-p.done; status.Code(err) != codes.NotFound {
		t.Fatalf("stranger's Play: %v, want NotFound", err)
	}

	// Only a seat may invite; the invited may then watch.
	_, err := cl.InviteSpectator(c.as(ctx, "mallory"), &matchv1.InviteSpectatorRequest{MatchId: priv, PlayerId: "mallory"})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("stranger inviting himself: %v, want NotFound", err)
	}
	if _, err := cl.InviteSpectator(c.as(ctx, "alice"), &matchv1.InviteSpectatorRequest{MatchId: pub, PlayerId: "carol"}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("invite to a public match: %v, want FailedPrecondition", err)
	}
	if _, err := cl.InviteSpectator(c.as(ctx, "alice"), &matchv1.InviteSpectatorRequest{MatchId: priv}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("invite nobody: %v, want InvalidArgument", err)
	}
	for _, bad := range []string{"\u0001\u202e1", "x\x00y", "car ol"} {
		if _, err := cl.InviteSpectator(c.as(ctx, "alice"), &matchv1.InviteSpectatorRequest{MatchId: priv, PlayerId: bad}); status.Code(err) != codes.InvalidArgument {
			t.Fatalf("invite %q: %v, want InvalidArgument", bad, err)
		}
	}
	if err := readable("carol", priv); status.Code(err) != codes.NotFound {
		t.Fatalf("carol before the invitation: %v, want NotFound", err)
	}
	if _, err := cl.InviteSpectator(c.as(ctx, "alice"), &matchv1.InviteSpectatorRequest{MatchId: priv, PlayerId: "carol"}); err != nil {
		t.Fatal(err)
	}
	if err := readable("carol", priv); err != nil {
		t.Fatalf("carol after alice invited her: %v", err)
	}
	if err := readable("mallory", priv); status.Code(err) != codes.NotFound {
		t.Fatalf("stranger after carol's invitation: %v, want NotFound", err)
	}
	// Each seat has half the places: bob filling his with made-up ids
	// leaves alice hers (the match service cannot tell real ids).
	for i := range match.MaxInvited / 2 {
		if _, err := cl.InviteSpectator(c.as(ctx, "bob"), &matchv1.InviteSpectatorRequest{MatchId: priv, PlayerId: "guest" + string(rune('a'+i))}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cl.InviteSpectator(c.as(ctx, "bob"), &matchv1.InviteSpectatorRequest{MatchId: priv, PlayerId: "onemore"}); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("bob's invitation past his half: %v, want ResourceExhausted", err)
	}
	for i := range match.MaxInvited/2 - 1 { // carol was her first
		if _, err := cl.InviteSpectator(c.as(ctx, "alice"), &matchv1.InviteSpectatorRequest{MatchId: priv, PlayerId: "friend" + string(rune('a'+i))}); err != nil {
			t.Fatalf("alice's invitation %d after bob used his half: %v", i+2, err)
		}
	}
	if _, err := cl.InviteSpectator(c.as(ctx, "alice"), &matchv1.InviteSpectatorRequest{MatchId: priv, PlayerId: "onemore"}); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("invitation past the cap: %v, want ResourceExhausted", err)
	}

	// ListMatches (the lobby's source) flags the private match.
	res, err := cl.ListMatches(c.as(ctx, "lobby"), &matchv1.ListMatchesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string]bool{}
	for _, m := range res.GetMatches() {
		flags[m.GetMatchId()] = m.GetPrivate()
	}
	if p, ok := flags[priv]; !ok || !p {
		t.Errorf("private match listed as %v (present %v)", p, ok)
	}
	if p, ok := flags[pub]; !ok || p {
		t.Errorf("public match listed as private %v (present %v)", p, ok)
	}
}
