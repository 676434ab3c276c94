package rpc

import (
	"encoding/hex"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine/banqi"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/services/lobby/internal/glicko"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

// A Banqi record carries, as game.v1 and lobby.v1 document, the seed's
// commitment and the piece each reveal turned face up.
func TestBanqiRecordHasCommitmentAndRevealedPieces(t *testing.T) {
	t.Parallel()
	s, _ := newServer(t)
	db := testenv.SQLite(t)
	s.d.Store = sqlstore.NewSQLite(db, glicko.Default(), nil)
	var seed [32]byte
	for i := range seed {
		seed[i] = byte(i * 7)
	}
	layout := banqi.LayoutFromSeed(seed)
	// Three reveals and a step: only the reveals name a piece.
	plies := "a1 h4 b1 a1-a2"
	end := time.Unix(1_800_000_000, 0).UTC()
	if _, err := db.ExecContext(t.Context(), `INSERT INTO games (game_id, game, variant, rated, first_player_id,
		first_display_name, second_player_id, second_display_name, plies, ply_clock_ms, ply_think_ms, ply_count,
		result, reason, started_at, ended_at, private, seed, layout) VALUES ('g','banqi','standard',false,'p_a','A','p_b','B',
		$1,'- - - -','1 1 1 1',4,'draw','agreement',$2,$2,false,$3,$4)`,
		plies, end, hex.EncodeToString(seed[:]), layout.String()); err != nil {
		t.Fatal(err)
	}
	res, err := s.GetGame(as(t.Context(), "p_z"), &lobbyv1.GetGameRequest{GameId: "g"})
	if err != nil {
		t.Fatal(err)
	}
	rec := res.GetRecord()
	if rec.GetSeedCommitment() != banqi.SeedCommitment(seed) {
		t.Errorf("seed_commitment %q, want %q", rec.GetSeedCommitment(), banqi.SeedCommitment(seed))
	}
	for i, sq := range []string{"a1", "h4", "b1"} {
		p, _ := banqi.ParseSquare(sq)
		want := gamev1.BanqiPiece_BANQI_PIECE_UNSPECIFIED
		for j, l := range "KABRNCPkabrncp" {
			if byte(l) == layout[p].Letter() {
				want = gamev1.BanqiPiece(j + 1)
			}
		}
		if got := rec.GetPlies()[i].GetRevealed(); got != want || got == gamev1.BanqiPiece_BANQI_PIECE_UNSPECIFIED {
			t.Errorf("ply %d (%s) revealed %v, want %v", i+1, sq, got, want)
		}
	}
	if got := rec.GetPlies()[3].GetRevealed(); got != gamev1.BanqiPiece_BANQI_PIECE_UNSPECIFIED {
		t.Errorf("a step revealed %v, want none", got)
	}
}
