package rpc

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"

	"tabuleiro.dev/pkg/engine"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/clientaddr"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/services/lobby/internal/accounts"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/passwd"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
)

// profile is profile.json of an export.
type profile struct {
	PlayerID    string          `json:"player_id"`
	DisplayName string          `json:"display_name"`
	Username    string          `json:"username,omitempty"`
	ExportedAt  time.Time       `json:"exported_at"`
	Games       int             `json:"games"`
	Stats       json.RawMessage `json:"stats"`
	Sessions    json.RawMessage `json:"sessions"`
}

// ExportAccountData zips the caller's profile and game records.
func (s *Server) ExportAccountData(ctx context.Context, _ *lobbyv1.ExportAccountDataRequest) (*lobbyv1.ExportAccountDataResponse, error) {
	pr, err := s.player(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	id := pr.PlayerID()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	n := 0
	for token := ""; ; {
		page, err := s.d.Store.History(ctx, id, id, "", 100, token)
		if err != nil {
			return nil, toStatus(err)
		}
		for _, g := range page.Games {
			rec, err := s.d.Store.Game(ctx, g.GameID)
			if err != nil {
				return nil, toStatus(err)
			}
			w, err := zw.CreateHeader(&zip.FileHeader{Name: "games/" + safeName(g.GameID) + ".txt", Method: zip.Deflate, Modified: g.EndedAt})
			if err != nil {
				return nil, toStatus(err)
			}
			if _, err := w.Write([]byte(RecordText(rec))); err != nil {
				return nil, toStatus(err)
			}
			n++
		}
		if token = page.Next; token == "" {
			break
		}
	}
	stats, err := s.GetStats(ctx, &lobbyv1.GetStatsRequest{})
	if err != nil {
		return nil, err
	}
	sessions, err := s.ListSessions(ctx, &lobbyv1.ListSessionsRequest{})
	if err != nil {
		return nil, err
	}
	opts := protojson.MarshalOptions{Indent: "  ", UseProtoNames: true}
	p := profile{PlayerID: id, DisplayName: stats.GetDisplayName(), Username: stats.GetUsername(), ExportedAt: s.d.Now().UTC(), Games: n}
	if p.Stats, err = opts.Marshal(stats); err != nil {
		return nil, toStatus(err)
	}
	if p.Sessions, err = opts.Marshal(sessions); err != nil {
		return nil, toStatus(err)
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, toStatus(err)
	}
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "profile.json", Method: zip.Deflate, Modified: p.ExportedAt})
	if err == nil {
		_, err = w.Write(append(b, '\n'))
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return nil, toStatus(err)
	}
	name := "tabuleiro-" + safeName(cmpOr(p.Username, id)) + ".zip"
	return &lobbyv1.ExportAccountDataResponse{Filename: name, Zip: buf.Bytes(), Games: int32(n)}, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// safeName keeps the letters, digits, '-', '_' and '.' of an id or
// username, for a file name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

// RecordText is a finished game as the record `tabuleiro replay FILE`
// reads (engine.ParseRecord): "# key: value" headers (game first, whose
// first word names the game; a Banqi game's layout), then the plies, ten
// to a line.
func RecordText(r sqlstore.Record) string {
	var b strings.Builder
	h := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "# %s: %s\n", k, strings.ReplaceAll(v, "\n", " "))
		}
	}
	seat := func(st sqlstore.Seat) string {
		if st.PlayerID == "" && st.Bot != 0 {
			return fmt.Sprintf("bot (level %d)", st.Bot)
		}
		return st.DisplayName
	}
	h("game", string(r.Game))
	h("variant", r.Variant)
	h("id", r.GameID)
	h("first", seat(r.First))
	if r.Second != nil {
		h("second", seat(*r.Second))
	}
	if r.Clock.BaseMS > 0 || r.Clock.IncrementMS > 0 {
		h("clock", fmt.Sprintf("%d+%d", r.Clock.BaseMS/1000, r.Clock.IncrementMS/1000))
	}
	h("rated", fmt.Sprint(r.Rated))
	res := r.Outcome.Result.String()
	if r.Outcome.Result == engine.Win {
		res += " " + r.Outcome.Winner.String()
	}
	h("result", res+" ("+r.Outcome.Reason.String()+")")
	h("started", r.StartedAt.UTC().Format(time.RFC3339))
	h("ended", r.EndedAt.UTC().Format(time.RFC3339))
	h("layout", r.Layout)
	h("seed", r.Seed)
	for i, p := range r.Plies {
		if i > 0 && i%10 == 0 {
			b.WriteByte('\n')
		} else if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.Notation)
	}
	b.WriteByte('\n')
	return b.String()
}

// DeleteAccount erases the caller's account after its password.
func (s *Server) DeleteAccount(ctx context.Context, req *lobbyv1.DeleteAccountRequest) (*lobbyv1.DeleteAccountResponse, error) {
	pr, err := s.player(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	if req.GetPassword() == "" {
		return nil, toStatus(lobby.Invalid("password", "is required"))
	}
	acct, err := s.d.Store.AccountByPlayer(ctx, pr.PlayerID())
	if errors.Is(err, lobby.ErrNotFound) {
		return nil, reason.Error(codes.FailedPrecondition, reason.AccountNeeded, "only an account may be deleted: a guest is forgotten with its browser's storage", nil)
	}
	if err != nil {
		return nil, toStatus(err)
	}
	c := clientaddr.FromContext(ctx, s.d.TrustedProxies)
	guesses := s.d.Guesses
	if s.d.ExemptLoopback && c.Loopback {
		guesses = nil
	}
	if guesses != nil {
		refused, err := guesses.Take(ctx, acct.Key, c.Key)
		if err != nil {
			return nil, toStatus(err)
		}
		if refused != nil {
			return nil, ratelimit.Exhausted(refused.Why, refused.RetryAfter)
		}
	}
	right, err := passwd.Verify(acct.PasswordHash, accounts.NormalizePassword(req.GetPassword()))
	if err != nil {
		return nil, toStatus(fmt.Errorf("account %s: %w", acct.PlayerID, err))
	}
	if !right {
		return nil, toStatus(lobby.ErrBadCredentials)
	}
	if guesses != nil {
		guesses.Right(ctx, acct.Key, c.Key)
	}
	kept := 0
	for token := ""; ; {
		page, err := s.d.Store.History(ctx, acct.PlayerID, acct.PlayerID, "", 100, token)
		if err != nil {
			return nil, toStatus(err)
		}
		kept += len(page.Games)
		if token = page.Next; token == "" {
			break
		}
	}
	// Sign-ins first: should the erasure fail, the player signs in again
	// and retries; the other way round, live tokens of a deleted player
	// would outlast it.
	if _, err := s.d.Sessions.SignOutAll(ctx, acct.PlayerID); err != nil {
		return nil, toStatus(err)
	}
	if err := s.d.Store.DeleteAccount(ctx, acct.PlayerID); err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.DeleteAccountResponse{GamesKept: int32(kept)}, nil
}
