package e2e

import (
	"context"
	"crypto/rand"
	"net"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"tabuleiro.dev/cmd/tabuleiro/internal/scaletest"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/affinity"
	"tabuleiro.dev/pkg/platform/testenv"
)

// startEdge runs the edge (Debian's haproxy with deploy/haproxy/haproxy.cfg,
// the file compose mounts) in front of one lobby and one match on
// loopback, named by a DNS stand-in, and returns its clients' address once
// both backends passed its health checks.
func startEdge(t *testing.T, lobbyAddr, matchAddr string) string {
	t.Helper()
	lh, lp, _ := net.SplitHostPort(lobbyAddr)
	mh, mp, _ := net.SplitHostPort(matchAddr)
	dns := scaletest.ServeDNS(t, map[string][]net.IP{"lobby": {net.ParseIP(lh)}, "match": {net.ParseIP(mh)}})
	env := scaletest.EdgeEnv{Bind: testenv.FreeAddr(t), Metrics: testenv.FreeAddr(t), DNS: dns,
		LobbyName: "lobby", LobbyPort: lp, MatchName: "match", MatchPort: mp}
	edge := scaletest.NewEdge(t, t.TempDir(), env)
	if err := edge.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("edge log:\n%s", tail(edge.Log(), 3000))
		}
		edge.Kill()
	})
	if err := scaletest.WaitEdgeBackends(edge, env.Metrics, map[string]int{"lobby": 1, "match": 1}, testenv.Deadline(t)); err != nil {
		t.Fatalf("%v\n%s", err, tail(edge.Log(), 3000))
	}
	return env.Bind
}

// TestGameThroughEdge serves lobby, match and bot, puts the edge in front
// of lobby and match, and plays bot games with every client on the edge's
// one address: over gRPC (PlayBot to lobby, the Play stream to match), and
// over gRPC-Web and Connect, each on HTTP/1.1 and on h2c (PlayBot, then
// the Follow stream, SubmitPly and Resign).
func TestGameThroughEdge(t *testing.T) {
	t.Parallel()
	s := startStack(t, stackOptions{})
	ctx, cancel := context.WithDeadline(context.Background(), testenv.Deadline(t))
	defer cancel()
	edge := startEdge(t, s.lobbyAddr, s.matchAddr)

	conn, err := grpc.NewClient(edge, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUnaryInterceptor(affinity.UnaryClientInterceptor()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	id, plies := s.playBotGame(ctx, t, conn, conn, 3)
	if id == "" || plies < 3 {
		t.Fatalf("game %q through the edge over gRPC: %d plies", id, plies)
	}

	h1 := &http.Client{Transport: &http.Transport{}}
	h2c := &http.Transport{Protocols: new(http.Protocols)}
	h2c.Protocols.SetUnencryptedHTTP2(true)
	for _, c := range []struct {
		name string
		hc   *http.Client
		opts []connect.ClientOption
	}{
		{"connect/http1.1", h1, nil},
		{"grpc-web/http1.1", h1, []connect.ClientOption{connect.WithGRPCWeb()}},
		{"connect/h2c", &http.Client{Transport: h2c}, nil},
		{"grpc-web/h2c", &http.Client{Transport: h2c}, []connect.ClientOption{connect.WithGRPCWeb()}},
		{"grpc/h2c", &http.Client{Transport: h2c}, []connect.ClientOption{connect.WithGRPC()}},
	} {
		t.Run(c.name, func(t *testing.T) {
			id, plies := s.playBotGameWeb(ctx, t, c.hc, "http://"+edge, 2, c.opts...)
			t.Logf("game %s: %d plies through the edge", id, plies)
		})
	}
}

// playBotGameWeb plays a bot game as the web client does: PlayBot, then
// the match's Follow stream for the events and SubmitPly for the
// caller's plies, humanPlies of them, then Resign; it returns once the
// game_ended event arrives.
func (s *stack) playBotGameWeb(ctx context.Context, t *testing.T, hc *http.Client, base string, humanPlies int, opts ...connect.ClientOption) (string, int) {
	t.Helper()
	tok, _, err := s.issuer.IssuePlayer("p-"+rand.Text()[:8], "tester", true, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	authed := func(h http.Header, matchID string) {
		h.Set("Authorization", "Bearer "+tok)
		if matchID != "" {
			h.Set(affinity.Header, matchID)
		}
	}
	playBot := connect.NewClient[lobbyv1.PlayBotRequest, lobbyv1.PlayBotResponse](hc, base+lobbyv1.LobbyService_PlayBot_FullMethodName, opts...)
	req := connect.NewRequest(&lobbyv1.PlayBotRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard",
		Level: gamev1.BotLevel_BOT_LEVEL_EASY, Seat: gamev1.Seat_SEAT_SECOND})
	authed(req.Header(), "")
	pb, err := playBot.CallUnary(ctx, req)
	if err != nil {
		t.Fatalf("PlayBot: %v", err)
	}
	id := pb.Msg.GetMatchId()
	follow := connect.NewClient[matchv1.FollowRequest, matchv1.FollowResponse](hc, base+matchv1.MatchService_Follow_FullMethodName, opts...)
	submit := connect.NewClient[matchv1.SubmitPlyRequest, matchv1.SubmitPlyResponse](hc, base+matchv1.MatchService_SubmitPly_FullMethodName, opts...)
	resign := connect.NewClient[matchv1.ResignRequest, matchv1.ResignResponse](hc, base+matchv1.MatchService_Resign_FullMethodName, opts...)
	freq := connect.NewRequest(&matchv1.FollowRequest{MatchId: id})
	authed(freq.Header(), id)
	st, err := follow.CallServerStream(ctx, freq)
	if err != nil {
		t.Fatalf("Follow: %v", err)
	}
	defer st.Close()
	var plies []string
	played, resigned := 0, false
	for st.Receive() {
		m := st.Msg()
		switch {
		case m.GetSnapshot() != nil:
			plies = plies[:0]
			for _, p := range m.GetSnapshot().GetPlies() {
				plies = append(plies, p.GetNotation())
			}
		case m.GetEvent().GetPlyPlayed() != nil:
			if n := int(m.GetEvent().GetPlyPlayed().GetPly().GetNumber()); n == len(plies)+1 {
				plies = append(plies, m.GetEvent().GetPlyPlayed().GetPly().GetNotation())
			}
		case m.GetEvent().GetGameEnded() != nil:
			if !resigned {
				t.Fatalf("game ended before the resignation: %v", m.GetEvent().GetGameEnded())
			}
			return id, len(plies)
		default:
			continue
		}
		if resigned || len(plies)%2 == 0 {
			continue // the bot's turn
		}
		if played == humanPlies {
			r := connect.NewRequest(&matchv1.ResignRequest{MatchId: id})
			authed(r.Header(), id)
			if _, err := resign.CallUnary(ctx, r); err != nil {
				t.Fatalf("Resign: %v", err)
			}
			resigned = true
			continue
		}
		r := connect.NewRequest(&matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: int32(len(plies) + 1), Notation: legalPly(t, plies)})
		authed(r.Header(), id)
		if _, err := submit.CallUnary(ctx, r); err != nil {
			t.Fatalf("SubmitPly %d: %v", len(plies)+1, err)
		}
		played++
	}
	t.Fatalf("Follow ended after %d plies: %v", len(plies), st.Err())
	return "", 0
}
