package lobbyserver

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"tabuleiro.dev/pkg/engine"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/reason"
)

// An account downloads its data: a zip of profile.json and one record
// per finished game, each one `tabuleiro replay` reads (engine.ParseRecord,
// the game and plies in its headers and body). Then it deletes itself:
// a wrong password changes nothing; the right one erases the username and
// the sign-ins (the account's tokens are refused at once, from every
// device), the ratings, and the name in finished games, which the other
// player still sees as "deleted player"; the username is free again.
func TestExportThenDeleteAccount(t *testing.T) {
	t.Parallel()
	l := newAccountsLobby(t)
	ctx := t.Context()
	const web, phone = "198.51.100.10", "203.0.113.20"
	ana, tok := claimed(t, l, web, "Ana", "ana_data", "a long password")
	bia, _ := l.grpc.SignInGuest(grpcFrom(ctx, web, ""), &lobbyv1.SignInGuestRequest{DisplayName: "Bia"})
	end := time.Now().Add(-time.Minute)
	for i, id := range []string{"g-1", "g-2"} {
		l.exec(`INSERT INTO games (game_id, game, variant, rated, first_player_id, first_display_name, second_player_id,
		second_display_name, base_ms, increment_ms, plies, ply_clock_ms, ply_think_ms, ply_count, result, winner, reason, started_at, ended_at)
		VALUES ($1, 'quoridor', 'standard', true, $2, 'Ana', $3, 'Bia', 180000, 2000, 'e2 e8 e3', '179000 178000 177000', '1000 1000 1000', 3,
		'win', 'first', 'resignation', $4, $5)`, id, ana.GetPlayerId(), bia.GetPlayerId(), end.Add(-time.Hour), end.Add(time.Duration(i)*time.Second))
	}
	l.exec(`INSERT INTO ratings (player_id, game, variant, rating, deviation, volatility, games, updated_at)
		VALUES ($1, 'quoridor', 'standard', 1620, 200, 0.06, 2, now())`, ana.GetPlayerId())
	phoneIn, err := l.grpc.SignIn(grpcFrom(ctx, phone, ""), &lobbyv1.SignInRequest{Username: "ana_data", Password: "a long password", Device: "phone"})
	if err != nil {
		t.Fatal(err)
	}

	exp, err := call[lobbyv1.ExportAccountDataRequest, lobbyv1.ExportAccountDataResponse](l, lobbyv1.LobbyService_ExportAccountData_FullMethodName, web, tok,
		&lobbyv1.ExportAccountDataRequest{})
	if err != nil || exp.GetGames() != 2 || exp.GetFilename() != "tabuleiro-ana_data.zip" {
		t.Fatalf("export: %v games, %q, %v", exp.GetGames(), exp.GetFilename(), err)
	}
	zr, err := zip.NewReader(bytes.NewReader(exp.GetZip()), int64(len(exp.GetZip())))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		_ = rc.Close()
		files[f.Name] = string(b)
	}
	for _, id := range []string{"g-1", "g-2"} {
		rec, err := engine.ParseRecord(files["games/"+id+".txt"])
		if err != nil {
			t.Fatalf("record %s: %v\n%s", id, err, files["games/"+id+".txt"])
		}
		if g, _ := rec.Header("game"); g != "quoridor" || len(rec.Plies) != 3 || rec.Plies[2] != "e3" {
			t.Fatalf("record %s: %+v", id, rec)
		}
		if r, _ := rec.Header("result"); r != "win first (resignation)" {
			t.Errorf("record %s result %q", id, r)
		}
	}
	var prof struct {
		PlayerID, Username, DisplayName string `json:"-"`
		P                               string `json:"player_id"`
		U                               string `json:"username"`
		Games                           int    `json:"games"`
		Stats                           struct {
			Ratings []struct {
				Rating float64 `json:"rating"`
			} `json:"ratings"`
		} `json:"stats"`
		Sessions struct {
			Sessions []struct {
				Device string `json:"device"`
			} `json:"sessions"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(files["profile.json"]), &prof); err != nil {
		t.Fatalf("profile.json: %v\n%s", err, files["profile.json"])
	}
	if prof.P != ana.GetPlayerId() || prof.U != "ana_data" || prof.Games != 2 || len(prof.Stats.Ratings) != 1 ||
		prof.Stats.Ratings[0].Rating != 1620 || len(prof.Sessions.Sessions) != 2 {
		t.Fatalf("profile.json:\n%s", files["profile.json"])
	}

	// Deleting: a guest cannot, a wrong or empty password changes nothing.
	_, err = l.grpc.DeleteAccount(grpcFrom(ctx, web, bia.GetToken()), &lobbyv1.DeleteAccountRequest{Password: "whatever pw"})
	wantReason(t, "a guest's deletion", err, codes.FailedPrecondition, reason.AccountNeeded)
	_, err = l.grpc.DeleteAccount(grpcFrom(ctx, web, tok), &lobbyv1.DeleteAccountRequest{Password: "not the password"})
	wantReason(t, "a wrong password", err, codes.Unauthenticated, reason.CredentialsWrong)
	_, err = l.grpc.DeleteAccount(grpcFrom(ctx, web, tok), &lobbyv1.DeleteAccountRequest{})
	wantReason(t, "no password", err, codes.InvalidArgument, reason.InvalidRequest)
	if _, err := l.grpc.GetStats(grpcFrom(ctx, phone, phoneIn.GetToken()), &lobbyv1.GetStatsRequest{}); err != nil {
		t.Fatalf("refused deletions changed something: %v", err)
	}

	del, err := call[lobbyv1.DeleteAccountRequest, lobbyv1.DeleteAccountResponse](l, lobbyv1.LobbyService_DeleteAccount_FullMethodName, web, tok,
		&lobbyv1.DeleteAccountRequest{Password: "a long password"})
	if err != nil || del.GetGamesKept() != 2 {
		t.Fatalf("delete: %v, %v", del, err)
	}
	// Every token of the account is refused: this device's, the phone's,
	// the guest's first one, and their refresh tokens.
	for what, tk := range map[string]string{"web": tok, "phone": phoneIn.GetToken(), "the guest's first token": ana.GetToken()} {
		_, err := l.grpc.ListGames(grpcFrom(ctx, phone, tk), &lobbyv1.ListGamesRequest{})
		wantReason(t, what+" after the deletion", err, codes.Unauthenticated, reason.SignedOut)
	}
	_, err = l.grpc.RefreshToken(grpcFrom(ctx, phone, ""), &lobbyv1.RefreshTokenRequest{RefreshToken: phoneIn.GetRefreshToken()})
	wantReason(t, "the phone's refresh token", err, codes.Unauthenticated, reason.SignedOut)
	_, err = l.grpc.SignIn(grpcFrom(ctx, phone, ""), &lobbyv1.SignInRequest{Username: "ana_data", Password: "a long password"})
	wantReason(t, "signing in to the deleted account", err, codes.Unauthenticated, reason.CredentialsWrong)
	// The other player's history keeps the games, without the name.
	games, err := l.grpc.ListGames(grpcFrom(ctx, web, bia.GetToken()), &lobbyv1.ListGamesRequest{})
	if err != nil || len(games.GetGames()) != 2 {
		t.Fatalf("Bia's games: %v, %v", games, err)
	}
	for _, g := range games.GetGames() {
		for _, s := range g.GetParticipants() {
			if s.GetPlayerId() == ana.GetPlayerId() && s.GetDisplayName() != "deleted player" {
				t.Errorf("game %s shows the deleted player as %q", g.GetMatchId(), s.GetDisplayName())
			}
		}
	}
	_, err = l.grpc.GetStats(grpcFrom(ctx, web, bia.GetToken()), &lobbyv1.GetStatsRequest{PlayerId: ana.GetPlayerId()})
	wantReason(t, "the deleted player's stats", err, codes.NotFound, reason.NotFound)
	// The username is free again; no one may call themselves "deleted player".
	_, again := claimed(t, l, web, "Ana Again", "ana_data", "another long password")
	if again == "" {
		t.Fatal("the username was not freed")
	}
	_, err = l.grpc.SignInGuest(grpcFrom(ctx, web, ""), &lobbyv1.SignInGuestRequest{DisplayName: "Deleted  Player"})
	wantReason(t, "the name \"deleted player\"", err, codes.InvalidArgument, reason.InvalidRequest)
}
