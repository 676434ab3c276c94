package rpc

import (
	"context"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/services/lobby/internal/glicko"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

type fakeLive []*matchv1.MatchSummary

func (f fakeLive) ListMatches(_ context.Context, playerID string, matchIDs ...string) ([]*matchv1.MatchSummary, error) {
	var out []*matchv1.MatchSummary
	for _, m := range f {
		if len(matchIDs) > 0 && !slices.Contains(matchIDs, m.GetMatchId()) {
			continue
		}
		for _, s := range m.GetSeats() {
			if playerID == "" || s.GetPlayerId() == playerID {
				out = append(out, m)
				break
			}
		}
	}
	return out, nil
}

func liveMatch(id string, private bool, spectators int32) *matchv1.MatchSummary {
	return &matchv1.MatchSummary{MatchId: id, Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard", Private: private, Spectators: spectators,
		Seats: []*gamev1.Participant{{Seat: gamev1.Seat_SEAT_FIRST, PlayerId: "p_a", DisplayName: "A"}, {Seat: gamev1.Seat_SEAT_SECOND, PlayerId: "p_b", DisplayName: "B"}}}
}

// A private room's live match is never in ListLiveMatches (whatever the
// order or page), but is in its players' ListActiveMatches; a page token
// past the end is an empty last page, never a negative next token.
func TestPrivateLiveMatchesListedOnlyToTheirPlayers(t *testing.T) {
	t.Parallel()
	s, _ := newServer(t)
	s.d.Live = fakeLive{liveMatch("priv", true, 300), liveMatch("pub", false, 1)}
	for _, order := range []lobbyv1.LiveMatchOrder{lobbyv1.LiveMatchOrder_LIVE_MATCH_ORDER_MOST_WATCHED, lobbyv1.LiveMatchOrder_LIVE_MATCH_ORDER_HIGHEST_RATED} {
		for _, who := range []string{"p_a", "p_z"} {
			res, err := s.ListLiveMatches(as(t.Context(), who), &lobbyv1.ListLiveMatchesRequest{Order: order})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.GetMatches()) != 1 || res.GetMatches()[0].GetMatchId() != "pub" {
				t.Errorf("%s, %v: listed %v, want only the public match", who, order, res.GetMatches())
			}
		}
	}
	res, err := s.ListActiveMatches(as(t.Context(), "p_a"), &lobbyv1.ListActiveMatchesRequest{})
	if err != nil || len(res.GetMatches()) != 2 {
		t.Errorf("the player's own active matches: %v, %v; want both", res.GetMatches(), err)
	}
	for _, tok := range []string{"9223372036854775807", "2", "1"} {
		res, err := s.ListLiveMatches(as(t.Context(), "p_z"), &lobbyv1.ListLiveMatchesRequest{PageToken: tok, PageSize: 100})
		if err != nil || len(res.GetMatches()) != 0 || res.GetNextPageToken() != "" {
			t.Errorf("page_token %s: %v, next %q, %v; want an empty last page", tok, res.GetMatches(), res.GetNextPageToken(), err)
		}
	}
	res2, err := s.ListLiveMatches(as(t.Context(), "p_z"), &lobbyv1.ListLiveMatchesRequest{PageToken: "0", PageSize: 1})
	if err != nil || len(res2.GetMatches()) != 1 || res2.GetNextPageToken() != "" {
		t.Errorf("first page of one: %v, next %q, %v", res2.GetMatches(), res2.GetNextPageToken(), err)
	}
}

// GetGame of a private game is NOT_FOUND to a stranger and readable by
// its players and its invited spectators; an empty game_id is
// INVALID_ARGUMENT.
func TestPrivateGameRecordOnlyForItsPlayers(t *testing.T) {
	t.Parallel()
	s, _ := newServer(t)
	db := testenv.SQLite(t)
	s.d.Store = sqlstore.NewSQLite(db, glicko.Default(), nil)
	if _, err := db.ExecContext(t.Context(), `INSERT INTO players (player_id, display_name) VALUES ('p_a', 'A')`); err != nil {
		t.Fatal(err)
	}
	end := time.Unix(1_800_000_000, 0).UTC()
	for i, id := range []string{"pub", "priv"} {
		if _, err := db.ExecContext(t.Context(), `INSERT INTO games (game_id, game, variant, rated, first_player_id,
			first_display_name, second_player_id, second_display_name, plies, ply_clock_ms, ply_think_ms, ply_count,
			result, reason, started_at, ended_at, private, invited) VALUES ($1,'quoridor','standard',false,'p_a','A','p_b','B','e2','-','1',1,'draw','agreement',$2,$3,$4,$5)`,
			id, end, end.Add(time.Duration(i)*time.Second), id == "priv", `["p_c"]`); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.GetGame(as(t.Context(), "p_a"), &lobbyv1.GetGameRequest{})
	wantCode(t, "GetGame empty id", err, codes.InvalidArgument)
	_, err = s.GetGame(as(t.Context(), "p_z"), &lobbyv1.GetGameRequest{GameId: "priv"})
	wantCode(t, "stranger's GetGame of a private game", err, codes.NotFound)
	for _, who := range []string{"p_a", "p_b", "p_c"} {
		if _, err := s.GetGame(as(t.Context(), who), &lobbyv1.GetGameRequest{GameId: "priv"}); err != nil {
			t.Errorf("%s's own or invited private game: %v", who, err)
		}
	}
	if _, err := s.GetGame(as(t.Context(), "p_z"), &lobbyv1.GetGameRequest{GameId: "pub"}); err != nil {
		t.Errorf("stranger's GetGame of a public game: %v", err)
	}
	for who, want := range map[string]int{"p_z": 1, "p_b": 2} {
		res, err := s.ListGames(as(t.Context(), who), &lobbyv1.ListGamesRequest{PlayerId: "p_a"})
		if err != nil || len(res.GetGames()) != want {
			t.Errorf("%s listing p_a's games: %d (%v), want %d", who, len(res.GetGames()), err, want)
		}
	}
}

// A private room's match is created private, a public room's public.
func TestRoomMatchCarriesPrivacy(t *testing.T) {
	t.Parallel()
	s, m := newServer(t)
	for _, private := range []bool{true, false} {
		req := &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_QUORIDOR, Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC}
		host, guest, pw := "p_h", "p_g", ""
		if private {
			req.Visibility, req.Password, pw = lobbyv1.RoomVisibility_ROOM_VISIBILITY_PRIVATE, "secret", "secret"
			host, guest = "p_i", "p_j"
		}
		r, err := s.CreateRoom(as(t.Context(), host), req)
		if err != nil {
			t.Fatal(err)
		}
		j, err := s.JoinRoom(as(t.Context(), guest), &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_RoomId{RoomId: r.GetRoom().GetRoomId()}, Password: pw})
		if err != nil || j.GetRoom().GetMatchId() == "" {
			t.Fatalf("join: %v, %v", j, err)
		}
		if spec, ok := m.Specs()[j.GetRoom().GetMatchId()]; !ok || spec.Private != private {
			t.Errorf("room private=%v made a match with private=%v", private, spec.Private)
		}
	}
}
