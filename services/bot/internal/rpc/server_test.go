package rpc

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/grpcserve/grpcservetest"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

// policy mirrors botserver.Policy, which imports this package.
var policy = auth.Policy{ServiceOnly: []string{"/tabuleiro.bot.v1.BotService/"}}

// start serves the BotService on a loopback listener with the production
// interceptors and returns clients with a service token, a player token
// and no token.
func start(t *testing.T) (svc, player, anon botv1.BotServiceClient) {
	t.Helper()
	v, err := auth.NewVerifier(testKey)
	if err != nil {
		t.Fatal(err)
	}
	iss, err := auth.NewIssuer(testKey)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpcservetest.Start(t, grpcserve.Options{Auth: auth.NewInterceptor(v, policy)}, func(s *grpc.Server) {
		botv1.RegisterBotServiceServer(s, NewServer())
	})
	svcToken, _, err := iss.IssueService("match", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	playerToken, _, err := iss.IssuePlayer("p1", "Ana", true, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	svc = botv1.NewBotServiceClient(srv.Dial(t, grpc.WithPerRPCCredentials(auth.TokenCredentials{Token: svcToken})))
	player = botv1.NewBotServiceClient(srv.Dial(t, grpc.WithPerRPCCredentials(auth.TokenCredentials{Token: playerToken})))
	anon = botv1.NewBotServiceClient(srv.Conn)
	return svc, player, anon
}

var protoGame = map[engine.Game]gamev1.Game{
	engine.Quoridor: gamev1.Game_GAME_QUORIDOR,
	engine.Corners:  gamev1.Game_GAME_CORNERS,
	engine.Banqi:    gamev1.Game_GAME_BANQI,
}

// position plays plies from the start of a game.
func position(t *testing.T, g engine.Game, variant, setup string, plies ...string) engine.Position {
	t.Helper()
	p, err := games.New(g, variant, setup)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range plies {
		ply, err := p.ParsePly(s)
		if err != nil {
			t.Fatal(err)
		}
		if p, err = p.Play(ply); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return p
}

// viewOf is the API view that the match service sends for the side to move.
func viewOf(p engine.Position) *gamev1.GameView {
	v := p.View(p.ToMove())
	return &gamev1.GameView{
		Game:     protoGame[v.Variant().Game],
		Variant:  v.Variant().ID,
		Viewer:   gamev1.Seat(p.ToMove()),
		ToMove:   gamev1.Seat(v.ToMove()),
		PlyCount: int32(v.Plies()),
		Encoding: v.Encode(),
	}
}

const layout = "pnnAABcppKbcrkPbNpCBaNPRpaPRrPCP"

func TestSelectPly(t *testing.T) {
	t.Parallel()
	svc, _, _ := start(t)
	positions := []engine.Position{
		position(t, engine.Quoridor, "standard", "", "e2", "e8", "e3", "e7", "d3h"),
		position(t, engine.Corners, "classic-3x3", "", "c3-d3", "f6-e6"),
		position(t, engine.Banqi, "standard", layout, "a1", "b2"),
	}
	for _, p := range positions {
		for lvl := gamev1.BotLevel_BOT_LEVEL_EASY; lvl <= gamev1.BotLevel_BOT_LEVEL_EXPERT; lvl++ {
			t.Run(string(p.Variant().Game)+"/"+lvl.String(), func(t *testing.T) {
				t.Parallel()
				// A budget with room to spare on a loaded machine: this checks
				// the answer, not the speed (benchmarks measure that).
				resp, err := svc.SelectPly(t.Context(), &botv1.SelectPlyRequest{View: viewOf(p), Level: lvl, BudgetMs: 300, Seed: 5})
				if err != nil {
					t.Fatal(err)
				}
				// (How many nodes it searched is not checked: a machine busy
				// enough may end the budget before the first, and the
				// answer is then the first legal ply, still legal.)
				legal := slices.ContainsFunc(p.Legal(), func(l engine.Ply) bool { return l.String() == resp.GetNotation() })
				if !legal || resp.GetPlyNumber() != int32(p.Plies()+1) || resp.GetNodes() < 0 {
					t.Errorf("SelectPly = %v: want a legal ply for ply %d", resp, p.Plies()+1)
				}
			})
		}
	}
}

// TestSelectPlyDeadline: a caller's deadline far shorter than the budget
// still gets a legal ply, before the budget.
func TestSelectPlyDeadline(t *testing.T) {
	t.Parallel()
	p := position(t, engine.Quoridor, "standard", "", "e2", "e8", "e3", "e7", "d3h", "e6h")
	// Called in process, not over gRPC: a client would give up at its
	// deadline, and on a loaded machine the answer may come a little
	// after it (how soon depends on the machine and is not checked).
	// What is checked: the deadline, not the budget, ends the search, and
	// the answer is a legal ply.
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	begin := time.Now()
	resp, err := NewServer().SelectPly(ctx, &botv1.SelectPlyRequest{View: viewOf(p), Level: gamev1.BotLevel_BOT_LEVEL_EXPERT, BudgetMs: MaxBudget.Milliseconds()})
	if err != nil {
		t.Fatalf("SelectPly with a 3s deadline and a %v budget: %v", MaxBudget, err)
	}
	if d := time.Since(begin); d >= MaxBudget {
		t.Errorf("took %s with a 3s deadline and a %v budget: the deadline was ignored", d, MaxBudget)
	}
	if _, err := p.ParsePly(resp.GetNotation()); err != nil {
		t.Errorf("notation %q: %v", resp.GetNotation(), err)
	}
}

func TestSelectPlyAuth(t *testing.T) {
	t.Parallel()
	_, player, anon := start(t)
	req := &botv1.SelectPlyRequest{View: viewOf(position(t, engine.Quoridor, "", "")), Level: gamev1.BotLevel_BOT_LEVEL_EASY}
	if _, err := player.SelectPly(t.Context(), req); status.Code(err) != codes.PermissionDenied {
		t.Errorf("player token: %v, want PermissionDenied", err)
	}
	if _, err := anon.SelectPly(t.Context(), req); status.Code(err) != codes.Unauthenticated {
		t.Errorf("no token: %v, want Unauthenticated", err)
	}
}

func TestSelectPlyInvalidArgument(t *testing.T) {
	t.Parallel()
	svc, _, _ := start(t)
	q := position(t, engine.Quoridor, "standard", "", "e2")
	over := position(t, engine.Quoridor, "standard", "", "e2", "e8", "e3", "e7", "e4", "e6", "e5", "d6", "e6", "d5", "e7", "d4", "e8", "d3", "e9")
	b := position(t, engine.Banqi, "standard", layout, "a1")
	edit := func(v *gamev1.GameView, f func(*gamev1.GameView)) *gamev1.GameView { f(v); return v }
	tests := []struct {
		name   string
		req    *botv1.SelectPlyRequest
		reason string
	}{
		{"no view", &botv1.SelectPlyRequest{Level: gamev1.BotLevel_BOT_LEVEL_EASY}, "view is required"},
		{"unspecified level", &botv1.SelectPlyRequest{View: viewOf(q)}, "level"},
		{"unknown level", &botv1.SelectPlyRequest{View: viewOf(q), Level: 9}, "level"},
		{"negative budget", &botv1.SelectPlyRequest{View: viewOf(q), Level: 1, BudgetMs: -1}, "budget_ms"},
		{"budget too long", &botv1.SelectPlyRequest{View: viewOf(q), Level: 1, BudgetMs: 60001}, "budget_ms"},
		{"unspecified game", &botv1.SelectPlyRequest{View: edit(viewOf(q), func(v *gamev1.GameView) { v.Game = 0 }), Level: 1}, "view.game"},
		{"unknown variant", &botv1.SelectPlyRequest{View: edit(viewOf(q), func(v *gamev1.GameView) { v.Variant = "pocket" }), Level: 1}, "variant"},
		{"variant of another game", &botv1.SelectPlyRequest{View: edit(viewOf(q), func(v *gamev1.GameView) { v.Variant = "classic-3x3" }), Level: 1}, "variant"},
		{"no encoding", &botv1.SelectPlyRequest{View: edit(viewOf(q), func(v *gamev1.GameView) { v.Encoding = "" }), Level: 1}, "encoding"},
		{"garbage encoding", &botv1.SelectPlyRequest{View: edit(viewOf(q), func(v *gamev1.GameView) { v.Encoding = "e1 e9 10 10" }), Level: 1}, "encoding"},
		{"wrong ply count", &botv1.SelectPlyRequest{View: edit(viewOf(q), func(v *gamev1.GameView) { v.PlyCount = 7 }), Level: 1}, "ply_count"},
		{"wrong side to move", &botv1.SelectPlyRequest{View: edit(viewOf(q), func(v *gamev1.GameView) { v.ToMove = gamev1.Seat_SEAT_FIRST }), Level: 1}, "to_move"},
		{"finished game", &botv1.SelectPlyRequest{View: viewOf(over), Level: 2}, "over"},
		{"board of another game", &botv1.SelectPlyRequest{View: edit(viewOf(q), func(v *gamev1.GameView) {
			v.Board = &gamev1.GameView_Banqi{Banqi: &gamev1.BanqiBoard{}}
		}), Level: 1}, "Banqi board"},
		{"banqi cells missing", &botv1.SelectPlyRequest{View: edit(viewOf(b), func(v *gamev1.GameView) {
			v.Board = &gamev1.GameView_Banqi{Banqi: &gamev1.BanqiBoard{Cells: make([]*gamev1.BanqiCell, 31)}}
		}), Level: 1}, "31 cells"},
		{"quoridor wall count", &botv1.SelectPlyRequest{View: edit(viewOf(q), func(v *gamev1.GameView) {
			v.Board = &gamev1.GameView_Quoridor{Quoridor: &gamev1.QuoridorBoard{
				First: &gamev1.QuoridorSide{Pawn: "e2", WallsLeft: 10}, Second: &gamev1.QuoridorSide{Pawn: "e9", WallsLeft: 11},
			}}
		}), Level: 1}, "walls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := svc.SelectPly(t.Context(), tt.req)
			if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), tt.reason) {
				t.Errorf("SelectPly = %v, want InvalidArgument naming %q", err, tt.reason)
			}
		})
	}
}
