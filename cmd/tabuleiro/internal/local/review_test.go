package local

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/testenv"
)

// A short Quoridor game between two guests in which black steps sideways
// on its home row instead of racing (plies 2, 4, 6...) and then resigns,
// reviewed over Connect in the one-process server: the stream reports
// progress ply by ply, then the review, in which the sideways ply 6 is a
// blunder whose better ply is the race's step; white, who raced, has no
// mark. Asked again, the stored review comes back at once and the same;
// a spectator may review the public game; a live game is never reviewed.
func TestReviewFinishedGameOverConnect(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	srv, err := Start(ctx, Options{DataDir: t.TempDir()})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	defer func() {
		cancel()
		_ = srv.Wait()
	}()
	conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	lobby, match := lobbyv1.NewLobbyServiceClient(conn), matchv1.NewMatchServiceClient(conn)
	as := func(token string) context.Context {
		return metadata.NewOutgoingContext(t.Context(), metadata.Pairs("authorization", "Bearer "+token))
	}
	signIn := func(name string) string {
		t.Helper()
		res, err := lobby.SignInGuest(t.Context(), &lobbyv1.SignInGuestRequest{DisplayName: name})
		if err != nil {
			t.Fatalf("sign in %s: %v", name, err)
		}
		return res.GetToken()
	}
	ana, bia, caio := signIn("Ana"), signIn("Bia"), signIn("Caio")
	newGame := func() (id string, first, second context.Context) {
		t.Helper()
		room, err := lobby.CreateRoom(as(ana), &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard",
			Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC, HostSeat: gamev1.Seat_SEAT_FIRST})
		if err != nil {
			t.Fatalf("create room: %v", err)
		}
		joined, err := lobby.JoinRoom(as(bia), &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_RoomId{RoomId: room.GetRoom().GetRoomId()}})
		if err != nil {
			t.Fatalf("join room: %v", err)
		}
		return joined.GetRoom().GetMatchId(), as(ana), as(bia)
	}
	id, white, black := newGame()
	plies := strings.Fields("e2 d9 e3 e9 e4 d9 e5 e9 e6 d9")
	for i, p := range plies {
		who := white
		if i%2 == 1 {
			who = black
		}
		if _, err := match.SubmitPly(who, &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: int32(i + 1), Notation: p}); err != nil {
			t.Fatalf("ply %d %s: %v", i+1, p, err)
		}
	}

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	review := connect.NewClient[lobbyv1.ReviewGameRequest, lobbyv1.ReviewGameResponse](&http.Client{Transport: tr},
		"http://"+srv.Addr()+lobbyv1.LobbyService_ReviewGame_FullMethodName, connect.WithProtoJSON())
	call := func(token, gameID string) (progress []*gamev1.ReviewProgress, r *gamev1.GameReview, err error) {
		req := connect.NewRequest(&lobbyv1.ReviewGameRequest{GameId: gameID})
		req.Header().Set("Authorization", "Bearer "+token)
		st, err := review.CallServerStream(t.Context(), req)
		if err != nil {
			return nil, nil, err
		}
		defer st.Close()
		for st.Receive() {
			if p := st.Msg().GetProgress(); p != nil {
				progress = append(progress, p)
			}
			if rv := st.Msg().GetReview(); rv != nil {
				r = rv
			}
		}
		return progress, r, st.Err()
	}

	// Live: not recorded, so not found, for a player and a spectator.
	for _, who := range []string{ana, caio} {
		if _, _, err := call(who, id); connect.CodeOf(err) != connect.CodeNotFound {
			t.Fatalf("review of a live game: %v, want NotFound", err)
		}
	}
	if _, err := match.Resign(black, &matchv1.ResignRequest{MatchId: id}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "the game recorded", func() bool {
		_, err := lobby.GetGame(as(ana), &lobbyv1.GetGameRequest{GameId: id})
		return err == nil
	})

	progress, r, err := call(ana, id)
	if err != nil {
		t.Fatalf("review: %v", err)
	}
	if len(progress) != len(plies) || progress[0].GetDone() != 1 || progress[len(progress)-1].GetDone() != int32(len(plies)) || progress[0].GetTotal() != int32(len(plies)) {
		t.Errorf("progress %v, want 1..%d of %d", progress, len(plies), len(plies))
	}
	if r == nil || len(r.GetPlies()) != len(plies) {
		t.Fatalf("review %v, want %d plies", r, len(plies))
	}
	for _, p := range r.GetPlies() {
		t.Logf("ply %d %s played %s best %s %v drop %.1f %s", p.GetNumber(), p.GetSeat(), p.GetPlayed(), p.GetBest(), p.GetLine(), p.GetDrop(), p.GetMark())
	}
	b := r.GetPlies()[5]
	if b.GetMark() != gamev1.ReviewMark_REVIEW_MARK_BLUNDER || b.GetBest() == b.GetPlayed() || b.GetBest() != "e8" {
		t.Errorf("ply 6 (d9, sideways): %s, better %s; want a blunder, better e8", b.GetMark(), b.GetBest())
	}
	seats := r.GetSeats()
	if len(seats) != 2 || seats[0].GetBlunders()+seats[0].GetMistakes()+seats[0].GetInaccuracies() != 0 || seats[1].GetBlunders() == 0 ||
		seats[0].GetAccuracy() <= seats[1].GetAccuracy() {
		t.Errorf("summaries %v: want white unmarked and more accurate, black with a blunder", seats)
	}
	if r.GetCriticalPly() != 6 {
		t.Errorf("critical ply %d, want 6", r.GetCriticalPly())
	}

	// Stored: no progress, the same review; a spectator of a public game
	// gets it too.
	for _, who := range []string{ana, caio} {
		progress2, r2, err := call(who, id)
		if err != nil || len(progress2) != 0 || !proto.Equal(r, r2) {
			t.Errorf("second review: %d progress messages, same %v, err %v; want the stored review at once", len(progress2), proto.Equal(r, r2), err)
		}
	}
	if _, _, err := call(caio, "no-such-game"); connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("review of an unknown game: %v, want NotFound", err)
	}
	if _, _, err := call(caio, ""); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Errorf("review without a game id: %v, want InvalidArgument", err)
	}
}
