package rpc

import (
	"context"
	"io"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/services/lobby/internal/glicko"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

// fakeBot answers ReviewGame with a progress message a ply, then a review
// of as many plies, and records the requests.
type fakeBot struct{ reqs []*botv1.ReviewGameRequest }

func (f *fakeBot) ReviewGame(_ context.Context, in *botv1.ReviewGameRequest, _ ...grpc.CallOption) (grpc.ServerStreamingClient[botv1.ReviewGameResponse], error) {
	f.reqs = append(f.reqs, in)
	var out []*botv1.ReviewGameResponse
	r := &gamev1.GameReview{Game: in.GetGame(), Variant: in.GetVariant(), EngineVersion: "fake", Nodes: 100}
	for i, p := range in.GetPlies() {
		out = append(out, &botv1.ReviewGameResponse{Event: &botv1.ReviewGameResponse_Progress{Progress: &gamev1.ReviewProgress{Done: int32(i + 1), Total: int32(len(in.GetPlies()))}}})
		r.Plies = append(r.Plies, &gamev1.PlyReview{Number: int32(i + 1), Played: p.GetNotation(), Best: p.GetNotation(), Mark: gamev1.ReviewMark_REVIEW_MARK_GOOD})
	}
	out = append(out, &botv1.ReviewGameResponse{Event: &botv1.ReviewGameResponse_Review{Review: r}})
	return &fakeBotStream{msgs: out}, nil
}

type fakeBotStream struct {
	grpc.ClientStream
	msgs []*botv1.ReviewGameResponse
}

func (s *fakeBotStream) Recv() (*botv1.ReviewGameResponse, error) {
	if len(s.msgs) == 0 {
		return nil, io.EOF
	}
	m := s.msgs[0]
	s.msgs = s.msgs[1:]
	return m, nil
}

// reviewStream is a ReviewGame stream that records what is sent.
type reviewStream struct {
	grpc.ServerStream
	ctx  context.Context
	sent []*lobbyv1.ReviewGameResponse
}

func (f *reviewStream) Context() context.Context { return f.ctx }
func (f *reviewStream) Send(m *lobbyv1.ReviewGameResponse) error {
	f.sent = append(f.sent, m)
	return nil
}

func reasonOf(err error) string {
	if info, ok := reason.Of(status.Convert(err)); ok {
		return info.GetReason()
	}
	return ""
}

// ReviewGame reviews the finished games the caller may see (a public one,
// its own or invited private one), never another's private one; the bot
// service gets each reveal's piece, never the layout; a stored review
// comes back without asking the bot and without counting; past the
// caller's hourly reviews it is refused with REVIEW_LIMIT, and without a
// bot service with REVIEW_UNAVAILABLE.
func TestReviewGameVisibilityStorageAndLimit(t *testing.T) {
	t.Parallel()
	s, _ := newServer(t)
	rdb, prefix := testenv.Redis(t)
	db := testenv.SQLite(t)
	s.d.Store = sqlstore.NewSQLite(db, glicko.Default(), nil)
	bot := &fakeBot{}
	s.d.Reviewer = bot
	s.d.Limiter = ratelimit.New(rdb, prefix)
	s.d.Limits.Review = ratelimit.Rule{What: "game reviews", Rate: 1, Burst: 2, Period: time.Hour}
	if _, err := db.ExecContext(t.Context(), `INSERT INTO players (player_id, display_name) VALUES ('p_a', 'A')`); err != nil {
		t.Fatal(err)
	}
	end := time.Unix(1_800_000_000, 0).UTC()
	insert := func(id, game, plies, layout string, private bool) {
		t.Helper()
		if _, err := db.ExecContext(t.Context(), `INSERT INTO games (game_id, game, variant, rated, first_player_id,
			first_display_name, second_player_id, second_display_name, plies, ply_clock_ms, ply_think_ms, ply_count,
			result, reason, started_at, ended_at, private, invited, layout) VALUES ($1,$2,'standard',false,'p_a','A','p_b','B',$3,'- -','1 1',2,'draw','agreement',$4,$4,$5,$6,$7)`,
			id, game, plies, end, private, `["p_c"]`, layout); err != nil {
			t.Fatal(err)
		}
	}
	insert("pub", "quoridor", "e2 e8", "", false)
	insert("priv", "quoridor", "e2 e8", "", true)
	insert("bq", "banqi", "a1 b1", "KAABBRRNNCCPPPPPkaabbrrnnccppppp", false)

	review := func(who, id string) (*reviewStream, error) {
		st := &reviewStream{ctx: as(t.Context(), who)}
		return st, s.ReviewGame(&lobbyv1.ReviewGameRequest{GameId: id}, st)
	}
	_, err := review("p_z", "priv")
	wantCode(t, "stranger's review of a private game", err, codes.NotFound)
	_, err = review("p_z", "")
	wantCode(t, "review without an id", err, codes.InvalidArgument)
	st, err := review("p_c", "priv") // invited to watch it
	if err != nil || len(st.sent) != 3 || st.sent[2].GetReview().GetEngineVersion() != "fake" {
		t.Fatalf("invited spectator's review: %v, %v; want 2 progress messages and the review", st.sent, err)
	}
	// The first call learnt the bot's version with a game of no plies.
	if n := len(bot.reqs); n != 2 || len(bot.reqs[0].GetPlies()) != 0 {
		t.Fatalf("bot requests %v, want the version probe then the review", bot.reqs)
	}
	for range 3 { // stored: the same at once, for anyone who may see it, uncounted
		st, err = review("p_a", "priv")
		if err != nil || len(st.sent) != 1 || len(st.sent[0].GetReview().GetPlies()) != 2 {
			t.Fatalf("stored review: %v, %v", st.sent, err)
		}
	}
	if len(bot.reqs) != 2 {
		t.Fatalf("a stored review asked the bot again: %d requests", len(bot.reqs))
	}
	if _, err := review("p_z", "bq"); err != nil {
		t.Fatal(err)
	}
	last := bot.reqs[len(bot.reqs)-1]
	if got := last.GetPlies()[0].GetRevealed(); got != gamev1.BanqiPiece_BANQI_PIECE_RED_GENERAL {
		t.Errorf("Banqi reveal a1 sent with %s, want the red general", got)
	}
	// p_z has used one review of its burst of 2: one more, then refused.
	if _, err := review("p_z", "pub"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(t.Context(), `DELETE FROM game_reviews`); err != nil {
		t.Fatal(err)
	}
	_, err = review("p_z", "pub")
	wantCode(t, "review past the hourly limit", err, codes.ResourceExhausted)
	if r := reasonOf(err); r != reason.ReviewLimit {
		t.Errorf("reason %q, want %s", r, reason.ReviewLimit)
	}
	s.d.Reviewer = nil
	_, err = review("p_a", "pub")
	wantCode(t, "review without a bot service", err, codes.Unavailable)
	if r := reasonOf(err); r != reason.ReviewUnavailable {
		t.Errorf("reason %q, want %s", r, reason.ReviewUnavailable)
	}
}
